/**
 * Instances and chain-follower leases on the database's clock: one holder per network, renewed
 * under its epoch, taken over under the next epoch once it ran out or was released.
 */
import { describe, expect, it } from "vitest";
import { pgStoresPerTest } from "../../../tests/support/pg-stores";

const pg = pgStoresPerTest();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe("PgCoordination", () => {
  it("gives a free lease epoch 1, renews it under the same epoch, and refuses it to others while it runs", async () => {
    const a = await pg.open();
    const b = await pg.open({ url: pg.urlOf(a) });
    const first = await a.coordination.lead("mainnet", 5_000);
    expect(first!.epoch).toBe(1);
    // The database's clock decides, but on one machine it is this one.
    expect(Math.abs(first!.leaseUntil - (Date.now() + 5_000))).toBeLessThan(2_000);
    expect(await b.coordination.lead("mainnet", 5_000)).toBeNull();
    await sleep(5);
    const renewed = await a.coordination.lead("mainnet", 5_000);
    expect(renewed!.epoch).toBe(1);
    expect(renewed!.leaseUntil).toBeGreaterThan(first!.leaseUntil);
    // Networks are leased separately.
    expect((await b.coordination.lead("devnet", 5_000))!.epoch).toBe(1);
    expect(await b.coordination.leases()).toEqual([
      { network: "devnet", holder: b.coordination.instanceId, epoch: 1, leaseUntil: expect.any(Number) },
      { network: "mainnet", holder: a.coordination.instanceId, epoch: 1, leaseUntil: renewed!.leaseUntil },
    ]);
  });

  it("lets another instance take a lease that ran out, under the next epoch, and shuts the old holder out", async () => {
    const a = await pg.open();
    const b = await pg.open({ url: pg.urlOf(a) });
    await a.coordination.lead("mainnet", 300);
    expect(await b.coordination.lead("mainnet", 300)).toBeNull();
    await sleep(400);
    const taken = await b.coordination.lead("mainnet", 60_000);
    expect(taken!.epoch).toBe(2);
    expect(await a.coordination.lead("mainnet", 300)).toBeNull();
    expect((await a.coordination.leases())[0]).toMatchObject({ holder: b.coordination.instanceId, epoch: 2 });
  });

  it("retakes its own lease that ran out under a new epoch, so writes fenced with the old one stay refused", async () => {
    const a = await pg.open();
    await a.coordination.lead("mainnet", 100);
    await sleep(200);
    expect((await a.coordination.lead("mainnet", 100))!.epoch).toBe(2);
  });

  it("hands a released lease over at once, and ignores a release of an epoch no longer held", async () => {
    const a = await pg.open();
    const b = await pg.open({ url: pg.urlOf(a) });
    const lease = await a.coordination.lead("mainnet", 60_000);
    await b.coordination.release("mainnet", lease!.epoch);
    expect(await b.coordination.lead("mainnet", 60_000)).toBeNull();
    await a.coordination.release("mainnet", lease!.epoch + 1);
    expect(await b.coordination.lead("mainnet", 60_000)).toBeNull();
    await a.coordination.release("mainnet", lease!.epoch);
    expect((await b.coordination.lead("mainnet", 60_000))!.epoch).toBe(lease!.epoch + 1);
  });

  it("gives a free lease to exactly one of several instances asking at once", async () => {
    const first = await pg.open();
    const others = await Promise.all(Array.from({ length: 4 }, () => pg.open({ url: pg.urlOf(first) })));
    const all = [first, ...others];
    const answers = await Promise.all(all.map((s) => s.coordination.lead("mainnet", 60_000)));
    expect(answers.filter((x) => x !== null)).toEqual([{ epoch: 1, leaseUntil: expect.any(Number) }]);
  });

  it("lists the instances that beat within staleMs, and drops one that closed (ending its leases)", async () => {
    const a = await pg.open({ instance: { host: "host-a", pid: 11, version: "1.2.3" } });
    const b = await pg.open({ url: pg.urlOf(a), instance: { host: "host-b", pid: 22, version: "1.2.4", id: "b-fixed" } });
    expect(b.coordination.instanceId).toBe("b-fixed");
    const listed = await a.coordination.instances(10_000);
    expect(listed.map((i) => [i.host, i.pid, i.version])).toEqual([
      ["host-a", 11, "1.2.3"],
      ["host-b", 22, "1.2.4"],
    ]);
    expect(listed[0]!.heartbeatAt).toBeGreaterThanOrEqual(listed[0]!.startedAt);
    await sleep(300);
    await b.coordination.heartbeat();
    expect((await a.coordination.instances(200)).map((i) => i.id)).toEqual(["b-fixed"]);

    await b.coordination.lead("mainnet", 60_000);
    await b.close();
    expect((await a.coordination.instances(10_000)).map((i) => i.host)).toEqual(["host-a"]);
    expect((await a.coordination.lead("mainnet", 60_000))!.epoch).toBe(2);
  });
});
