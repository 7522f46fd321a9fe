/** The follower election over the sql.js coordination: one process owns its store and leads every network, always. */
import { describe, expect, it } from "vitest";
import { SqlCoordination } from "../adapters/storage-sqljs/sql-coordination";
import { FollowerElection } from "./follower-election";

describe("FollowerElection on sql.js", () => {
  it("leads every network under epoch 1 from its first round, and a stalled event loop does not depose it (nobody can take its lease)", async () => {
    let clock = 0;
    const logs: string[] = [];
    const election = new FollowerElection({
      coordination: new SqlCoordination("test"),
      networks: ["mainnet", "devnet"],
      sole: true,
      clock: () => clock,
      log: (l) => logs.push(l),
    });
    await election.start();
    expect(election.fenceOf("mainnet")).toEqual({ network: "mainnet", holder: election.instanceId, epoch: 1 });
    expect(election.roles().map((r) => [r.network, r.role, r.epoch])).toEqual([
      ["mainnet", "leader", 1],
      ["devnet", "leader", 1],
    ]);
    clock += 60_000;
    expect(election.leads("devnet")).toBe(true);
    await election.stop();
    expect(election.leads("mainnet")).toBe(false);
    expect(logs).toEqual(["follower: this instance now follows mainnet (epoch 1)", "follower: this instance now follows devnet (epoch 1)"]);
  });

  it("without `sole`, gives a lease up locally once it was not renewed within leaseMs minus the margin, and takes it again at the next answer", async () => {
    let clock = 0;
    const logs: string[] = [];
    const election = new FollowerElection({ coordination: new SqlCoordination("test"), networks: ["mainnet"], clock: () => clock, log: (l) => logs.push(l) });
    await election.elect();
    clock += 3_999;
    expect(election.leads("mainnet")).toBe(true);
    clock += 1;
    expect(election.leads("mainnet")).toBe(false);
    await election.elect();
    expect(election.leads("mainnet")).toBe(true);
    expect(logs).toEqual([
      "follower: this instance now follows mainnet (epoch 1)",
      "follower: deposed on mainnet (epoch 1): its lease was not renewed within 4000 ms",
      "follower: this instance now follows mainnet (epoch 1)",
    ]);
  });
});
