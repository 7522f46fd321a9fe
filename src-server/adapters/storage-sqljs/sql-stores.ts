import type { Stores } from "../../ports/stores";
import { MemoryLimitCounter } from "../limits-memory/memory-limit-counter";
import { SqlAlertStore } from "./alert-store";
import { SqlAuthStore } from "./auth-store";
import { SqlComplianceLog } from "./compliance-log";
import { SqlConsoleStore } from "./console-store";
import type { DurableDb } from "./durable-db";
import { SqlRelayStore } from "./relay-store";
import { SqlRevertStore } from "./revert-store";
import { SqlSanctionsStore } from "./sanctions-store";
import { SqlCoordination } from "./sql-coordination";
import { SqlTreeStore } from "./tree-store";

export interface SqlStoresOptions {
  /** The relay's version, as the instance list shows it. */
  version: string;
  now?: () => number;
}

/** Every store over one sql.js database; one process owns it, so limits are counted in memory and this process leads every network. */
export function openSqlStores(db: DurableDb, opts: SqlStoresOptions): Stores {
  const coordination = new SqlCoordination(opts.version, opts.now);
  return {
    engine: "sqljs",
    tree: new SqlTreeStore(db),
    relays: new SqlRelayStore(db),
    reverts: new SqlRevertStore(db),
    auth: new SqlAuthStore(db),
    alerts: new SqlAlertStore(db),
    compliance: new SqlComplianceLog(db),
    console: new SqlConsoleStore(db),
    sanctionsOverrides: new SqlSanctionsStore(db),
    coordination,
    limits: new MemoryLimitCounter(),
    check: async () => {
      db.get("SELECT 1 AS x");
      const failure = db.failure;
      return { ok: !failure, detail: failure ? failure.message : `journal ${db.stats.journalBytes} bytes, ${db.stats.writes} writes` };
    },
    close: async () => {
      await coordination.close();
      await db.close();
    },
  };
}
