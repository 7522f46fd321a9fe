import type { Network } from "../../../src-shared/networks";
import type { AppendResult, MerkleTree } from "../../core/merkle/tree";
import type { IndexedLeaf, StoredPool, TreeStore } from "../../ports/tree-store";
import type { DurableDb, SqlStatement, SqlValue } from "./durable-db";

const CHUNK_NODES = 64;
const NODE = 32;
const KEEP_ROOTS = 100;

interface PoolRow {
  id: number;
  network: Network;
  mint: string;
  next_index: number;
  cursor: string | null;
}

export class SqlTreeStore implements TreeStore {
  constructor(
    private readonly db: DurableDb,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  listPools(): StoredPool[] {
    return this.db
      .all<PoolRow>("SELECT id, network, mint, next_index, cursor FROM pools ORDER BY id")
      .map((r) => ({ id: r.id, network: r.network, mint: r.mint, nextIndex: r.next_index, cursor: r.cursor }));
  }

  async createPool(network: Network, mint: string): Promise<StoredPool> {
    const existing = this.db.get<PoolRow>("SELECT id, network, mint, next_index, cursor FROM pools WHERE network = ? AND mint = ?", [network, mint]);
    if (existing) return { id: existing.id, network, mint, nextIndex: existing.next_index, cursor: existing.cursor };
    await this.db.write([
      { sql: "INSERT OR IGNORE INTO pools (network, mint, next_index, created_at) VALUES (?, ?, 0, ?)", params: [network, mint, this.now()] },
    ]);
    const row = this.db.get<PoolRow>("SELECT id, network, mint, next_index, cursor FROM pools WHERE network = ? AND mint = ?", [network, mint]);
    if (!row) throw new Error("pool insert vanished");
    return { id: row.id, network, mint, nextIndex: row.next_index, cursor: row.cursor };
  }

  loadTree(pool: StoredPool, tree: MerkleTree): void {
    const sizes: number[] = [];
    for (let level = 0, n = pool.nextIndex; level <= tree.depth; level++, n = Math.ceil(n / 2)) sizes.push(n);
    this.db.iterate("SELECT level, chunk, data FROM tree_chunks WHERE pool_id = ? ORDER BY level, chunk", [pool.id], (row) => {
      const [level, chunk, data] = row as [number, number, Uint8Array];
      const start = chunk * CHUNK_NODES;
      // Only nodes below the persisted next index are real; anything past it is not trusted.
      const count = Math.min(data.length / NODE, sizes[level]! - start);
      if (count > 0) tree.loadLevel(level, start, data.subarray(0, count * NODE));
    });
    const roots: Uint8Array[] = [];
    this.db.iterate("SELECT root FROM tree_roots WHERE pool_id = ? ORDER BY seq", [pool.id], (row) => {
      roots.push(row[0] as Uint8Array);
    });
    tree.loadRoots(roots.slice(-KEEP_ROOTS));
    if (tree.nextIndex !== pool.nextIndex) {
      throw new Error(`pool ${pool.network}/${pool.mint}: stored nodes cover ${tree.nextIndex} leaves, expected ${pool.nextIndex}`);
    }
  }

  async saveCursor(pool: StoredPool, cursor: string | null): Promise<void> {
    await this.db.write([{ sql: "UPDATE pools SET cursor = ? WHERE id = ?", params: [cursor, pool.id] }]);
    pool.cursor = cursor;
  }

  async saveAppend(pool: StoredPool, append: AppendResult, cursor: string | null, leaves: IndexedLeaf[]): Promise<void> {
    const now = this.now();
    const stmts: SqlStatement[] = [];
    for (const change of append.changes) this.chunkWrites(pool.id, change.level, change.start, change.bytes, stmts);
    const nextIndex = append.firstIndex + append.changes[0]!.bytes.length / NODE;
    const seqRow = this.db.get<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM tree_roots WHERE pool_id = ?", [pool.id]);
    const seq = (seqRow?.seq ?? 0) + 1;
    stmts.push(
      { sql: "UPDATE pools SET next_index = ?, root = ?, cursor = ? WHERE id = ?", params: [nextIndex, append.root, cursor, pool.id] },
      { sql: "INSERT INTO tree_roots (pool_id, seq, root, next_index, created_at) VALUES (?, ?, ?, ?, ?)", params: [pool.id, seq, append.root, nextIndex, now] },
      { sql: "DELETE FROM tree_roots WHERE pool_id = ? AND seq <= ?", params: [pool.id, seq - KEEP_ROOTS] },
    );
    for (const leaf of leaves) {
      stmts.push({
        sql: "INSERT INTO indexed_leaves (pool_id, leaf_index, signature, slot, indexed_at) VALUES (?, ?, ?, ?, ?)",
        params: [pool.id, leaf.leafIndex, leaf.signature, leaf.slot, now],
      });
    }
    await this.db.write(stmts);
    pool.nextIndex = nextIndex;
    pool.cursor = cursor;
  }

  /** Appends touch one contiguous run per level, so each chunk gets one blob_put. */
  private chunkWrites(poolId: number, level: number, start: number, bytes: Uint8Array, out: SqlStatement[]): void {
    const count = bytes.length / NODE;
    let i = 0;
    while (i < count) {
      const index = start + i;
      const chunk = Math.floor(index / CHUNK_NODES);
      const inChunk = Math.min(count - i, (chunk + 1) * CHUNK_NODES - index);
      const offset = (index - chunk * CHUNK_NODES) * NODE;
      const slice = bytes.slice(i * NODE, (i + inChunk) * NODE);
      const params: SqlValue[] = [poolId, level, chunk, offset, slice];
      out.push({
        sql: "INSERT INTO tree_chunks (pool_id, level, chunk, data) VALUES (?1, ?2, ?3, blob_put(NULL, ?4, ?5)) ON CONFLICT (pool_id, level, chunk) DO UPDATE SET data = blob_put(data, ?4, ?5)",
        params,
      });
      i += inChunk;
    }
  }
}
