import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { err, ok, type Result } from "../../../src-shared/result";
import { RootHistory } from "./root-history";
import { zeroHashes } from "./zeros";
import { ROOT_HISTORY_SIZE, TREE_DEPTH, type TreeError } from "./tree";

export interface FrontierState {
  nextIndex: number;
  /** depth × 32 bytes: the last left node seen at each level. */
  filledSubtrees: Uint8Array;
  /** The recent roots, oldest first, 32 bytes each in one buffer (as a pool program stores them). */
  roots: Uint8Array;
}

/**
 * What a pool program keeps on chain: no nodes, only the frontier, the next
 * index and the recent roots. The sandbox chain runs this, and the indexer's
 * full tree must agree with it after every batch.
 */
export class FrontierTree {
  private readonly zeros: readonly Uint8Array[];
  private readonly filled: Uint8Array;
  private readonly history: RootHistory;
  private current: Uint8Array;
  nextIndex: number;

  constructor(
    private readonly hasher: FieldHasher,
    state?: FrontierState,
    readonly depth: number = TREE_DEPTH,
  ) {
    this.zeros = zeroHashes(hasher, depth);
    this.history = new RootHistory(ROOT_HISTORY_SIZE);
    this.nextIndex = state?.nextIndex ?? 0;
    this.filled = state ? state.filledSubtrees.slice() : new Uint8Array(depth * 32);
    if (!state) for (let i = 0; i < depth; i++) this.filled.set(this.zeros[i]!, i * 32);
    const roots = state?.roots ?? new Uint8Array(0);
    for (let i = 0; i < roots.length; i += 32) this.history.push(roots.slice(i, i + 32));
    this.current = roots.length > 0 ? roots.slice(roots.length - 32) : this.zeros[depth]!;
  }

  root(): Uint8Array {
    return this.current.slice();
  }

  isKnownRoot(root: Uint8Array): boolean {
    return this.history.has(root);
  }

  insert(leaf: Uint8Array): Result<number, TreeError> {
    if (this.nextIndex >= 2 ** this.depth) return err("TreeFull");
    const index = this.nextIndex;
    let node = leaf;
    let i = index;
    for (let level = 0; level < this.depth; level++) {
      if ((i & 1) === 0) {
        this.filled.set(node, level * 32);
        node = this.hasher.hash([node, this.zeros[level]!]);
      } else {
        node = this.hasher.hash([this.filled.subarray(level * 32, level * 32 + 32), node]);
      }
      i >>>= 1;
    }
    this.current = node;
    this.history.push(node);
    this.nextIndex = index + 1;
    return ok(index);
  }

  /** What is stored after each deposit, and what the tree resumes from. */
  state(): FrontierState {
    return { nextIndex: this.nextIndex, filledSubtrees: this.filled.slice(), roots: this.history.bytes() };
  }
}
