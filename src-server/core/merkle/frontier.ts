import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { err, ok, type Result } from "../../../src-shared/result";
import { RootHistory } from "./root-history";
import { zeroHashes } from "./zeros";
import { TREE_DEPTH } from "../../../src-shared/pool-program/constants";
import { ROOT_HISTORY_SIZE, type TreeError } from "./tree";

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
    // Whole roots only: a stored list is a multiple of 32 bytes (a shorter tail would be no root at all).
    const whole = roots.length - (roots.length % 32);
    for (let i = 0; i < whole; i += 32) this.history.push(roots.slice(i, i + 32));
    this.current = whole > 0 ? roots.slice(whole - 32, whole) : this.zeros[depth]!;
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
    return { ...this.frontier(), roots: this.history.bytes() };
  }

  /** {@link state} without the roots: what a caller that stores the root ring slot by slot needs (32 KB less to copy per insert). */
  frontier(): Omit<FrontierState, "roots"> {
    return { nextIndex: this.nextIndex, filledSubtrees: this.filled.slice() };
  }
}

/**
 * The root ring as the pool program lays it out: ROOT_HISTORY_SIZE slots of
 * 32 bytes, the root after k leaves (k ≥ 1) in slot (k − 1) mod the ring's
 * size. Stored this way, an insert rewrites one slot instead of the whole list.
 */
export function ringSlot(leafCount: number, capacity: number = ROOT_HISTORY_SIZE): number {
  if (!Number.isInteger(leafCount) || leafCount < 1) throw new RangeError(`the ring holds roots after at least one leaf, got ${leafCount}`);
  return (leafCount - 1) % capacity;
}

/** The roots of a ring (see {@link ringSlot}) oldest first, for `nextIndex` leaves: min(nextIndex, capacity) of them. */
export function rootsFromRing(ring: Uint8Array, nextIndex: number, capacity: number = ROOT_HISTORY_SIZE): Uint8Array {
  if (ring.length !== capacity * 32) throw new RangeError(`a ring of ${capacity} roots is ${capacity * 32} bytes, got ${ring.length}`);
  const count = Math.min(nextIndex, capacity);
  const out = new Uint8Array(count * 32);
  for (let i = 0; i < count; i++) {
    const slot = ringSlot(nextIndex - count + 1 + i, capacity);
    out.set(ring.subarray(slot * 32, slot * 32 + 32), i * 32);
  }
  return out;
}

/** The ring (see {@link ringSlot}) holding `roots` (oldest first, the last being the root after `nextIndex` leaves); other slots zero. */
export function ringFromRoots(roots: Uint8Array, nextIndex: number, capacity: number = ROOT_HISTORY_SIZE): Uint8Array {
  const count = roots.length / 32;
  if (!Number.isInteger(count) || count > Math.min(nextIndex, capacity))
    throw new RangeError(`${roots.length} bytes are not up to ${Math.min(nextIndex, capacity)} roots`);
  const ring = new Uint8Array(capacity * 32);
  for (let i = 0; i < count; i++) ring.set(roots.subarray(i * 32, i * 32 + 32), ringSlot(nextIndex - count + 1 + i, capacity) * 32);
  return ring;
}
