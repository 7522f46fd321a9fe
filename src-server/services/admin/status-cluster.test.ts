import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { adminCluster } from "../../../src-shared/api/admin";
import { SqlCoordination } from "../../adapters/storage-sqljs/sql-coordination";
import { clusterView } from "./status";

describe("the Health page's instances on the embedded sql.js store", () => {
  it("lists this process alone, marked as this instance, following the networks it leads", async () => {
    let now = 1_000_000;
    const coordination = new SqlCoordination("1.2.3", () => now);
    await coordination.lead("mainnet", 5_000);
    now += 1_500;
    await coordination.heartbeat();
    const view = await clusterView({ engine: "sqljs", coordination, staleMs: 10_000 }, now);
    expect(view).toEqual({
      engine: "sqljs",
      self: coordination.instanceId,
      instances: [
        {
          id: coordination.instanceId,
          host: hostname(),
          pid: process.pid,
          version: "1.2.3",
          startedAt: 1_000_000,
          heartbeatAt: 1_001_500,
          self: true,
          follows: ["mainnet"],
        },
      ],
      leases: [{ network: "mainnet", holder: coordination.instanceId, epoch: 1, leaseUntil: 1_005_000 }],
    });
    // What the server builds is what the console decodes.
    expect(adminCluster(view)).toEqual({ ok: true, value: view });
  });

  it("stops naming an instance as a network's follower once its lease ran out, and keeps the lease for the per-network line", async () => {
    const coordination = new SqlCoordination("1.2.3", () => 0);
    await coordination.lead("devnet", 5_000);
    const view = await clusterView({ engine: "sqljs", coordination, staleMs: 10_000 }, 5_000);
    expect(view.instances[0]!.follows).toEqual([]);
    expect(view.leases).toEqual([{ network: "devnet", holder: coordination.instanceId, epoch: 1, leaseUntil: 5_000 }]);
  });
});
