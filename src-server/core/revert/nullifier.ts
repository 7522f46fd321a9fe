import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { bigIntToBytes32 } from "../../../src-shared/encoding/field";

/** The ASCII bytes of "revert" as one field element: the domain of revert-nullifiers. */
export const REVERT_DOMAIN = 0x726576657274n;

/**
 * The revert-nullifier of a deposit (a revert spends a nullifier derived from
 * the deposit, so a second revert fails NullifierSpent): Poseidon(REVERT_DOMAIN, s0, s1, s2, s3), where
 * s0..s3 are the deposit transaction's 64-byte signature cut in four 16-byte
 * big-endian words (each below 2^128, so below the field modulus). Poseidon
 * of five inputs never collides with a withdrawal's Poseidon(nullifier), and
 * an on-chain program can compute the same value with the poseidon syscall.
 */
export function revertNullifierOf(hasher: FieldHasher, depositSignature: Uint8Array): Uint8Array {
  if (depositSignature.length !== 64) throw new RangeError("a deposit transaction signature is 64 bytes");
  const words: Uint8Array[] = [bigIntToBytes32(REVERT_DOMAIN)];
  for (let i = 0; i < 4; i++) {
    const w = new Uint8Array(32);
    w.set(depositSignature.subarray(16 * i, 16 * i + 16), 16);
    words.push(w);
  }
  return hasher.hash(words);
}
