import type { FieldHasher } from "../../../src-shared/crypto/hasher";

/** Per hasher and depth: a program that opens a tree per instruction (the local validator's pool) would otherwise rehash 32 levels each time. */
const cache = new WeakMap<FieldHasher, Map<number, readonly Uint8Array[]>>();

/**
 * Z[0] = 0 (the empty leaf), Z[i+1] = H(Z[i], Z[i]): the value of an empty
 * subtree of height i. Shared between trees: callers read, never write, them.
 */
export function zeroHashes(hasher: FieldHasher, depth: number): readonly Uint8Array[] {
  let byDepth = cache.get(hasher);
  if (!byDepth) cache.set(hasher, (byDepth = new Map()));
  const known = byDepth.get(depth);
  if (known) return known;
  const zeros: Uint8Array[] = [new Uint8Array(32)];
  for (let i = 0; i < depth; i++) zeros.push(hasher.hash([zeros[i]!, zeros[i]!]));
  byDepth.set(depth, zeros);
  return zeros;
}
