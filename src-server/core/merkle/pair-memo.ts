import type { FieldHasher } from "../../../src-shared/crypto/hasher";

const NODE = 32;

/**
 * A short map key: the last 8 bytes (the low-order ones of a big-endian
 * element, which differ even between small numbers) of each half. It only
 * picks the slot; a hit is still compared on all 64 bytes, so two pairs
 * sharing a key (which anyone could make) cost a hash, never a wrong answer.
 * Building a key of all 64 bytes was most of the memo's cost.
 */
function slotKey(b: Uint8Array, o: number): string {
  const l = o + 24;
  const r = o + 56;
  return String.fromCharCode(
    b[l]! | (b[l + 1]! << 8),
    b[l + 2]! | (b[l + 3]! << 8),
    b[l + 4]! | (b[l + 5]! << 8),
    b[l + 6]! | (b[l + 7]! << 8),
    b[r]! | (b[r + 1]! << 8),
    b[r + 2]! | (b[r + 3]! << 8),
    b[r + 4]! | (b[r + 5]! << 8),
    b[r + 6]! | (b[r + 7]! << 8),
  );
}

/**
 * Poseidon pairs that one tree of the relay has just hashed, for another tree
 * to read instead of hashing them again.
 *
 * The sandbox chain keeps a frontier tree and inserts each deposit into it,
 * hashing the leaf's whole path to the root (one Poseidon per level). The
 * indexer then appends the same leaf to its full tree and hashes the very same
 * (left, right) pairs. Poseidon is a pure function, so the second tree can take
 * the results of the first: a value is only ever what the hasher returned for
 * exactly the 64 input bytes kept beside it. Each recorded pair is read at
 * most once (the indexer hashes a pair once per append) and then dropped;
 * pairs nobody reads (a frontier's intermediate states, which a batched
 * append skips) leave oldest first once `capacity` is reached.
 */
export class PairMemo {
  /** Slot key → the 64 input bytes followed by their 32-byte hash. */
  private readonly pairs = new Map<string, Uint8Array>();
  hits = 0;
  misses = 0;

  constructor(readonly capacity: number = 1 << 14) {}

  get size(): number {
    return this.pairs.size;
  }

  record(left: Uint8Array, right: Uint8Array, hash: Uint8Array): void {
    const entry = new Uint8Array(3 * NODE);
    entry.set(left, 0);
    entry.set(right, NODE);
    entry.set(hash, 2 * NODE);
    if (this.pairs.size >= this.capacity) this.pairs.delete(this.pairs.keys().next().value!);
    this.pairs.set(slotKey(entry, 0), entry);
  }

  /** The recorded hash of the pair at `pairs[offset..offset+64]`, removed from the memo; undefined when not recorded. */
  take(pairs: Uint8Array, offset: number): Uint8Array | undefined {
    if (this.pairs.size === 0) return undefined;
    const key = slotKey(pairs, offset);
    const entry = this.pairs.get(key);
    if (entry && sameInputs(entry, pairs, offset)) {
      this.pairs.delete(key);
      this.hits++;
      return entry.subarray(2 * NODE);
    }
    this.misses++;
    return undefined;
  }
}

function sameInputs(entry: Uint8Array, pairs: Uint8Array, offset: number): boolean {
  for (let i = 0; i < 2 * NODE; i++) if (entry[i] !== pairs[offset + i]) return false;
  return true;
}

interface MemoHashers {
  memo: PairMemo;
  recording: FieldHasher;
  reading: FieldHasher;
}

/** One memo per hasher, so the trees that share a hasher share the memo (and the wrappers stay the same objects, which keeps zeroHashes' cache). */
const byHasher = new WeakMap<FieldHasher, MemoHashers>();

function memoHashers(hasher: FieldHasher): MemoHashers {
  let m = byHasher.get(hasher);
  if (m) return m;
  const memo = new PairMemo();
  const recording: FieldHasher = {
    hash(inputs) {
      const out = hasher.hash(inputs);
      if (inputs.length === 2) memo.record(inputs[0]!, inputs[1]!, out);
      return out;
    },
    hashPairs(pairs, count, out, outOffset) {
      hasher.hashPairs(pairs, count, out, outOffset);
      for (let k = 0; k < count; k++) {
        memo.record(
          pairs.subarray(64 * k, 64 * k + NODE),
          pairs.subarray(64 * k + NODE, 64 * k + 2 * NODE),
          out.subarray(outOffset + NODE * k, outOffset + NODE * (k + 1)),
        );
      }
    },
  };
  const reading: FieldHasher = {
    hash(inputs) {
      if (inputs.length === 2 && inputs[0]!.length === NODE && inputs[1]!.length === NODE && memo.size > 0) {
        const both = new Uint8Array(2 * NODE);
        both.set(inputs[0]!, 0);
        both.set(inputs[1]!, NODE);
        const known = memo.take(both, 0);
        if (known) return known;
      }
      return hasher.hash(inputs);
    },
    hashPairs(pairs, count, out, outOffset) {
      if (memo.size === 0) return hasher.hashPairs(pairs, count, out, outOffset);
      for (let k = 0; k < count; k++) {
        const known = memo.take(pairs, 64 * k);
        if (known) out.set(known, outOffset + NODE * k);
        else hasher.hashPairs(pairs.subarray(64 * k, 64 * (k + 1)), 1, out, outOffset + NODE * k);
      }
    },
  };
  m = { memo, recording, reading };
  byHasher.set(hasher, m);
  return m;
}

/** `hasher`, recording every pair it hashes into the memo shared by all trees on `hasher`. */
export function recordingHasher(hasher: FieldHasher): FieldHasher {
  return memoHashers(hasher).recording;
}

/** `hasher`, taking a pair's hash from the memo shared by all trees on `hasher` when it was recorded there. */
export function memoReadingHasher(hasher: FieldHasher): FieldHasher {
  return memoHashers(hasher).reading;
}

/** The memo shared by the trees on `hasher` (for tests and diagnostics). */
export function pairMemoOf(hasher: FieldHasher): PairMemo {
  return memoHashers(hasher).memo;
}
