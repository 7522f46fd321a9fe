import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { bigIntToBytes32 } from "../../../src-shared/encoding/field";

/**
 * A 32-byte public key as one field element: Poseidon(hi, lo) of its two
 * 16-byte halves read big-endian (DESIGN §3), binding all 256 bits.
 */
export function pubkeyToField(hasher: FieldHasher, pubkey: Uint8Array): Uint8Array {
  if (pubkey.length !== 32) throw new RangeError("a public key is 32 bytes");
  const hi = new Uint8Array(32);
  const lo = new Uint8Array(32);
  hi.set(pubkey.subarray(0, 16), 16);
  lo.set(pubkey.subarray(16), 16);
  return hasher.hash([hi, lo]);
}

export interface WithdrawalStatement {
  root: Uint8Array;
  nullifierHash: Uint8Array;
  recipient: Uint8Array;
  amount: bigint;
  mint: Uint8Array;
}

/**
 * The circuit's public signals in order `root, nullifierHash, recipient,
 * amount, mint`, recomputed by the relay from the request: a client's own
 * public inputs are never trusted.
 */
export function withdrawalPublicSignals(hasher: FieldHasher, s: WithdrawalStatement): Uint8Array[] {
  return [s.root, s.nullifierHash, pubkeyToField(hasher, s.recipient), bigIntToBytes32(s.amount), pubkeyToField(hasher, s.mint)];
}
