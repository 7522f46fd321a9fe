/**
 * The relay's storage and proof machinery, opened for the composition root
 * (compose-relay.ts): the data dir's lock, the store, the Poseidon hasher and
 * the verifier's workers, each closer on the root's teardown stack as it is
 * created.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createFastPoseidonHasher, PREBUILT_WASM as PREBUILT_POSEIDON_WASM } from "../adapters/poseidon-fast/fast-hasher";
import { lockDataDir } from "../adapters/storage-sqljs/data-dir-lock";
import { DurableDb } from "../adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../adapters/storage-sqljs/schema-migrations";
import { openSqlStores } from "../adapters/storage-sqljs/sql-stores";
import { deferredVerifier } from "../adapters/verifier-groth16/deferred-verifier";
import { createGroth16Verifier } from "../adapters/verifier-groth16/worker-pool";
import type { RelayConfig } from "../config/schema";
import type { QueuedProofVerifier } from "../ports/proof-verifier";
import type { Stores } from "../ports/stores";
import type { TeardownStack } from "../teardown";

export interface Storage {
  /** The sql.js database itself, for what only it has (the sandbox ledger, journal and snapshot stats). */
  db: DurableDb;
  /** Every store the relay has, over that database. */
  stores: Stores;
  hasher: FieldHasher;
  /** The worker pool while it boots: a key that cannot be read or parsed rejects it early. */
  verifierStarting: Promise<QueuedProofVerifier>;
  /** The verifier the relay uses: requests wait for the workers to boot; `pending` is its queue (metrics). */
  verifierPool: QueuedProofVerifier;
}

/**
 * Where the fast Poseidon module is: next to the verification key (resources/zk in the
 * repository and in the desktop app alike), else where the sources keep it. (It hashes 2 and
 * 3 inputs; it looks for the lean module, for the other arities, in the same folders.)
 */
export function fastPoseidonPlaces(config: RelayConfig): string[] {
  return [path.join(path.dirname(config.verifier.vkeyPath), "poseidon-bn254-fast.wasm"), PREBUILT_POSEIDON_WASM];
}

/** The verifier's workers and the Poseidon wasm boot while the store opens and replays; a failure of any throws once all have settled. */
export async function openStorage(config: RelayConfig, log: (line: string) => void, stack: TeardownStack, version: string): Promise<Storage> {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  stack.defer("data dir lock", lockDataDir(config.dataDir));
  const verifierStarting = createGroth16Verifier(config.verifier.vkeyPath, {
    maxQueue: config.verifier.maxQueue,
    ...(config.verifier.threads > 0 ? { threads: config.verifier.threads } : {}),
  });
  verifierStarting.catch(() => {});
  const hasherLoading = createFastPoseidonHasher(fastPoseidonPlaces(config), log);
  const dbOpening = DurableDb.open({
    dir: config.dataDir,
    migrations: MIGRATIONS,
    functions: SQL_FUNCTIONS,
    snapshotIntervalMs: config.storage.snapshotIntervalSec * 1000,
    snapshotJournalBytes: config.storage.snapshotJournalMiB * 1024 * 1024,
    log,
  });
  const [hasherLoaded, dbOpened] = await Promise.allSettled([hasherLoading, dbOpening]);
  // The store closes after the verifier (registered first), as a proof refused at close is still written to it.
  const opened: { db: DurableDb; stores: Stores } | { error: unknown } =
    dbOpened.status === "fulfilled" ? { db: dbOpened.value, stores: openSqlStores(dbOpened.value, { version }) } : { error: dbOpened.reason };
  if ("stores" in opened) {
    const { stores } = opened;
    stack.defer("store", () => stores.close());
  }
  const verifierPool = deferredVerifier(verifierStarting, log);
  stack.defer("verifier workers", () => verifierPool.close());
  if ("error" in opened) throw opened.error;
  if (hasherLoaded.status === "rejected") throw hasherLoaded.reason;
  const { db, stores } = opened;
  const hasher = hasherLoaded.value;
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
  return { db, stores, hasher, verifierStarting, verifierPool };
}
