/**
 * The follower election on a real PostgreSQL: one instance per network leads (and writes under
 * its fence), the others read; a leader that stops renewing is replaced within its lease plus one
 * renewal, under the next epoch; a refused write demotes at once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { pgStoresPerTest } from "../../tests/support/pg-stores";
import type { PgStores } from "../adapters/storage-pg/open";
import type { Coordination } from "../ports/coordination";
import { FencedOut } from "../ports/store-errors";
import { FollowerElection, LEASE_MS, type FollowerElectionOptions } from "./follower-election";

const pg = pgStoresPerTest();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A coordination whose lead() fails while `paused` (a leader that lost the database, or stopped renewing). */
function pausable(c: Coordination): { coordination: Coordination; pause(): void; resume(): void } {
  let paused = false;
  const coordination: Coordination = Object.create(c) as Coordination;
  coordination.lead = (network, leaseMs) => (paused ? Promise.reject(new Error("paused")) : c.lead(network, leaseMs));
  return { coordination, pause: () => (paused = true), resume: () => (paused = false) };
}

const elections: FollowerElection[] = [];
afterEach(async () => {
  // Before the stores close (pgStoresPerTest's afterEach, registered first, runs after this one).
  await Promise.allSettled(elections.splice(0).map((e) => e.stop()));
});

function elect(stores: PgStores, o: Partial<FollowerElectionOptions> = {}): { election: FollowerElection; logs: string[] } {
  const logs: string[] = [];
  const election = new FollowerElection({ coordination: stores.coordination, networks: ["mainnet"], log: (l) => logs.push(l), ...o });
  elections.push(election);
  return { election, logs };
}

/** Polls `f` every 20 ms until it is true; answers how long that took. */
async function until(f: () => boolean, maxMs: number): Promise<number> {
  const t0 = Date.now();
  while (!f()) {
    if (Date.now() - t0 > maxMs) throw new Error(`not within ${maxMs} ms`);
    await sleep(20);
  }
  return Date.now() - t0;
}

describe("FollowerElection on PostgreSQL", () => {
  it("lets one instance lead a network and the other read it, each logging its role once", async () => {
    const a = await pg.open();
    const b = await pg.open({ url: pg.urlOf(a) });
    const A = elect(a);
    const B = elect(b);
    await A.election.start();
    await B.election.start();
    expect(A.election.fenceOf("mainnet")).toEqual({ network: "mainnet", holder: a.coordination.instanceId, epoch: 1 });
    expect(B.election.fenceOf("mainnet")).toBeNull();
    expect(B.election.roles()).toEqual([expect.objectContaining({ network: "mainnet", role: "reader", holder: a.coordination.instanceId, epoch: null })]);
    // Renewals keep both where they are, and say nothing more.
    await sleep(2_300);
    expect(A.election.fenceOf("mainnet")!.epoch).toBe(1);
    expect(B.election.leads("mainnet")).toBe(false);
    expect(A.logs).toEqual(["follower: this instance now follows mainnet (epoch 1)"]);
    expect(B.logs).toEqual([`follower: mainnet is followed by another instance (${a.coordination.instanceId}); reading its tree`]);
  });

  it("hands the network to the other instance within LEASE_MS + 1 s of the leader's last renewal, under the next epoch; the old leader stops believing it leads first", async () => {
    const a = await pg.open();
    const b = await pg.open({ url: pg.urlOf(a) });
    const frozen = pausable(a.coordination);
    const A = elect(a, { coordination: frozen.coordination });
    const B = elect(b);
    await A.election.start();
    await B.election.start();
    // Right after a renewal: the lease runs LEASE_MS from (about) here.
    await A.election.elect();
    frozen.pause();
    const lastRenewal = Date.now();
    let aLedUntil = 0;
    await until(() => {
      if (A.election.leads("mainnet")) aLedUntil = Date.now();
      return B.election.leads("mainnet");
    }, LEASE_MS + 3_000);
    const tookOver = Date.now() - lastRenewal;
    expect(tookOver).toBeLessThanOrEqual(LEASE_MS + 1_000);
    expect(tookOver).toBeGreaterThanOrEqual(LEASE_MS - 1_000);
    expect(B.election.fenceOf("mainnet")).toEqual({ network: "mainnet", holder: b.coordination.instanceId, epoch: 2 });
    // A gave its lease up locally before the database's could end.
    expect(aLedUntil - lastRenewal).toBeLessThan(LEASE_MS);
    expect(A.logs).toContainEqual(expect.stringMatching(/^follower: deposed on mainnet \(epoch 1\): its lease was not renewed within 4000 ms \(paused\)$/));
    expect(B.logs.at(-1)).toBe("follower: this instance now follows mainnet (epoch 2)");
    // A, back, finds the lease held and reads.
    frozen.resume();
    await A.election.elect();
    expect(A.election.roles()[0]).toMatchObject({ role: "reader", holder: b.coordination.instanceId });
  });

  it("steps down at once when a tree write is refused (FencedOut), though its own clock says the lease still runs", async () => {
    const a = await pg.open();
    const b = await pg.open({ url: pg.urlOf(a) });
    const frozen = pausable(a.coordination);
    // A process paused past its lease: its clock did not move meanwhile.
    const A = elect(a, { coordination: frozen.coordination, leaseMs: 600, renewMs: 100, clock: () => 0 });
    await A.election.start();
    const pool = await a.tree.createPool("mainnet", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");
    frozen.pause();
    await sleep(700);
    expect((await b.coordination.lead("mainnet", 60_000))!.epoch).toBe(2);
    const fence = A.election.fenceOf("mainnet");
    expect(fence).toMatchObject({ epoch: 1 });
    const refused = await a.tree.saveCursor(pool, "late", fence!).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FencedOut);
    A.election.demote("mainnet", (refused as Error).message);
    expect(A.election.fenceOf("mainnet")).toBeNull();
    expect(A.election.roles()[0]).toMatchObject({ role: "reader" });
    expect(A.logs.at(-1)).toMatch(/^follower: deposed on mainnet \(epoch 1\): mainnet: .* no longer follows the chain under epoch 1$/);
  });

  it("releases its lease on stop, so the other instance takes over at its next renewal", async () => {
    const a = await pg.open();
    const b = await pg.open({ url: pg.urlOf(a) });
    const A = elect(a);
    const B = elect(b);
    await A.election.start();
    await B.election.start();
    const changes: string[] = [];
    B.election.onChange((network, role) => changes.push(`${network}:${role.role}:${role.epoch}`));
    await A.election.stop();
    expect(await until(() => B.election.leads("mainnet"), 2_000)).toBeLessThanOrEqual(1_500);
    expect(changes).toEqual(["mainnet:leader:2"]);
  });
});
