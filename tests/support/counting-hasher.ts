import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";

/** Poseidon (circomlibjs's) that counts the pairs it really hashes, one by one or in batches. */
export async function countingHasher(): Promise<{ hasher: FieldHasher; pairs: () => number }> {
  const base = await createPoseidonHasher();
  let n = 0;
  const hasher: FieldHasher = {
    hash: (inputs) => {
      if (inputs.length === 2) n++;
      return base.hash(inputs);
    },
    hashPairs: (pairs, count, out, offset) => {
      n += count;
      base.hashPairs(pairs, count, out, offset);
    },
  };
  return { hasher, pairs: () => n };
}
