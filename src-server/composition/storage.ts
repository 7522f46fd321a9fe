/**
 * The relay's storage and proof machinery, opened for the composition root
 * (compose-relay.ts): the data dir's lock, the store, the Poseidon hasher and
 * the verifier's workers, each closer on the root's teardown stack as it is
 * created.
 */
import { mkdirSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createFastPoseidonHasher, PREBUILT_WASM as PREBUILT_POSEIDON_WASM } from "../adapters/poseidon-fast/fast-hasher";
import { lockDataDir } from "../adapters/storage-sqljs/data-dir-lock";
import { DurableDb } from "../adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../adapters/storage-sqljs/schema-migrations";
import { openSqlStores } from "../adapters/storage-sqljs/sql-stores";
import { deferredVerifier, type DeferredVerifier } from "../adapters/verifier-groth16/deferred-verifier";
import { createGroth16Verifier, readVerifierKey } from "../adapters/verifier-groth16/worker-pool";
import type { RelayConfig } from "../config/schema";
import type { Stores } from "../ports/stores";
import type { TeardownStack } from "../teardown";

export interface Storage {
  /** The sql.js database itself, for what only it has (the sandbox ledger, journal and snapshot stats); null on PostgreSQL. */
  db: DurableDb | null;
  /** Every store the relay has, over that database. */
  stores: Stores;
  hasher: FieldHasher;
  /** The verifier the relay uses: its workers boot when the start asks (compose-relay.ts) or a proof does, which waits for them; `pending` is its queue (metrics). */
  verifierPool: DeferredVerifier;
}

/**
 * Where the fast Poseidon module is: next to the verification key (resources/zk in the
 * repository and in the desktop app alike), else where the sources keep it. (It hashes 2 and
 * 3 inputs; it looks for the lean module, for the other arities, in the same folders.)
 */
export function fastPoseidonPlaces(config: RelayConfig): string[] {
  return [path.join(path.dirname(config.verifier.vkeyPath), "poseidon-bn254-fast.wasm"), PREBUILT_POSEIDON_WASM];
}

/**
 * The Poseidon wasm loads while the store opens and replays; a failure of either throws once both have settled. The
 * verification key is read and checked first (one that cannot be read or parsed stops the start); the verifier's workers
 * boot later, when asked (adapters/verifier-groth16/deferred-verifier.ts), so that no verifier thread compiles mcl-wasm
 * while this start compiles sql.js and the fast Poseidon with a raised tier-up budget (adapters/threads/wasm-tiering.ts).
 */
export async function openStorage(config: RelayConfig, log: (line: string) => void, stack: TeardownStack, version: string): Promise<Storage> {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // The data dir holds this instance's keys in both modes: one process per data dir.
  stack.defer("data dir lock", lockDataDir(config.dataDir));
  readVerifierKey(config.verifier.vkeyPath);
  const hasherLoading = createFastPoseidonHasher(fastPoseidonPlaces(config), log);
  const [hasherLoaded, storesOpened] = await Promise.allSettled([hasherLoading, openStores(config, log, version)]);
  // The store closes after the verifier (registered first), as a proof refused at close is still written to it.
  if (storesOpened.status === "fulfilled") {
    const { stores } = storesOpened.value;
    stack.defer("store", () => stores.close());
  }
  const threads = config.verifier.threads > 0 ? { threads: config.verifier.threads } : {};
  const verifierPool = deferredVerifier(() => createGroth16Verifier(config.verifier.vkeyPath, { maxQueue: config.verifier.maxQueue, ...threads }), log);
  stack.defer("verifier workers", () => verifierPool.close());
  if (storesOpened.status === "rejected") throw storesOpened.reason;
  if (hasherLoaded.status === "rejected") throw hasherLoaded.reason;
  const { db, stores } = storesOpened.value;
  return { db, stores, hasher: hasherLoaded.value, verifierPool };
}

/** The configured engine's stores: sql.js in the data dir (replayed from its journal), or the shared PostgreSQL database (migrated under its lock). */
async function openStores(config: RelayConfig, log: (line: string) => void, version: string): Promise<{ db: DurableDb | null; stores: Stores }> {
  const { storage } = config;
  if (storage.kind === "postgres") {
    // Loaded only for PostgreSQL: pg and its protocol code are 85 ms and 14 MB of a start that uses sql.js (issue 29).
    const { openPgStores } = await import("../adapters/storage-pg/open");
    const stores = await openPgStores({ url: storage.url!, poolSize: storage.poolSize, instance: { host: hostname(), pid: process.pid, version }, log });
    log(`storage: PostgreSQL at ${stores.where}, instance ${stores.coordination.instanceId}`);
    return { db: null, stores };
  }
  const db = await DurableDb.open({
    dir: config.dataDir,
    migrations: MIGRATIONS,
    functions: SQL_FUNCTIONS,
    snapshotIntervalMs: storage.snapshotIntervalSec * 1000,
    snapshotJournalBytes: storage.snapshotJournalMiB * 1024 * 1024,
    log,
  });
  // Protocol v2 (migration 11) set aside the sandbox pools a v1 store held: say so on every start.
  const archived = db.all<{ network: string; mint: string; leaves: number }>(
    "SELECT network, mint, leaves FROM archived_pools WHERE protocol = 1 ORDER BY network, mint",
  );
  if (archived.length) {
    log(
      `protocol v2: ${archived.length} sandbox pool(s) built on protocol v1 leaves are archived and never relayed from: ` +
        `${archived.map((a) => `${a.network}/${a.mint} (${a.leaves} leaves)`).join(", ")}; relay, revert and compliance records are kept (console: Pools)`,
    );
  }
  return { db, stores: openSqlStores(db, { version }) };
}
