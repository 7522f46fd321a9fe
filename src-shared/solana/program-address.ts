/**
 * Program derived addresses without @solana/web3.js, so the sandbox (and anything else
 * that only derives addresses) does not load it (issue 29: its load was 0.13 s of every
 * start). Same rules as web3.js's `PublicKey.findProgramAddressSync`: bumps 255 down to
 * 0, sha256(seeds ‖ bump ‖ programId ‖ "ProgramDerivedAddress"), the first hash that is
 * not a valid ed25519 point (RFC 8032 decoding, as @noble/curves decodes it for web3.js).
 * Browser-safe.
 */
import { sha256 } from "../ceremony/sha256";
import { isOnEd25519Curve } from "../crypto/ed25519";
import { concatBytes } from "../encoding/bytes";

const MAX_SEED_LENGTH = 32;
const MAX_SEEDS = 16;
const MARKER = new TextEncoder().encode("ProgramDerivedAddress");

/** PDA(seeds, bump) under `programId`, or null where that hash is on the curve. */
export function createProgramAddress(seeds: readonly Uint8Array[], programId: Uint8Array): Uint8Array | null {
  if (seeds.length > MAX_SEEDS) throw new Error("Max seed length exceeded");
  for (const s of seeds) if (s.length > MAX_SEED_LENGTH) throw new TypeError("Max seed length exceeded");
  const buf = concatBytes(...seeds, programId, MARKER);
  const hash = sha256(buf);
  return isOnEd25519Curve(hash) ? null : hash;
}

/** The program address of `seeds` under `programId` with the highest bump that is off the curve, and that bump. */
export function findProgramAddress(seeds: readonly Uint8Array[], programId: Uint8Array): [address: Uint8Array, bump: number] {
  for (let bump = 255; bump >= 0; bump--) {
    const address = createProgramAddress([...seeds, Uint8Array.of(bump)], programId);
    if (address) return [address, bump];
  }
  throw new Error("Unable to find a viable program address nonce");
}
