/**
 * Program derived addresses without @solana/web3.js, so the sandbox (and anything else
 * that only derives addresses) does not load it (issue 29: its load was 0.13 s of every
 * start). Same rules as web3.js's `PublicKey.findProgramAddressSync`: bumps 255 down to
 * 0, sha256(seeds ‖ bump ‖ programId ‖ "ProgramDerivedAddress"), the first hash that is
 * not a valid ed25519 point (RFC 8032 decoding, as @noble/curves decodes it for web3.js).
 * Browser-safe.
 */
import { sha256 } from "../ceremony/sha256";

const MAX_SEED_LENGTH = 32;
const MAX_SEEDS = 16;
const MARKER = new TextEncoder().encode("ProgramDerivedAddress");

const P = 2n ** 255n - 19n;
/** The curve's d = -121665 / 121666 mod p. */
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;

function powMod(base: bigint, exp: bigint): bigint {
  let result = 1n;
  let b = base % P;
  for (let e = exp; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
  }
  return result;
}

/** Whether 32 bytes decode to an ed25519 point: y below p, (y² − 1)/(d·y² + 1) a square, and not x = 0 with the sign bit set. */
export function isOnEd25519Curve(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? bytes[i]! & 0x7f : bytes[i]!);
  if (y >= P) return false;
  const y2 = (y * y) % P;
  const u = (y2 - 1n + P) % P;
  const v = (D * y2 + 1n) % P;
  // u/v is a square exactly when u·v is (v is never 0); Euler's criterion.
  if (u !== 0n && powMod(u * v, (P - 1n) / 2n) !== 1n) return false;
  return !(u === 0n && (bytes[31]! & 0x80) !== 0);
}

/** PDA(seeds, bump) under `programId`, or null where that hash is on the curve. */
export function createProgramAddress(seeds: readonly Uint8Array[], programId: Uint8Array): Uint8Array | null {
  if (seeds.length > MAX_SEEDS) throw new Error("Max seed length exceeded");
  let length = MARKER.length + programId.length;
  for (const s of seeds) {
    if (s.length > MAX_SEED_LENGTH) throw new TypeError("Max seed length exceeded");
    length += s.length;
  }
  const buf = new Uint8Array(length);
  let at = 0;
  for (const s of seeds) {
    buf.set(s, at);
    at += s.length;
  }
  buf.set(programId, at);
  buf.set(MARKER, at + programId.length);
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
