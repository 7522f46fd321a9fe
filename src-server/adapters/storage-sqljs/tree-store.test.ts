/**
 * The indexer's trees in page files (migration 13): what is reloaded equals
 * what was appended, bytes past the committed prefix are never trusted, and a
 * store written in the old row-per-leaf layout migrates to the same tree.
 */
import { closeSync, constants, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { toHex } from "../../../src-shared/encoding/bytes";
import { MerkleTree } from "../../core/merkle/tree";
import type { StoredPool } from "../../ports/tree-store";
import { SqlConsoleStore } from "./console-store";
import { DurableDb, type SqlStatement } from "./durable-db";
import { PAGES_DIR } from "./page-files";
import { MIGRATIONS } from "./schema-migrations";
import { SqlTreeStore } from "./tree-store";
import { TEST_FENCE } from "../../../tests/support/fence";
import { storeDirPerTest } from "../../../tests/support/store-dir";
import { leafMeta as meta, leaves } from "../../../tests/support/tree-leaves";

const MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const T0 = 1_780_000_000;
let hasher: FieldHasher;

beforeAll(async () => {
  hasher = await createPoseidonHasher();
});
const { dir, open } = storeDirPerTest("tree-store-");

/** A fresh store with one mainnet pool. */
async function openPool(): Promise<{ db: DurableDb; store: SqlTreeStore; pool: StoredPool }> {
  const db = await open();
  const store = new SqlTreeStore(db, () => T0);
  return { db, store, pool: await store.createPool("mainnet", MINT) };
}

/** Appends leaves first..first+count-1 to `tree` and saves the append, as the indexer does. */
async function appendSaved(store: SqlTreeStore, pool: StoredPool, tree: MerkleTree, first: number, count: number): Promise<void> {
  const r = tree.append(leaves(first, count));
  if (!r.ok) throw new Error(r.error);
  await store.saveAppend(pool, r.value, String(first + count), meta(first, count), TEST_FENCE);
}

async function reload(db: DurableDb): Promise<MerkleTree> {
  const store = new SqlTreeStore(db);
  const [pool] = await store.listPools();
  const tree = new MerkleTree(hasher);
  await store.loadTree(pool!, tree);
  return tree;
}

function sameTree(a: MerkleTree, b: MerkleTree): void {
  expect(b.nextIndex).toBe(a.nextIndex);
  expect(toHex(b.root())).toBe(toHex(a.root()));
  for (const i of [0, a.nextIndex - 1, a.nextIndex >> 1]) {
    if (i < 0 || i >= a.nextIndex) continue;
    const pa = a.proof(i);
    const pb = b.proof(i);
    if (!pa.ok || !pb.ok) throw new Error("proof");
    expect(pb.value.path.map(toHex)).toEqual(pa.value.path.map(toHex));
  }
  expect(b.recentRoots().map(toHex)).toEqual(a.recentRoots().map(toHex));
}

describe("SqlTreeStore on page files", () => {
  it("reloads the same nodes, roots and leaf metadata after every append, whatever the batch sizes", async () => {
    let db = await open();
    const store = new SqlTreeStore(db, () => T0);
    const pool = await store.createPool("mainnet", MINT);
    const tree = new MerkleTree(hasher);
    for (const count of [1, 2, 5, 64, 1, 130, 7, 300]) {
      const first = tree.nextIndex;
      const r = tree.append(leaves(first, count));
      if (!r.ok) throw new Error(r.error);
      await store.saveAppend(pool, r.value, String(first + count), meta(first, count), TEST_FENCE);
      sameTree(tree, await reload(db));
    }
    await db.close();
    db = await open();
    try {
      sameTree(tree, await reload(db));
      const console = new SqlConsoleStore(db);
      expect(await console.leaf("mainnet", MINT, 509)).toMatchObject({ signature: "sig509".padEnd(88, "x"), slot: 1009, indexedAt: T0 * 1000 });
      expect(await console.leaf("mainnet", MINT, tree.nextIndex)).toBeNull();
      // Deposits only: a change leaf is a withdrawal's (protocol v3).
      const deposits = meta(0, tree.nextIndex).filter((m) => m.kind === "deposit").length;
      expect(await console.depositBuckets("mainnet", MINT, (T0 - 10) * 1000, 60_000)).toEqual([{ at: Math.floor(T0 / 60) * 60 * 1000, count: deposits }]);
      expect(await console.depositBuckets("mainnet", MINT, (T0 + 1) * 1000, 60_000)).toEqual([]);
      // Protocol v3: each leaf's kind, and a deposit's amount (a change leaf's value is private), in the kinds page file (migration 17).
      expect(db.get("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'indexed_leaves'")).toEqual({ n: 0 });
      const kinds = meta(0, tree.nextIndex).map((m) => ({ leafIndex: m.leafIndex, kind: m.kind, amount: m.amount }));
      for (const m of kinds.slice(0, 8)) {
        expect(await console.leaf("mainnet", MINT, m.leafIndex)).toMatchObject({ kind: m.kind, amount: m.amount?.toString() ?? null });
      }
      // get_leaves reads the same records back, any range of them.
      const reopened = new SqlTreeStore(db, () => T0);
      expect(await reopened.listLeaves(pool, 0, tree.nextIndex)).toEqual(kinds);
      expect(await reopened.listLeaves(pool, 100, 137)).toEqual(kinds.slice(100, 137));
      expect(await reopened.listLeaves(pool, tree.nextIndex - 2, tree.nextIndex + 50)).toEqual(kinds.slice(-2));
      expect(await reopened.listLeaves(pool, 5, 5)).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it("ignores page-file bytes past the committed leaves, as an append killed before its journal fsync leaves them", async () => {
    const { db, store, pool } = await openPool();
    const tree = new MerkleTree(hasher);
    await appendSaved(store, pool, tree, 0, 37);
    await db.close();
    // Garbage where the next nodes of every level would go, and over whole later records.
    for (let level = 0; level <= 6; level++) {
      const fd = openSync(path.join(dir(), PAGES_DIR, `tree-${pool.id}-${level}`), constants.O_RDWR | constants.O_CREAT, 0o600);
      writeSync(fd, new Uint8Array(32 * 4).fill(0xee), 0, 128, Math.floor(37 / 2 ** level) * 32);
      closeSync(fd);
    }
    const fd = openSync(path.join(dir(), PAGES_DIR, `leaves-${pool.id}`), "r+");
    writeSync(fd, new Uint8Array(104).fill(3), 0, 104, 37 * 104);
    closeSync(fd);
    const again = await open();
    try {
      sameTree(tree, await reload(again));
      expect(await new SqlConsoleStore(again).leaf("mainnet", MINT, 37)).toBeNull();
      // And the next append continues from the committed state.
      const tree2 = await reload(again);
      const store2 = new SqlTreeStore(again, () => T0);
      const r2 = tree2.append(leaves(37, 3));
      const r1 = tree.append(leaves(37, 3));
      if (!r2.ok || !r1.ok) throw new Error("append");
      await store2.saveAppend((await store2.listPools())[0]!, r2.value, "40", meta(37, 3), TEST_FENCE);
      sameTree(tree, await reload(again));
    } finally {
      await again.close();
    }
  });

  it("keeps an append whose page files could not be written: acknowledged, no snapshot drops it, and the next start writes the pages from the journal", async () => {
    const { db, store, pool } = await openPool();
    // A directory where a page file should be: every write to it fails.
    mkdirSync(path.join(dir(), PAGES_DIR, `tree-${pool.id}-0`));
    const tree = new MerkleTree(hasher);
    await appendSaved(store, pool, tree, 0, 10);
    expect(db.failure?.message).toMatch(/page files/);
    await expect(db.compact()).rejects.toThrow(/page files/);
    await db.close();
    rmSync(path.join(dir(), PAGES_DIR, `tree-${pool.id}-0`), { recursive: true });
    const again = await open();
    try {
      sameTree(tree, await reload(again));
      expect((await new SqlConsoleStore(again).leaf("mainnet", MINT, 9))?.signature).toBe("sig9".padEnd(88, "x"));
    } finally {
      await again.close();
    }
  });

  it("migration 13 moves a row-per-leaf store into page files with the same tree, leaf metadata and buckets", async () => {
    const tree = new MerkleTree(hasher);
    const n = 333;
    const r = tree.append(leaves(0, n));
    if (!r.ok) throw new Error(r.error);
    const old = await open(MIGRATIONS.filter((m) => m.version <= 11));
    await old.write([
      {
        sql: "INSERT INTO pools (id, network, mint, next_index, root, cursor, created_at) VALUES (1, 'mainnet', ?, ?, ?, 'c', 1)",
        params: [MINT, n, tree.root()],
      },
      { sql: "INSERT INTO tree_roots (pool_id, seq, root, next_index, created_at) VALUES (1, 1, ?, ?, 1)", params: [tree.root(), n] },
      ...oldChunkRows(r.value.changes),
      ...meta(0, n).map((m) => ({
        sql: "INSERT INTO indexed_leaves (pool_id, leaf_index, signature, slot, indexed_at) VALUES (1, ?, ?, ?, ?)",
        params: [m.leafIndex, m.signature, m.slot, T0 + (m.leafIndex < 100 ? 0 : 3600)],
      })),
    ]);
    await old.close();
    const v2 = await open(MIGRATIONS.filter((m) => m.version <= 14));
    expect(v2.get("SELECT COUNT(*) AS n FROM sqlite_master WHERE name IN ('tree_chunks', 'indexed_leaves')")).toEqual({ n: 0 });
    await v2.close();
    const db = await open();
    try {
      const loaded = new MerkleTree(hasher);
      const pool: StoredPool = (await new SqlTreeStore(db).listPools())[0]!;
      await new SqlTreeStore(db).loadTree(pool, loaded);
      expect(loaded.nextIndex).toBe(n);
      expect(toHex(loaded.root())).toBe(toHex(tree.root()));
      const console = new SqlConsoleStore(db);
      expect(await console.leaf("mainnet", MINT, 200)).toMatchObject({ signature: "sig200".padEnd(88, "x"), slot: 700, indexedAt: (T0 + 3600) * 1000 });
      expect(await console.depositBuckets("mainnet", MINT, 0, 3_600_000)).toEqual([
        { at: Math.floor(T0 / 3600) * 3600 * 1000, count: 100 },
        { at: (Math.floor(T0 / 3600) + 1) * 3600 * 1000, count: n - 100 },
      ]);
      // Migration 15 (protocol v3): every leaf indexed before it is a deposit; a solana pool's amounts are not in the store.
      expect(await new SqlTreeStore(db).listLeaves(pool, 0, n + 5)).toEqual(
        Array.from({ length: n }, (_, i) => ({ leafIndex: i, kind: "deposit", amount: null })),
      );
    } finally {
      await db.close();
    }
  });
});

/** The layout before migration 13: nodes in rows of 64 per level, edited with blob_put. */
function oldChunkRows(changes: { level: number; start: number; bytes: Uint8Array }[]): SqlStatement[] {
  const out: SqlStatement[] = [];
  for (const c of changes) {
    const count = c.bytes.length / 32;
    for (let i = 0; i < count;) {
      const index = c.start + i;
      const chunk = Math.floor(index / 64);
      const inChunk = Math.min(count - i, (chunk + 1) * 64 - index);
      out.push({
        sql: "INSERT INTO tree_chunks (pool_id, level, chunk, data) VALUES (1, ?1, ?2, blob_put(NULL, ?3, ?4)) ON CONFLICT (pool_id, level, chunk) DO UPDATE SET data = blob_put(data, ?3, ?4)",
        params: [c.level, chunk, (index - chunk * 64) * 32, c.bytes.slice(i * 32, (i + inChunk) * 32)],
      });
      i += inChunk;
    }
  }
  return out;
}
