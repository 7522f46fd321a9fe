import type { FieldHasher } from "../../../src-shared/crypto/hasher";

const NODE = 32;
const ENTRY = 3 * NODE;

/**
 * A hasher that answers `hash([left, right])` from a list of pairs hashed
 * elsewhere (the sandbox's frontier lane, on another thread), in the list's
 * order. An entry is used only when both inputs equal its 64 bytes; at the
 * first one that does not, the rest of the list is dropped (it was computed
 * from another state) and `fallback` hashes. So a stale list costs hashes,
 * never a wrong node: an entry answers only the exact inputs it was hashed
 * from, by the same Poseidon module.
 *
 * A list is `k × 96` bytes: left ‖ right ‖ hash per pair, in the order a
 * frontier insert asks for them (leaf level first).
 */
export class PrecomputedPairs implements FieldHasher {
  private list: Uint8Array | null = null;
  private next = 0;
  private servedNow = 0;

  /** `served` is told each pair answered from a list (the pair memo records them for the indexer's tree). */
  constructor(
    private readonly fallback: FieldHasher,
    private readonly served: (left: Uint8Array, right: Uint8Array, hash: Uint8Array) => void = () => {},
  ) {}

  /** The pairs for the next insert; null to hash everything with the fallback. */
  load(list: Uint8Array | null): void {
    if (list !== null && list.length % ENTRY !== 0) throw new RangeError(`a list of pairs is a multiple of ${ENTRY} bytes, got ${list.length}`);
    this.list = list;
    this.next = 0;
    this.servedNow = 0;
  }

  /** How many pairs since the last load() came from the list. */
  get servedCount(): number {
    return this.servedNow;
  }

  hash(inputs: readonly Uint8Array[]): Uint8Array {
    const list = this.list;
    if (list !== null && inputs.length === 2) {
      const o = this.next * ENTRY;
      if (o < list.length && equalAt(inputs[0]!, list, o) && equalAt(inputs[1]!, list, o + NODE)) {
        this.next++;
        this.servedNow++;
        const hash = list.slice(o + 2 * NODE, o + ENTRY);
        this.served(inputs[0]!, inputs[1]!, hash);
        return hash;
      }
      this.list = null;
    }
    return this.fallback.hash(inputs);
  }

  hashPairs(pairs: Uint8Array, count: number, out: Uint8Array, outOffset: number): void {
    this.fallback.hashPairs(pairs, count, out, outOffset);
  }
}

function equalAt(a: Uint8Array, list: Uint8Array, offset: number): boolean {
  if (a.length !== NODE) return false;
  for (let i = 0; i < NODE; i++) if (a[i] !== list[offset + i]) return false;
  return true;
}

/** A hasher that also writes every pair it hashes into a list in the {@link PrecomputedPairs} layout (the lane's side). */
export function listingHasher(hasher: FieldHasher): { hasher: FieldHasher; take(): Uint8Array } {
  let parts: Uint8Array[] = [];
  return {
    hasher: {
      hash(inputs) {
        const out = hasher.hash(inputs);
        if (inputs.length === 2) {
          const entry = new Uint8Array(ENTRY);
          entry.set(inputs[0]!, 0);
          entry.set(inputs[1]!, NODE);
          entry.set(out, 2 * NODE);
          parts.push(entry);
        }
        return out;
      },
      hashPairs: (pairs, count, out, outOffset) => hasher.hashPairs(pairs, count, out, outOffset),
    },
    take() {
      const list = new Uint8Array(parts.length * ENTRY);
      parts.forEach((p, i) => list.set(p, i * ENTRY));
      parts = [];
      return list;
    },
  };
}
