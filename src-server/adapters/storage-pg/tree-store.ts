import { bytesEqual } from "../../../src-shared/encoding/bytes";
import type { Network } from "../../../src-shared/networks";
import { ROOT_HISTORY_SIZE, type AppendResult, type MerkleTree } from "../../core/merkle/tree";
import { FencedOut } from "../../ports/store-errors";
import type { TreeStore, IndexedLeaf, LeafKind, StoredPool } from "../../ports/tree-store";
import { bytes, type PgDatabase, type TxQuery } from "./pool";
import type { Fence } from "../../ports/coordination";
import type { IndexedLeaf as StoredAppendLeaf, StoredAppend } from "../../ports/tree-store";
import { toStoredPool, type PoolRow } from "../storage-rows/tree-rows";

const NODE = 32;
/** Nodes per tree_nodes row (migration 1). */
export const CHUNK = 32;
/** As many roots as the tree accepts: a restarted or replica relay accepts the same roots the leader does. */
const KEEP_ROOTS = ROOT_HISTORY_SIZE;
/** tree_nodes rows read per query while loading a level (2 MiB of nodes). */
const LOAD_PAGE_CHUNKS = 2048;

/** Nodes of `level` in a tree of `n` leaves (the incremental tree keeps the right edge's partial nodes too). */
const levelSize = (n: number, level: number): number => Math.ceil(n / 2 ** level);

/**
 * The indexer's trees in PostgreSQL. One instance per network (the lease holder) writes; every
 * write carries its fence and re-checks it inside the write's transaction, so a deposed
 * follower's late write throws FencedOut instead of forking the tree. Others read: loadTree at
 * start, then appendsSince to follow.
 */
export class PgTreeStore implements TreeStore {
  constructor(
    private readonly db: PgDatabase,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  async listPools(): Promise<StoredPool[]> {
    return (await this.db.query<PoolRow>("SELECT id, network, mint, next_index, cursor FROM pools ORDER BY id")).map(toStoredPool);
  }

  /** Idempotent across instances: the one that loses the insert reads the winner's row. */
  async createPool(network: Network, mint: string): Promise<StoredPool> {
    await this.db.query("INSERT INTO pools (network, mint, next_index, created_at) VALUES ($1, $2, 0, $3) ON CONFLICT (network, mint) DO NOTHING", [
      network,
      mint,
      this.now(),
    ]);
    const rows = await this.db.query<PoolRow>("SELECT id, network, mint, next_index, cursor FROM pools WHERE network = $1 AND mint = $2", [network, mint]);
    if (!rows[0]) throw new Error("pool insert vanished");
    return toStoredPool(rows[0]);
  }

  /**
   * Fills an empty tree with the pool as the store has it now (one snapshot: nodes, roots and
   * size agree even while the leader appends), and moves `pool` to that size and cursor: on a
   * replica the store is usually ahead of the StoredPool it listed earlier.
   */
  async loadTree(pool: StoredPool, tree: MerkleTree): Promise<void> {
    const at = await this.db.tx(async (q) => {
      const [row] = await q<PoolRow & { root: Uint8Array | null }>("SELECT id, network, mint, next_index, cursor, root FROM pools WHERE id = $1", [pool.id]);
      if (!row) throw new Error(`pool ${pool.network}/${pool.mint}: no such pool in the store`);
      const n = row.next_index;
      for (let level = 0; level <= tree.depth && n > 0; level++) await loadLevel(q, pool, tree, level, levelSize(n, level));
      const roots = await q<{ root: Uint8Array }>("SELECT root FROM tree_roots WHERE pool_id = $1 ORDER BY seq DESC LIMIT $2", [pool.id, KEEP_ROOTS]);
      tree.loadRoots(roots.reverse().map((r) => bytes(r.root)));
      if (tree.nextIndex !== n) throw new Error(`pool ${pool.network}/${pool.mint}: stored nodes cover ${tree.nextIndex} leaves, expected ${n}`);
      if (n > 0 && (!row.root || !bytesEqual(tree.root(), row.root))) {
        throw new Error(`pool ${pool.network}/${pool.mint}: the stored nodes do not hash to the stored root at ${n} leaves`);
      }
      return row;
    }, "read only snapshot");
    pool.nextIndex = at.next_index;
    pool.cursor = at.cursor;
  }

  /**
   * Persists one append atomically, if `fence` still holds the network's lease and the store's
   * tree is where the append starts; otherwise throws FencedOut and writes nothing.
   */
  async saveAppend(pool: StoredPool, append: AppendResult, cursor: string | null, leaves: IndexedLeaf[], fence: Fence): Promise<void> {
    const level0 = append.changes[0]!;
    const count = level0.bytes.length / NODE;
    const nextIndex = append.firstIndex + count;
    const now = this.now();
    await this.db.tx(async (q) => {
      await checkFence(q, fence);
      const [row] = await q<{ next_index: number }>("SELECT next_index FROM pools WHERE id = $1 FOR UPDATE", [pool.id]);
      if (!row) throw new Error(`pool ${pool.network}/${pool.mint}: no such pool in the store`);
      if (row.next_index !== append.firstIndex) {
        throw new FencedOut(`pool ${pool.network}/${pool.mint}: the store's tree has ${row.next_index} leaves, this append starts at ${append.firstIndex}`);
      }
      await writeNodes(q, pool.id, append);
      const meta = new Map(leaves.map((l) => [l.leafIndex, l]));
      const indexes = Array.from({ length: count }, (_, i) => append.firstIndex + i);
      const m = indexes.map((i) => meta.get(i));
      await q(
        `INSERT INTO tree_leaves (pool_id, leaf_index, commitment, kind, amount, signature, slot, indexed_at)
         SELECT $1, u.leaf_index, substring($3::bytea FROM ((u.leaf_index - $2::bigint) * 32 + 1)::integer FOR 32), u.kind, u.amount, u.signature, u.slot,
                CASE WHEN u.kind IS NULL THEN NULL ELSE $8::bigint END
         FROM unnest($9::bigint[], $4::text[], $5::numeric[], $6::text[], $7::bigint[]) AS u(leaf_index, kind, amount, signature, slot)`,
        [
          pool.id,
          append.firstIndex,
          level0.bytes,
          m.map((l) => l?.kind ?? null),
          m.map((l) => (l && l.kind === "deposit" && l.amount !== null ? l.amount.toString() : null)),
          m.map((l) => l?.signature ?? null),
          m.map((l) => l?.slot ?? null),
          now,
          indexes,
        ],
      );
      const [seq] = await q<{ seq: number }>(
        `INSERT INTO tree_roots (pool_id, seq, root, next_index, created_at)
         SELECT $1, coalesce(max(seq), 0) + 1, $2, $3, $4 FROM tree_roots WHERE pool_id = $1 RETURNING seq`,
        [pool.id, append.root, nextIndex, now],
      );
      await q("DELETE FROM tree_roots WHERE pool_id = $1 AND seq <= $2", [pool.id, seq!.seq - KEEP_ROOTS]);
      await q("UPDATE pools SET next_index = $2, root = $3, cursor = $4 WHERE id = $1", [pool.id, nextIndex, append.root, cursor]);
    });
    pool.nextIndex = nextIndex;
    pool.cursor = cursor;
  }

  async saveCursor(pool: StoredPool, cursor: string | null, fence: Fence): Promise<void> {
    await this.db.tx(async (q) => {
      await checkFence(q, fence);
      await q("UPDATE pools SET cursor = $2 WHERE id = $1", [pool.id, cursor]);
    });
    pool.cursor = cursor;
  }

  async listLeaves(pool: StoredPool, from: number, to: number): Promise<LeafKind[]> {
    if (to <= from) return [];
    const rows = await this.db.query<{ leaf_index: number; kind: "deposit" | "change"; amount: string | null }>(
      `SELECT leaf_index, kind, amount::text AS amount FROM tree_leaves
       WHERE pool_id = $1 AND leaf_index >= $2 AND leaf_index < $3 AND kind IS NOT NULL ORDER BY leaf_index`,
      [pool.id, from, to],
    );
    return rows.map((r) => ({ leafIndex: r.leaf_index, kind: r.kind, amount: r.kind === "deposit" && r.amount !== null ? BigInt(r.amount) : null }));
  }

  /**
   * The appends saved after the tree had `nextIndex` leaves, oldest first, each with its root and
   * leaves: a replica re-applies them one by one and compares roots. Only the newest
   * ROOT_HISTORY_SIZE roots are kept, so a replica further behind gets its first append widened
   * back to `nextIndex` (the roots it misses are older than any the tree would still accept).
   */
  async appendsSince(pool: StoredPool, nextIndex: number): Promise<StoredAppend[]> {
    return this.db.tx(async (q) => {
      const roots = await q<{ root: Uint8Array; next_index: number }>(
        "SELECT root, next_index FROM tree_roots WHERE pool_id = $1 AND next_index > $2 ORDER BY seq LIMIT $3",
        [pool.id, nextIndex, KEEP_ROOTS],
      );
      if (roots.length === 0) return [];
      const upTo = roots[roots.length - 1]!.next_index;
      const leaves = await q<{
        leaf_index: number;
        commitment: Uint8Array;
        kind: "deposit" | "change" | null;
        amount: string | null;
        signature: string | null;
        slot: number | null;
      }>(
        `SELECT leaf_index, commitment, kind, amount::text AS amount, signature, slot FROM tree_leaves
         WHERE pool_id = $1 AND leaf_index >= $2 AND leaf_index < $3 ORDER BY leaf_index`,
        [pool.id, nextIndex, upTo],
      );
      if (leaves.length !== upTo - nextIndex || (leaves[0] && leaves[0].leaf_index !== nextIndex)) {
        throw new Error(`pool ${pool.network}/${pool.mint}: the store has ${leaves.length} leaves from ${nextIndex} up to ${upTo}`);
      }
      const out: StoredAppend[] = [];
      let i = 0;
      for (const r of roots) {
        const group: StoredAppendLeaf[] = [];
        for (; i < leaves.length && leaves[i]!.leaf_index < r.next_index; i++) {
          const l = leaves[i]!;
          const kind = l.kind ?? "deposit";
          group.push({
            leafIndex: l.leaf_index,
            commitment: bytes(l.commitment),
            kind,
            amount: kind === "deposit" && l.amount !== null ? BigInt(l.amount) : null,
            signature: l.signature ?? "",
            slot: l.slot ?? 0,
          });
        }
        out.push({ nextIndex: r.next_index, root: bytes(r.root), leaves: group });
      }
      return out;
    }, "read only snapshot");
  }
}

/**
 * The write goes on only while `fence` holds the lease. FOR SHARE keeps the lease row as it is
 * until this transaction ends: a takeover (an UPDATE of that row) waits for the write to commit,
 * and a write that starts after a takeover finds the new holder or epoch and is refused.
 */
async function checkFence(q: TxQuery, fence: Fence): Promise<void> {
  const rows = await q("SELECT 1 FROM follower_leases WHERE network = $1 AND holder = $2 AND epoch = $3 AND lease_until > statement_timestamp() FOR SHARE", [
    fence.network,
    fence.holder,
    fence.epoch,
  ]);
  if (rows.length === 0) throw new FencedOut(`${fence.network}: ${fence.holder} no longer follows the chain under epoch ${fence.epoch}`);
}

/**
 * Each level's changed nodes, split at chunk boundaries. A chunk that already holds nodes is
 * patched in place (overlay); the rest start new rows. Every level only grows to the right, so a
 * new chunk is always written from its first node.
 */
async function writeNodes(q: TxQuery, poolId: number, append: AppendResult): Promise<void> {
  const patch = { levels: [] as number[], chunks: [] as number[], offsets: [] as number[], data: [] as Uint8Array[] };
  const fresh = { levels: [] as number[], chunks: [] as number[], data: [] as Uint8Array[] };
  for (const change of append.changes) {
    const count = change.bytes.length / NODE;
    const before = levelSize(append.firstIndex, change.level);
    for (let i = 0; i < count;) {
      const index = change.start + i;
      const chunk = Math.floor(index / CHUNK);
      const take = Math.min(count - i, (chunk + 1) * CHUNK - index);
      const piece = change.bytes.subarray(i * NODE, (i + take) * NODE);
      if (chunk * CHUNK < before) {
        patch.levels.push(change.level);
        patch.chunks.push(chunk);
        patch.offsets.push((index - chunk * CHUNK) * NODE);
        patch.data.push(piece);
      } else {
        if (index !== chunk * CHUNK) throw new Error(`tree level ${change.level}: a new chunk ${chunk} would start at node ${index}`);
        fresh.levels.push(change.level);
        fresh.chunks.push(chunk);
        fresh.data.push(piece);
      }
      i += take;
    }
  }
  if (patch.levels.length > 0) {
    const rows = await q(
      `UPDATE tree_nodes t SET data = overlay(t.data PLACING u.data FROM u.off + 1)
       FROM unnest($2::smallint[], $3::integer[], $4::integer[], $5::bytea[]) AS u(level, chunk, off, data)
       WHERE t.pool_id = $1 AND t.level = u.level AND t.chunk = u.chunk RETURNING t.chunk`,
      [poolId, patch.levels, patch.chunks, patch.offsets, patch.data],
    );
    if (rows.length !== patch.levels.length) throw new Error(`tree nodes: ${patch.levels.length - rows.length} chunks to patch are missing from the store`);
  }
  if (fresh.levels.length > 0) {
    await q(
      `INSERT INTO tree_nodes (pool_id, level, chunk, data)
       SELECT $1, u.level, u.chunk, u.data FROM unnest($2::smallint[], $3::integer[], $4::bytea[]) AS u(level, chunk, data)`,
      [poolId, fresh.levels, fresh.chunks, fresh.data],
    );
  }
}

/** Loads `count` nodes of a level, last page first so the level's buffer is sized once. */
async function loadLevel(q: TxQuery, pool: StoredPool, tree: MerkleTree, level: number, count: number): Promise<void> {
  const chunks = Math.ceil(count / CHUNK);
  for (let end = chunks; end > 0;) {
    const start = Math.max(0, end - LOAD_PAGE_CHUNKS);
    const rows = await q<{ chunk: number; data: Uint8Array }>(
      "SELECT chunk, data FROM tree_nodes WHERE pool_id = $1 AND level = $2 AND chunk >= $3 AND chunk < $4 ORDER BY chunk DESC",
      [pool.id, level, start, end],
    );
    if (rows.length !== end - start) throw new Error(`pool ${pool.network}/${pool.mint}: level ${level} has ${rows.length} of chunks ${start}..${end - 1}`);
    for (const r of rows) {
      const nodes = Math.min(CHUNK, count - r.chunk * CHUNK);
      if (r.data.length < nodes * NODE) throw new Error(`pool ${pool.network}/${pool.mint}: level ${level} chunk ${r.chunk} holds fewer than ${nodes} nodes`);
      tree.loadLevel(level, r.chunk * CHUNK, r.data.subarray(0, nodes * NODE));
    }
    end = start;
  }
}
