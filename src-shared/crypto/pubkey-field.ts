import type { FieldHasher } from "./hasher";

/**
 * A 32-byte public key as one field element: Poseidon(hi, lo) of its two
 * 16-byte halves read big-endian (docs/zk.md), binding all 256 bits.
 */
export function pubkeyToField(hasher: FieldHasher, pubkey: Uint8Array): Uint8Array {
  if (pubkey.length !== 32) throw new RangeError("a public key is 32 bytes");
  const hi = new Uint8Array(32);
  const lo = new Uint8Array(32);
  hi.set(pubkey.subarray(0, 16), 16);
  lo.set(pubkey.subarray(16), 16);
  return hasher.hash([hi, lo]);
}
