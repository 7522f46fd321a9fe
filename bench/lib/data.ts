import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createFastPoseidonHasher } from "../../src-server/adapters/poseidon-fast/fast-hasher";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { toHex } from "../../src-shared/encoding/bytes";
import type { Network } from "../../src-shared/networks";
import { DurableDb } from "../../src-server/adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../../src-server/adapters/storage-sqljs/schema-migrations";
import { SqlTreeStore } from "../../src-server/adapters/storage-sqljs/tree-store";
import { MerkleTree } from "../../src-server/core/merkle/tree";
import type { Fence } from "../../src-server/ports/coordination";
import type { IndexedLeaf } from "../../src-server/ports/tree-store";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Bump when the prepared pools' content changes (leaf generator, metadata,
 * anything in this file that shapes the data).
 * The cache key also hashes the storage and tree sources, so a schema or
 * format change there rebuilds the pools instead of reusing stale files.
 */
export const BENCH_DATA_VERSION = "pool-v1";

/** A pool the sandbox does not know: the indexer adopts it from the store and the chain never touches it. */
export const BENCH_MINT = encodeBase58(createHash("sha256").update("relay-bench-mint").digest());
export const BENCH_NETWORK: Network = "mainnet";
/** The indexer's page size (services/indexer.ts PAGE): how it appends in real operation. */
export const INDEXER_PAGE = 1000;

/** Deterministic 32-byte leaves below the field modulus (first byte < 0x30). */
export function makeLeaves(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n * 32);
  const words = new Uint32Array(out.buffer);
  // xorshift32: fast and reproducible; leaves only need to be distinct field elements.
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    words[i] = x;
  }
  for (let i = 0; i < n; i++) out[i * 32] = out[i * 32]! % 0x30;
  return out;
}

const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** A base58 text of transaction-signature length (88 chars), unique per index; only stored, never decoded. */
export function fakeSignature(i: number, salt = 0): string {
  let s = "";
  let x = (i * 2654435761 + salt * 40503 + 12345) >>> 0;
  for (let k = 0; k < 80; k++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    s += B58[x % 58];
  }
  // The index in fixed width keeps them unique whatever the generator does.
  s += i.toString(36).padStart(8, "1").replace(/0/g, "z");
  // Flat, as JSON.parse hands the indexer a chain's signatures: a string built by += is a rope, and
  // flattening 88 levels of it when first read would be billed to whoever reads it first (the store).
  return Buffer.from(s, "latin1").toString("latin1");
}

/** The bench writes as the only instance on its store (sql.js ignores the fence). */
export const FENCE: Fence = { network: "mainnet", holder: "bench", epoch: 1 };

/** sql.js keeps leaves in the tree's pages, not beside their metadata: the bench's metadata leaves them out. */
const NOT_KEPT = new Uint8Array(32);

export function leafMeta(first: number, count: number, salt = 0): IndexedLeaf[] {
  const out: IndexedLeaf[] = [];
  // Deposits of 1 token (6 decimals), as the prepared pools' leaves stand for.
  for (let i = 0; i < count; i++)
    out.push({
      leafIndex: first + i,
      commitment: NOT_KEPT,
      signature: fakeSignature(first + i, salt),
      slot: 1000 + ((first + i) >> 2),
      kind: "deposit",
      amount: 1_000_000n,
    });
  return out;
}

/** A field element as fixed-merkle-tree and circomlibjs users pass it: a decimal string. */
export function toDecimal(bytes: Uint8Array, offset = 0): string {
  let hex = "0x";
  for (let i = 0; i < 32; i++) hex += (bytes[offset + i]! < 16 ? "0" : "") + bytes[offset + i]!.toString(16);
  return BigInt(hex).toString();
}

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), `relay-bench-${prefix}-`));
}

export interface PersistTimings {
  openMs: number;
  /** MerkleTree.append (hashing) total. */
  appendMs: number;
  /** SqlTreeStore.saveAppend total (SQL + journal + fsync). */
  saveMs: number;
  /** DurableDb.close: final snapshot export, write, fsync, rename. */
  closeMs: number;
  /** append + save + close: what "leaves/s" is computed from. */
  totalMs: number;
  root: string;
  /** Write batches and journal fsyncs of the appends (migrations and pool creation excluded). */
  writes: number;
  fsyncs: number;
}

/**
 * Appends `n` leaves to a new persisted pool the way the indexer does
 * (MerkleTree.append, then SqlTreeStore.saveAppend with leaf metadata and
 * cursor), in batches of `batch`, then closes the store (final snapshot).
 */
export async function buildPersistedPool(
  dir: string,
  leaves: Uint8Array,
  opts: { batch: number; withMeta?: boolean; fsync?: boolean; log?: (m: string) => void },
): Promise<PersistTimings> {
  const n = leaves.length / 32;
  const hasher = await createFastPoseidonHasher();
  const t0 = performance.now();
  const db = await DurableDb.open({
    dir,
    migrations: MIGRATIONS,
    functions: SQL_FUNCTIONS,
    fsync: opts.fsync ?? true,
    snapshotIntervalMs: 0,
    ...(opts.log ? { log: opts.log } : {}),
  });
  const store = new SqlTreeStore(db);
  const pool = await store.createPool(BENCH_NETWORK, BENCH_MINT);
  const tree = new MerkleTree(hasher);
  const openMs = performance.now() - t0;
  const before = db.stats;

  // Leaf metadata is the chain's input, made before the clock starts.
  const metas: IndexedLeaf[][] = [];
  for (let first = 0; first < n; first += opts.batch) metas.push(opts.withMeta === false ? [] : leafMeta(first, Math.min(opts.batch, n - first)));

  let appendMs = 0;
  let saveMs = 0;
  const tStart = performance.now();
  for (let first = 0, page = 0; first < n; first += opts.batch, page++) {
    const count = Math.min(opts.batch, n - first);
    const meta = metas[page]!;
    const a = performance.now();
    const r = tree.append(leaves.subarray(first * 32, (first + count) * 32));
    if (!r.ok) throw new Error(`append: ${r.error}`);
    const b = performance.now();
    await store.saveAppend(pool, r.value, String(first + count), meta, FENCE);
    saveMs += performance.now() - b;
    appendMs += b - a;
  }
  const writes = db.stats.writes - before.writes;
  const fsyncs = db.stats.fsyncs - before.fsyncs;
  const c = performance.now();
  await db.close();
  const closeMs = performance.now() - c;
  return { openMs, appendMs, saveMs, closeMs, totalMs: performance.now() - tStart, root: toHex(tree.root()), writes, fsyncs };
}

/**
 * What the prepared data depends on: the tree and storage-format sources and
 * the migrations that create the tree tables. Later migrations (other
 * features' tables) do not invalidate the cache: a cached pool is upgraded in
 * place instead (see `preparedPool`), which takes seconds, not minutes.
 */
function sourceKey(): string {
  const h = createHash("sha256").update(BENCH_DATA_VERSION);
  // The storage engine's file format and the tree store; other stores in that folder do not shape this data.
  const files = [
    ...["durable-db", "journal-codec", "journal-file", "snapshot-file", "recovery", "migrations", "sql-exec", "tree-store", "page-files", "leaf-pages"].map(
      (f) => `src-server/adapters/storage-sqljs/${f}.ts`,
    ),
    "src-server/core/merkle/tree.ts",
    "src-server/core/merkle/level-buffer.ts",
    "src-server/core/merkle/zeros.ts",
    "src-shared/crypto/poseidon-wasm.ts",
  ];
  for (const f of files) h.update(f).update(readFileSync(path.join(ROOT, f)));
  const treeTables = /\b(pools|tree_chunks|tree_roots|tree_edges|indexed_leaves)\b/;
  h.update(JSON.stringify(MIGRATIONS.filter((m) => m.statements.some((sql) => treeTables.test(sql)))));
  for (const fn of Object.values(SQL_FUNCTIONS)) h.update(String(fn));
  return h.digest("hex").slice(0, 12);
}

const latestMigration = (): number => Math.max(0, ...MIGRATIONS.map((m) => m.version));

/** Applies migrations added since the pool was prepared (open + close = migrate + snapshot), on a copy swapped in by rename. */
async function upgradePrepared(dir: string, meta: Record<string, unknown>, log: (m: string) => void): Promise<void> {
  const tmp = `${dir}.upgrade-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  cpSync(dir, tmp, { recursive: true });
  log(`upgrading ${path.relative(ROOT, dir)} to migration ${latestMigration()}`);
  const db = await DurableDb.open({ dir: tmp, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, fsync: false, snapshotIntervalMs: 0 });
  await db.close();
  writeFileSync(path.join(tmp, "bench-meta.json"), JSON.stringify({ ...meta, migration: latestMigration() }));
  const old = `${dir}.old-${process.pid}`;
  renameSync(dir, old);
  renameSync(tmp, dir);
  rmSync(old, { recursive: true, force: true });
}

export interface PreparedPool {
  dir: string;
  leaves: number;
  root: string;
  /** How long building it took when it was built (from meta.json). */
  buildMs: number;
  cached: boolean;
  /** Schema version the data dir is at (derived variants are keyed by it). */
  migration: number;
}

/** Batch size used to prepare cached pools: large pages keep 1M leaves within a couple of minutes. */
const PREPARE_BATCH = 10_000;

/**
 * A data dir holding one persisted pool of `n` leaves (with leaf metadata, as
 * the indexer writes it), cached under out/bench/ by version and source hash.
 * Copy it before pointing a server at it: the server writes to its data dir.
 */
export async function preparedPool(n: number, log: (m: string) => void = () => {}): Promise<PreparedPool> {
  const base = path.join(ROOT, "out", "bench", `${BENCH_DATA_VERSION}-${sourceKey()}`);
  const dir = path.join(base, `pool-${n}`);
  const metaFile = path.join(dir, "bench-meta.json");
  if (existsSync(metaFile)) {
    const meta = JSON.parse(readFileSync(metaFile, "utf8")) as { leaves: number; root: string; buildMs: number; migration?: number };
    if ((meta.migration ?? 0) < latestMigration()) await upgradePrepared(dir, meta, log);
    return { dir, leaves: meta.leaves, root: meta.root, buildMs: meta.buildMs, cached: true, migration: latestMigration() };
  }
  mkdirSync(base, { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  log(`preparing a ${n}-leaf pool in ${path.relative(ROOT, dir)} (cached for later runs)`);
  const t = await buildPersistedPool(tmp, makeLeaves(n, 7), { batch: PREPARE_BATCH, withMeta: true, fsync: false });
  writeFileSync(
    path.join(tmp, "bench-meta.json"),
    JSON.stringify({
      leaves: n,
      root: t.root,
      buildMs: Math.round(t.openMs + t.totalMs),
      mint: BENCH_MINT,
      network: BENCH_NETWORK,
      migration: latestMigration(),
    }),
  );
  try {
    renameSync(tmp, dir);
  } catch (e) {
    // Another run finished first: use its copy.
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(metaFile)) throw e;
  }
  return { dir, leaves: n, root: t.root, buildMs: Math.round(t.openMs + t.totalMs), cached: false, migration: latestMigration() };
}

/** A private copy of a prepared data dir, for a server that will write to it. */
export function copyPool(src: string, prefix: string): string {
  const dst = tempDir(prefix);
  cpSync(src, dst, { recursive: true });
  rmSync(path.join(dst, "bench-meta.json"), { force: true });
  return dst;
}

export function dirBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) total += statSync(path.join(e.parentPath, e.name)).size;
  }
  return total;
}
