import type { FieldHasher } from "./hasher";

/**
 * Fields already computed, per hasher: the same few keys (a pool's mint, the
 * relayer) come back with every deposit and withdrawal, and each is a
 * Poseidon hash. Bounded, so a stream of fresh keys cannot grow it.
 */
const computed = new WeakMap<FieldHasher, Map<string, Uint8Array>>();
const KEPT = 1024;

/**
 * A 32-byte public key as one field element: Poseidon(hi, lo) of its two
 * 16-byte halves read big-endian (docs/zk.md), binding all 256 bits.
 */
export function pubkeyToField(hasher: FieldHasher, pubkey: Uint8Array): Uint8Array {
  if (pubkey.length !== 32) throw new RangeError("a public key is 32 bytes");
  let known = computed.get(hasher);
  if (!known) computed.set(hasher, (known = new Map()));
  const key = String.fromCharCode.apply(null, pubkey as unknown as number[]);
  const hit = known.get(key);
  if (hit) return hit.slice();
  const hi = new Uint8Array(32);
  const lo = new Uint8Array(32);
  hi.set(pubkey.subarray(0, 16), 16);
  lo.set(pubkey.subarray(16), 16);
  const field = hasher.hash([hi, lo]);
  if (known.size >= KEPT) known.clear();
  known.set(key, field.slice());
  return field;
}
