import type { FieldHasher } from "../../../src-shared/crypto/hasher";

/** Z[0] = 0 (the empty leaf), Z[i+1] = H(Z[i], Z[i]): the value of an empty subtree of height i. */
export function zeroHashes(hasher: FieldHasher, depth: number): Uint8Array[] {
  const zeros: Uint8Array[] = [new Uint8Array(32)];
  for (let i = 0; i < depth; i++) zeros.push(hasher.hash([zeros[i]!, zeros[i]!]));
  return zeros;
}
