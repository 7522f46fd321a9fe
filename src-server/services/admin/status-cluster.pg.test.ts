/** The Health page's instances over real PostgreSQL coordination: two instances on one database, each leading one network. */
import { describe, expect, it } from "vitest";
import { adminCluster } from "../../../src-shared/api/admin";
import { pgStoresPerTest } from "../../../tests/support/pg-stores";
import { clusterView } from "./status";

const pg = pgStoresPerTest();

describe("the Health page's instances on PostgreSQL", () => {
  it("lists every live instance, this one first and marked, with the networks each follows and every lease's holder and epoch", async () => {
    const a = await pg.open({ instance: { host: "host-a", pid: 11, version: "1.0.0" } });
    const b = await pg.open({ url: pg.urlOf(a), instance: { host: "host-b", pid: 22, version: "1.0.1" } });
    await a.coordination.heartbeat();
    await b.coordination.heartbeat();
    const mainnet = await a.coordination.lead("mainnet", 60_000);
    const devnet = await b.coordination.lead("devnet", 60_000);

    const view = await clusterView({ engine: "postgres", coordination: b.coordination, staleMs: 10_000 }, Date.now());
    expect(adminCluster(view)).toEqual({ ok: true, value: view });
    expect(view.engine).toBe("postgres");
    expect(view.self).toBe(b.coordination.instanceId);
    expect(view.instances.map((i) => [i.host, i.pid, i.version, i.self, i.follows])).toEqual([
      ["host-b", 22, "1.0.1", true, ["devnet"]],
      ["host-a", 11, "1.0.0", false, ["mainnet"]],
    ]);
    for (const i of view.instances) expect(i.heartbeatAt).toBeGreaterThanOrEqual(i.startedAt);
    expect(view.leases).toEqual([
      { network: "devnet", holder: b.coordination.instanceId, epoch: devnet!.epoch, leaseUntil: devnet!.leaseUntil },
      { network: "mainnet", holder: a.coordination.instanceId, epoch: mainnet!.epoch, leaseUntil: mainnet!.leaseUntil },
    ]);
  });

  it("leaves out an instance that stopped (its heartbeat is gone) and keeps its released lease without a follower", async () => {
    const a = await pg.open({ instance: { host: "host-a", pid: 11, version: "1.0.0" } });
    const b = await pg.open({ url: pg.urlOf(a), instance: { host: "host-b", pid: 22, version: "1.0.0" } });
    await a.coordination.heartbeat();
    await b.coordination.heartbeat();
    await a.coordination.lead("mainnet", 60_000);
    await a.coordination.close();

    const view = await clusterView({ engine: "postgres", coordination: b.coordination, staleMs: 10_000 }, Date.now());
    expect(view.instances.map((i) => i.host)).toEqual(["host-b"]);
    expect(view.instances[0]!.follows).toEqual([]);
    expect(view.leases).toEqual([{ network: "mainnet", holder: a.coordination.instanceId, epoch: 1, leaseUntil: expect.any(Number) }]);
    expect(view.leases[0]!.leaseUntil).toBeLessThanOrEqual(Date.now() + 1_000);
  });
});
