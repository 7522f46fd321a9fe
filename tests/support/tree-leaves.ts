import type { IndexedLeaf } from "../../src-server/ports/tree-store";

/** `count` distinct 32-byte leaves from index `first` on (each below the field modulus), as the tree stores' tests append them. */
export function leaves(first: number, count: number): Uint8Array {
  const out = new Uint8Array(count * 32);
  for (let i = 0; i < count; i++) {
    out[i * 32 + 31] = (first + i) & 0xff;
    out[i * 32 + 30] = ((first + i) >> 8) & 0xff;
    out[i * 32 + 1] = 1;
  }
  return out;
}

/** The indexer's metadata for those leaves: every third a change leaf (protocol v3), the others deposits of distinct amounts. */
export const leafMeta = (first: number, count: number): IndexedLeaf[] =>
  Array.from({ length: count }, (_, i) => ({
    leafIndex: first + i,
    commitment: leaves(first + i, 1),
    signature: `sig${first + i}`.padEnd(88, "x"),
    slot: 500 + first + i,
    ...((first + i) % 3 === 2 ? { kind: "change" as const, amount: null } : { kind: "deposit" as const, amount: 1000n + BigInt(first + i) }),
  }));
