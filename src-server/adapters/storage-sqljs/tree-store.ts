import type { Network } from "../../../src-shared/networks";
import { ROOT_HISTORY_SIZE, type AppendResult, type MerkleTree } from "../../core/merkle/tree";
import type { Fence } from "../../ports/coordination";
import type { IndexedLeaf, LeafKind, StoredAppend, StoredPool, TreeStore } from "../../ports/tree-store";
import type { DurableDb, SqlStatement } from "./durable-db";
import {
  decodeKindRecord,
  encodeKindRecord,
  encodeLeafRecord,
  KIND_RECORD,
  kindPage,
  LEAF_RECORD,
  leafPage,
  NODE,
  readKinds,
  TIME_BYTES,
  timePage,
  treePage,
} from "./leaf-pages";
import { toStoredPool, type PoolRow } from "../storage-rows/tree-rows";

/** As many roots as the tree accepts: a restarted relay accepts the same roots it did before (issue 25: 1,000). */
const KEEP_ROOTS = ROOT_HISTORY_SIZE;
/** Bytes read per call while loading a level (a 1M-leaf level 0 is 32 MiB). */
const LOAD_CHUNK = 1 << 20;
const PAGE_PUT = "SELECT page_put(?, ?, ?)";

export class SqlTreeStore implements TreeStore {
  constructor(
    private readonly db: DurableDb,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  async listPools(): Promise<StoredPool[]> {
    return this.db.all<PoolRow>("SELECT id, network, mint, next_index, cursor FROM pools ORDER BY id").map(toStoredPool);
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

  /**
   * Complete nodes come from the page files, the right edge's partial nodes
   * from tree_edges; bytes past the committed prefix are never read.
   */
  async loadTree(pool: StoredPool, tree: MerkleTree): Promise<void> {
    const n = pool.nextIndex;
    const pages = this.db.pages;
    const chunk = new Uint8Array(LOAD_CHUNK);
    for (let level = 0; level <= tree.depth; level++) {
      const complete = Math.floor(n / 2 ** level);
      // Last chunk first: the level's buffer is sized once instead of doubling as it fills.
      for (let end = complete * NODE; end > 0;) {
        const start = Math.max(0, (Math.ceil(end / LOAD_CHUNK) - 1) * LOAD_CHUNK);
        const want = chunk.subarray(0, end - start);
        if (pages.readInto(treePage(pool.id, level), start, want) !== want.length) {
          throw new Error(`pool ${pool.network}/${pool.mint}: page file ${treePage(pool.id, level)} is shorter than its ${complete} committed nodes`);
        }
        tree.loadLevel(level, start / NODE, want);
        end = start;
      }
    }
    const edges = new Map<number, Uint8Array>();
    this.db.iterate("SELECT level, node FROM tree_edges WHERE pool_id = ?", [pool.id], (row) => {
      edges.set(row[0] as number, row[1] as Uint8Array);
    });
    for (let level = 1; level <= tree.depth; level++) {
      if (n % 2 ** level === 0 || n === 0) continue;
      const node = edges.get(level);
      if (!node || node.length !== NODE) throw new Error(`pool ${pool.network}/${pool.mint}: no edge node at level ${level} for ${n} leaves`);
      tree.loadLevel(level, Math.floor(n / 2 ** level), node);
    }
    const roots: Uint8Array[] = [];
    this.db.iterate("SELECT root FROM tree_roots WHERE pool_id = ? ORDER BY seq", [pool.id], (row) => {
      roots.push(row[0] as Uint8Array);
    });
    tree.loadRoots(roots.slice(-KEEP_ROOTS));
    if (tree.nextIndex !== n) {
      throw new Error(`pool ${pool.network}/${pool.mint}: stored nodes cover ${tree.nextIndex} leaves, expected ${n}`);
    }
  }

  /** One process owns the data dir: its fence always holds. */
  async saveCursor(pool: StoredPool, cursor: string | null, _fence: Fence): Promise<void> {
    await this.db.write([{ sql: "UPDATE pools SET cursor = ? WHERE id = ?", params: [cursor, pool.id] }]);
    pool.cursor = cursor;
  }

  /** This process follows every chain it serves: there is no leader to catch up with. */
  async appendsSince(_pool: StoredPool, _nextIndex: number): Promise<StoredAppend[]> {
    return [];
  }

  async listLeaves(pool: StoredPool, from: number, to: number): Promise<LeafKind[]> {
    const out: LeafKind[] = [];
    // Only the committed prefix of the kinds page file is trusted (see PageFiles).
    const committed = this.db.get<{ next_index: number }>("SELECT next_index FROM pools WHERE id = ?", [pool.id])?.next_index ?? 0;
    const start = Math.max(0, from);
    const end = Math.min(to, committed);
    if (end <= start) return out;
    const view = readKinds(this.db.pages, pool.id, start, end);
    for (let i = start; i < end; i++) {
      const rec = decodeKindRecord(view, (i - start) * KIND_RECORD);
      if (rec) out.push({ leafIndex: i, ...rec });
    }
    return out;
  }

  async saveAppend(pool: StoredPool, append: AppendResult, cursor: string | null, leaves: IndexedLeaf[], _fence: Fence): Promise<void> {
    const now = this.now();
    const stmts: SqlStatement[] = [];
    const nextIndex = append.firstIndex + append.changes[0]!.bytes.length / NODE;
    stmts.push({ sql: "DELETE FROM tree_edges WHERE pool_id = ?", params: [pool.id] });
    for (const change of append.changes) {
      const count = change.bytes.length / NODE;
      const complete = Math.floor(nextIndex / 2 ** change.level);
      const upTo = Math.min(change.start + count, complete);
      if (upTo > change.start) {
        // Views, not copies: db.write encodes and applies the batch before it returns, while the tree cannot change.
        stmts.push({ sql: PAGE_PUT, params: [treePage(pool.id, change.level), change.start * NODE, change.bytes.subarray(0, (upTo - change.start) * NODE)] });
      }
      // The append always rewrites the path to its last leaf, so a partial node is the change's last one.
      if (complete < change.start + count) {
        stmts.push({
          sql: "INSERT INTO tree_edges (pool_id, level, node) VALUES (?, ?, ?)",
          params: [pool.id, change.level, change.bytes.subarray((count - 1) * NODE)],
        });
      }
    }
    const seqRow = this.db.get<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM tree_roots WHERE pool_id = ?", [pool.id]);
    const seq = (seqRow?.seq ?? 0) + 1;
    stmts.push(
      { sql: "UPDATE pools SET next_index = ?, root = ?, cursor = ? WHERE id = ?", params: [nextIndex, append.root, cursor, pool.id] },
      {
        sql: "INSERT INTO tree_roots (pool_id, seq, root, next_index, created_at) VALUES (?, ?, ?, ?, ?)",
        params: [pool.id, seq, append.root, nextIndex, now],
      },
      { sql: "DELETE FROM tree_roots WHERE pool_id = ? AND seq <= ?", params: [pool.id, seq - KEEP_ROOTS] },
    );
    this.leafWrites(pool.id, leaves, now, stmts);
    await this.db.write(stmts);
    pool.nextIndex = nextIndex;
    pool.cursor = cursor;
  }

  /**
   * Signature and slot records, indexed-at times, and each leaf's kind and a deposit's
   * amount (migration 17), one page_put per file per contiguous run of leaves.
   */
  private leafWrites(poolId: number, leaves: IndexedLeaf[], now: number, out: SqlStatement[]): void {
    let i = 0;
    while (i < leaves.length) {
      let j = i + 1;
      while (j < leaves.length && leaves[j]!.leafIndex === leaves[j - 1]!.leafIndex + 1) j++;
      const first = leaves[i]!.leafIndex;
      const records = new Uint8Array((j - i) * LEAF_RECORD);
      const times = new Uint8Array((j - i) * TIME_BYTES);
      const kinds = new Uint8Array((j - i) * KIND_RECORD);
      const timeView = new DataView(times.buffer);
      const recordView = new DataView(records.buffer);
      const kindView = new DataView(kinds.buffer);
      for (let k = i; k < j; k++) {
        const leaf = leaves[k]!;
        encodeLeafRecord(leaf.signature, leaf.slot, records, recordView, (k - i) * LEAF_RECORD);
        timeView.setUint32((k - i) * TIME_BYTES, now, true);
        encodeKindRecord(leaf.kind, leaf.kind === "deposit" ? leaf.amount : null, kindView, (k - i) * KIND_RECORD);
      }
      out.push(
        { sql: PAGE_PUT, params: [leafPage(poolId), first * LEAF_RECORD, records] },
        { sql: PAGE_PUT, params: [timePage(poolId), first * TIME_BYTES, times] },
        { sql: PAGE_PUT, params: [kindPage(poolId), first * KIND_RECORD, kinds] },
      );
      i = j;
    }
  }
}
