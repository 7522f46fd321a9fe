/**
 * The indexer's trees in PostgreSQL: a reloaded tree is the appended one without rehashing,
 * replicas follow append by append through the same roots, and a deposed follower's late
 * write is refused (FencedOut) without a leaf written twice.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { MerkleTree } from "../../core/merkle/tree";
import { FencedOut, StoreUnavailable } from "../../ports/store-errors";
import type { StoredPool } from "../../ports/tree-store";
import { pgStoresPerTest } from "../../../tests/support/pg-stores";
import type { PgStores } from "./open";
import { PgDatabase } from "./pool";
import type { Fence } from "../../ports/coordination";
import { leafMeta as meta, leaves } from "../../../tests/support/tree-leaves";

const MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const pg = pgStoresPerTest();
let hasher: FieldHasher;

beforeAll(async () => {
  hasher = await createPoseidonHasher();
});

/** Opens stores on a fresh database with one mainnet pool and this instance leading mainnet. */
async function leader(): Promise<{ s: PgStores; pool: StoredPool; fence: Fence }> {
  const s = await pg.open();
  const pool = await s.tree.createPool("mainnet", MINT);
  const lease = await s.coordination.lead("mainnet", 60_000);
  return { s, pool, fence: { network: "mainnet", holder: s.coordination.instanceId, epoch: lease!.epoch } };
}

/** Appends leaves first..first+count-1 to `tree` and saves the append, as the indexer does. */
async function appendSaved(s: PgStores, pool: StoredPool, tree: MerkleTree, first: number, count: number, fence: Fence): Promise<void> {
  const r = tree.append(leaves(first, count));
  if (!r.ok) throw new Error(r.error);
  await s.tree.saveAppend(pool, r.value, `cursor-${first + count}`, meta(first, count), fence);
}

function expectSameTree(a: MerkleTree, b: MerkleTree): void {
  expect(b.nextIndex).toBe(a.nextIndex);
  expect(b.root()).toEqual(a.root());
  expect(b.recentRoots()).toEqual(a.recentRoots());
  for (let level = 0; level <= a.depth; level++) {
    expect(b.levelSize(level)).toBe(a.levelSize(level));
    for (let i = 0; i < a.levelSize(level); i++) expect(b.nodeView(level, i)).toEqual(a.nodeView(level, i));
  }
}

/** Batch sizes that start and end inside, on and across the 32-node chunks of several levels. */
const BATCHES = [1, 1, 3, 27, 32, 33, 64, 1, 100, 7, 31, 2, 65];

describe("PgTreeStore", () => {
  it("reloads the appended tree node for node, with its root history, cursor and size", async () => {
    const { s, pool, fence } = await leader();
    const tree = new MerkleTree(hasher);
    let next = 0;
    for (const count of BATCHES) {
      await appendSaved(s, pool, tree, next, count, fence);
      next += count;
    }
    expect(pool.nextIndex).toBe(next);
    // A hasher that refuses to work: the stored nodes are loaded, never recomputed.
    const loaded = new MerkleTree({ ...hasher, hashPairs: () => expect.fail("loadTree hashed") } as FieldHasher);
    const [stored] = await s.tree.listPools();
    await s.tree.loadTree(stored!, loaded);
    expectSameTree(tree, loaded);
    expect(stored).toMatchObject({ nextIndex: next, cursor: `cursor-${next}` });
    expect(loaded.proof(200)).toEqual(tree.proof(200));
  });

  it("loads an empty pool as an empty tree", async () => {
    const s = await pg.open();
    const pool = await s.tree.createPool("mainnet", MINT);
    expect(await s.tree.createPool("mainnet", MINT)).toEqual(pool);
    const tree = new MerkleTree(hasher);
    await s.tree.loadTree(pool, tree);
    expect(tree.nextIndex).toBe(0);
    expect(await s.tree.appendsSince(pool, 0)).toEqual([]);
  });

  it("moves a StoredPool listed earlier to the store's size when it loads (a replica behind the leader)", async () => {
    const { s, pool, fence } = await leader();
    const replica = await pg.open({ url: pg.urlOf(s) });
    const [listed] = await replica.tree.listPools();
    const tree = new MerkleTree(hasher);
    await appendSaved(s, pool, tree, 0, 5, fence);
    const copy = new MerkleTree(hasher);
    await replica.tree.loadTree(listed!, copy);
    expect(listed).toMatchObject({ nextIndex: 5, cursor: "cursor-5" });
    expectSameTree(tree, copy);
  });

  it("lists leaf kinds and deposit amounts over a range", async () => {
    const { s, pool, fence } = await leader();
    await appendSaved(s, pool, new MerkleTree(hasher), 0, 6, fence);
    expect(await s.tree.listLeaves(pool, 1, 4)).toEqual([
      { leafIndex: 1, kind: "deposit", amount: 1001n },
      { leafIndex: 2, kind: "change", amount: null },
      { leafIndex: 3, kind: "deposit", amount: 1003n },
    ]);
    expect(await s.tree.listLeaves(pool, 4, 4)).toEqual([]);
  });

  it("hands a replica each append since its size, and re-applying them reaches every root the leader had", async () => {
    const { s, pool, fence } = await leader();
    const tree = new MerkleTree(hasher);
    await appendSaved(s, pool, tree, 0, 10, fence);
    const replica = new MerkleTree(hasher);
    const replicaPool = { ...pool };
    await s.tree.loadTree(replicaPool, replica);
    let next = 10;
    for (const count of [1, 40, 3]) {
      await appendSaved(s, pool, tree, next, count, fence);
      next += count;
    }
    const appends = await s.tree.appendsSince(replicaPool, replica.nextIndex);
    expect(appends.map((a) => [a.leaves[0]!.leafIndex, a.leaves.length, a.nextIndex])).toEqual([
      [10, 1, 11],
      [11, 40, 51],
      [51, 3, 54],
    ]);
    expect(appends[1]!.leaves[1]).toEqual({
      leafIndex: 12,
      commitment: leaves(12, 1),
      kind: "deposit",
      amount: 1012n,
      signature: meta(12, 1)[0]!.signature,
      slot: 512,
    });
    for (const a of appends) {
      const batch = new Uint8Array(a.leaves.length * 32);
      a.leaves.forEach((l, i) => batch.set(l.commitment, i * 32));
      const r = replica.append(batch);
      expect(r.ok && r.value.root).toEqual(a.root);
    }
    expectSameTree(tree, replica);
    expect(await s.tree.appendsSince(replicaPool, 54)).toEqual([]);
  });

  it("refuses a deposed follower's late append and cursor (FencedOut) and never writes a leaf twice", async () => {
    const a = await pg.open();
    const b = await pg.open({ url: pg.urlOf(a) });
    const poolA = await a.tree.createPool("mainnet", MINT);
    const leaseA = await a.coordination.lead("mainnet", 300);
    const fenceA: Fence = { network: "mainnet", holder: a.coordination.instanceId, epoch: leaseA!.epoch };
    const treeA = new MerkleTree(hasher);
    await appendSaved(a, poolA, treeA, 0, 4, fenceA);

    // A pauses past its lease; B takes over under the next epoch and goes on from the store.
    await new Promise((r) => setTimeout(r, 400));
    const leaseB = await b.coordination.lead("mainnet", 60_000);
    expect(leaseB!.epoch).toBe(leaseA!.epoch + 1);
    const fenceB: Fence = { network: "mainnet", holder: b.coordination.instanceId, epoch: leaseB!.epoch };
    const [poolB] = await b.tree.listPools();
    const treeB = new MerkleTree(hasher);
    await b.tree.loadTree(poolB!, treeB);
    await appendSaved(b, poolB!, treeB, 4, 2, fenceB);

    // A resumes with the old epoch: its append of the same leaf indexes and its cursor move are refused.
    await expect(appendSaved(a, poolA, treeA, 4, 3, fenceA)).rejects.toBeInstanceOf(FencedOut);
    await expect(a.tree.saveCursor(poolA, "cursor-late", fenceA)).rejects.toBeInstanceOf(FencedOut);
    // Nor can A take the lease back while B holds it.
    expect(await a.coordination.lead("mainnet", 60_000)).toBeNull();

    const [after] = await b.tree.listPools();
    expect(after).toMatchObject({ nextIndex: 6, cursor: "cursor-6" });
    const check = new MerkleTree(hasher);
    await b.tree.loadTree(after!, check);
    expectSameTree(treeB, check);
    expect((await b.tree.listLeaves(after!, 0, 100)).map((l) => l.leafIndex)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("refuses an append that does not start where the store's tree ends, even from the lease holder", async () => {
    const { s, pool, fence } = await leader();
    const tree = new MerkleTree(hasher);
    await appendSaved(s, pool, tree, 0, 3, fence);
    const stale = new MerkleTree(hasher);
    const stalePool = { ...pool, nextIndex: 0 };
    await expect(appendSaved(s, stalePool, stale, 0, 2, fence)).rejects.toThrow(/has 3 leaves, this append starts at 0/);
    expect((await s.tree.listPools())[0]!.nextIndex).toBe(3);
  });

  it("moves the cursor under a held lease", async () => {
    const { s, pool, fence } = await leader();
    await s.tree.saveCursor(pool, "past-failed-deposits", fence);
    expect(pool.cursor).toBe("past-failed-deposits");
    expect((await s.tree.listPools())[0]!.cursor).toBe("past-failed-deposits");
    await expect(s.tree.saveCursor(pool, "x", { ...fence, epoch: fence.epoch + 1 })).rejects.toBeInstanceOf(FencedOut);
  });

  it("does not let a follower paused mid-write hold the takeover past the idle-in-transaction timeout, and fails its write", async () => {
    const a = await pg.open();
    const b = await pg.open({ url: pg.urlOf(a) });
    const pool = await a.tree.createPool("mainnet", MINT);
    const lease = await a.coordination.lead("mainnet", 200);
    // A's write as saveAppend makes it, stalled between its fence check and its commit (a SIGSTOP, a long GC).
    const paused = new PgDatabase({ url: pg.urlOf(a), idleInTransactionMs: 300 });
    try {
      const write = paused.tx(async (q) => {
        const held = await q(
          "SELECT 1 FROM follower_leases WHERE network = $1 AND holder = $2 AND epoch = $3 AND lease_until > statement_timestamp() FOR SHARE",
          ["mainnet", a.coordination.instanceId, lease!.epoch],
        );
        expect(held).toHaveLength(1);
        await new Promise((r) => setTimeout(r, 1_500));
        await q("UPDATE pools SET cursor = 'late' WHERE id = $1", [pool.id]);
      });
      const outcome = write.then(
        () => "committed",
        (e: unknown) => e,
      );
      await new Promise((r) => setTimeout(r, 250));
      const started = Date.now();
      const taken = await b.coordination.lead("mainnet", 60_000);
      expect(taken!.epoch).toBe(lease!.epoch + 1);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(await outcome).toBeInstanceOf(StoreUnavailable);
      expect((await b.tree.listPools())[0]!.cursor).toBeNull();
    } finally {
      await paused.close();
    }
  });
});
