import type { Stores } from "../../ports/stores";
import { PgAlertStore } from "./alert-store";
import { PgAuthStore } from "./auth-store";
import { PgComplianceLog } from "./compliance-log";
import { PgConsoleStore } from "./console-store";
import { PgCoordination, type InstanceIdentity } from "./coordination";
import { PgLimitCounter } from "./limit-counter";
import { migrate } from "./migrations";
import { PgDatabase } from "./pool";
import { PgRelayStore } from "./relay-store";
import { PgRevertStore } from "./revert-store";
import { PgSanctionsStore } from "./sanctions-store";
import { PgTreeStore } from "./tree-store";

export interface PgStoresOptions {
  /** A secret (it may carry a password): only describePgUrl's host:port/db is ever shown. */
  url: string;
  instance: InstanceIdentity;
  log: (msg: string) => void;
  /** Connections this instance keeps at most. */
  poolSize?: number;
  queryTimeoutMs?: number;
  /** See PgPoolOptions.idleInTransactionMs. */
  idleInTransactionMs?: number;
  /** How often idle rate-limit keys are dropped (0: never; tests call limits.prune). */
  limitPruneMs?: number;
}

/** The Stores bundle (issue 27, contract §2) over one PostgreSQL database. */
export interface PgStores extends Stores {
  readonly engine: "postgres";
  /** host:port/db, for logs and /health. */
  readonly where: string;
  tree: PgTreeStore;
  relays: PgRelayStore;
  reverts: PgRevertStore;
  auth: PgAuthStore;
  alerts: PgAlertStore;
  compliance: PgComplianceLog;
  console: PgConsoleStore;
  sanctionsOverrides: PgSanctionsStore;
  coordination: PgCoordination;
  limits: PgLimitCounter;
  check(): Promise<{ ok: boolean; detail: string }>;
  close(): Promise<void>;
}

/**
 * Connects (a clear one-line error naming host:port/db when it cannot), migrates under the
 * migration lock, registers this instance and answers every store over one connection pool.
 */
export async function openPgStores(opts: PgStoresOptions): Promise<PgStores> {
  const db = new PgDatabase({
    url: opts.url,
    max: opts.poolSize,
    queryTimeoutMs: opts.queryTimeoutMs,
    idleInTransactionMs: opts.idleInTransactionMs,
    log: opts.log,
  });
  try {
    await db.connectCheck();
    await migrate(db, opts.log);
  } catch (e) {
    await db.close();
    throw e;
  }
  const coordination = new PgCoordination(db, opts.instance);
  const limits = new PgLimitCounter(db);
  await coordination.heartbeat();
  const pruneEvery = opts.limitPruneMs ?? 60_000;
  const prune =
    pruneEvery > 0
      ? setInterval(() => {
          limits.prune(Date.now()).catch((e: unknown) => opts.log(`storage: rate-limit prune failed: ${(e as Error).message}`));
        }, pruneEvery)
      : null;
  prune?.unref();
  let closed = false;
  return {
    engine: "postgres",
    where: db.where,
    tree: new PgTreeStore(db),
    relays: new PgRelayStore(db),
    reverts: new PgRevertStore(db),
    auth: new PgAuthStore(db),
    alerts: new PgAlertStore(db),
    compliance: new PgComplianceLog(db),
    console: new PgConsoleStore(db),
    sanctionsOverrides: new PgSanctionsStore(db),
    coordination,
    limits,
    check: () => db.check(),
    async close() {
      if (closed) return;
      closed = true;
      if (prune) clearInterval(prune);
      try {
        await coordination.close();
      } catch (e) {
        // The database may be gone already; the leases then run out on their own.
        opts.log(`storage: leaving the instance list failed: ${(e as Error).message}`);
      }
      await db.close();
    },
  };
}
