import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { ROOT_HISTORY_SIZE, TREE_DEPTH } from "../../../src-shared/pool-program/constants";
import { err, ok, type Result } from "../../../src-shared/result";
import { LevelBuffer } from "./level-buffer";
import { RootHistory } from "./root-history";
import { zeroHashes } from "./zeros";

/**
 * Roots the relay accepts besides the current one: the pool program's ring. A proof stays good
 * for 1,000 later insertions, so flushing it out takes 1,000 deposits of at least the pool's minimum.
 */
export { ROOT_HISTORY_SIZE };
const NODE = 32;

/** Nodes written by an append: `count` nodes of `level` starting at `start`, as a view. */
export interface LevelChange {
  level: number;
  start: number;
  bytes: Uint8Array;
}

export interface AppendResult {
  firstIndex: number;
  root: Uint8Array;
  changes: LevelChange[];
}

export interface MerkleProof {
  path: Uint8Array[];
  indices: number[];
}

export type TreeError = "IndexOutOfRange" | "TreeFull";

/**
 * The indexer's full incremental Merkle tree: every node is kept, so proofs
 * and heap-order node lookups are memory reads. A batch of k leaves costs
 * about k + depth hashes, one hasher call per level.
 */
export class MerkleTree {
  readonly zeros: readonly Uint8Array[];
  private readonly levels: LevelBuffer[];
  private readonly history: RootHistory;

  constructor(
    private readonly hasher: FieldHasher,
    readonly depth: number = TREE_DEPTH,
    historySize: number = ROOT_HISTORY_SIZE,
  ) {
    this.zeros = zeroHashes(hasher, depth);
    this.levels = Array.from({ length: depth + 1 }, () => new LevelBuffer());
    this.history = new RootHistory(historySize);
  }

  get nextIndex(): number {
    return this.levels[0]!.size;
  }

  get capacity(): number {
    return 2 ** this.depth;
  }

  root(): Uint8Array {
    const top = this.levels[this.depth]!;
    return top.size > 0 ? top.node(0).slice() : this.zeros[this.depth]!.slice();
  }

  isKnownRoot(root: Uint8Array): boolean {
    return this.history.has(root);
  }

  /** The roots the tree accepts, oldest first (copies). */
  recentRoots(): readonly Uint8Array[] {
    return this.history.list();
  }

  /** `leaves` holds k concatenated 32-byte leaves. */
  append(leaves: Uint8Array): Result<AppendResult, TreeError> {
    const count = leaves.length / NODE;
    if (!Number.isInteger(count) || count === 0) throw new RangeError("append takes one or more 32-byte leaves");
    const firstIndex = this.nextIndex;
    if (firstIndex + count > this.capacity) return err("TreeFull");

    const changes: LevelChange[] = [];
    let start = firstIndex;
    let end = firstIndex + count;
    const level0 = this.levels[0]!;
    level0.write(start, leaves);
    level0.size = end;
    changes.push({ level: 0, start, bytes: level0.view(start, count) });

    for (let level = 0; level < this.depth; level++) {
      const children = this.levels[level]!;
      const parents = this.levels[level + 1]!;
      const pStart = start >>> 1;
      const pEnd = ((end - 1) >>> 1) + 1;
      const pCount = pEnd - pStart;
      // A missing right sibling is an empty subtree: park its zero hash just
      // past the level's end so the children are one contiguous run.
      if (end % 2 === 1) children.write(end, this.zeros[level]!);
      parents.ensureCapacity(pEnd + 1);
      this.hasher.hashPairs(children.view(2 * pStart, 2 * pCount), pCount, parents.bytes, pStart * NODE);
      parents.size = Math.max(parents.size, pEnd);
      changes.push({ level: level + 1, start: pStart, bytes: parents.view(pStart, pCount) });
      start = pStart;
      end = pEnd;
    }

    const root = this.root();
    this.history.push(root);
    return ok({ firstIndex, root, changes });
  }

  proof(leafIndex: number): Result<MerkleProof, TreeError> {
    if (!Number.isInteger(leafIndex) || leafIndex < 0 || leafIndex >= this.nextIndex) return err("IndexOutOfRange");
    const path: Uint8Array[] = [];
    const indices: number[] = [];
    let index = leafIndex;
    for (let level = 0; level < this.depth; level++) {
      path.push(this.nodeAt(level, index ^ 1));
      indices.push(index & 1);
      index >>>= 1;
    }
    return ok({ path, indices });
  }

  /** Heap order: 1 is the root, node i has children 2i and 2i+1, leaf j is 2^depth + j. */
  heapNode(heapIndex: number): Result<Uint8Array, TreeError> {
    if (!Number.isSafeInteger(heapIndex) || heapIndex < 1 || heapIndex >= 2 ** (this.depth + 1)) {
      return err("IndexOutOfRange");
    }
    let fromTop = 0;
    while (2 ** (fromTop + 1) <= heapIndex) fromTop++;
    const rowStart = 2 ** fromTop;
    const height = this.depth - fromTop;
    return ok(this.nodeAt(height, heapIndex - rowStart));
  }

  /** Node `index` at `level` (0 = leaves), a copy; zero subtree hash where nothing was appended. */
  nodeAt(level: number, index: number): Uint8Array {
    const buf = this.levels[level]!;
    return index < buf.size ? buf.node(index).slice() : this.zeros[level]!.slice();
  }

  /** Like {@link nodeAt} without the copy: a view valid until the next append; callers must not write to it. */
  nodeView(level: number, index: number): Uint8Array {
    const buf = this.levels[level]!;
    return index < buf.size ? buf.node(index) : this.zeros[level]!;
  }

  /** How many nodes of `level` exist (the rest are empty subtrees). */
  levelSize(level: number): number {
    return this.levels[level]!.size;
  }

  /** Restores persisted state: raw nodes of one level starting at `start`. */
  loadLevel(level: number, start: number, bytes: Uint8Array): void {
    const buf = this.levels[level]!;
    buf.write(start, bytes);
    buf.size = Math.max(buf.size, start + bytes.length / NODE);
  }

  /** Restores the root history after `loadLevel` calls (oldest first). */
  loadRoots(roots: readonly Uint8Array[]): void {
    for (const r of roots) this.history.push(r);
  }

  /** Bytes of nodes held (for health and benchmarks). */
  nodeCount(): number {
    return this.levels.reduce((n, l) => n + l.size, 0);
  }
}
