import nacl from "tweetnacl";

const enc = new TextEncoder();

/** An ed25519 check: true only for a valid signature of `message` (a string as UTF-8) by the 32-byte `publicKey`; never throws. */
export type Ed25519Verify = (message: string | Uint8Array, signature: Uint8Array, publicKey: Uint8Array) => boolean;

/** The field prime p = 2^255 - 19. */
const P = (1n << 255n) - 19n;
/** The order L of the base point's subgroup: a canonical S is below it. */
const L = (1n << 252n) + 27742317777372353535851937790883648493n;

/**
 * The y coordinates of the eight points of order dividing 8 (the torsion subgroup):
 * the identity (y = 1), the point of order 2 (y = -1), the two of order 4 (y = 0) and
 * the four of order 8 (y = ±y8). Every encoding of such a point, whatever its sign bit,
 * carries one of these y values, so a check on y alone catches all of them (and the
 * encodings with y + p are refused as non-canonical first).
 */
const Y8 = 0x7a03ac9277fdc74ec6cc392cfa53202a0f67100d760b3cba4fd84d3d706a17c7n;
const SMALL_ORDER_Y: ReadonlySet<bigint> = new Set([0n, 1n, P - 1n, Y8, P - Y8]);

/** A little-endian integer from `bytes[from, from + 32)`, the top bit (a point's sign of x) left out when `dropSign`. */
function le256(bytes: Uint8Array, from: number, dropSign: boolean): bigint {
  let n = 0n;
  for (let i = from + 31; i >= from; i--) n = (n << 8n) | BigInt(i === from + 31 && dropSign ? bytes[i]! & 0x7f : bytes[i]!);
  return n;
}

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
  const y = le256(bytes, 0, true);
  if (y >= P) return false;
  const y2 = (y * y) % P;
  const u = (y2 - 1n + P) % P;
  const v = (D * y2 + 1n) % P;
  // u/v is a square exactly when u·v is (v is never 0); Euler's criterion.
  if (u !== 0n && powMod(u * v, (P - 1n) / 2n) !== 1n) return false;
  return !(u === 0n && (bytes[31]! & 0x80) !== 0);
}

/**
 * A point encoding `verify_strict` accepts as A or R: y below p (one encoding per point)
 * and not a small-order point. Whether it is on the curve at all is left to the
 * signature equation, which fails for anything that is not.
 */
function isStrictPointEncoding(bytes: Uint8Array, from: number): boolean {
  const y = le256(bytes, from, true);
  return y < P && !SMALL_ORDER_Y.has(y);
}

/**
 * What Solana's (ed25519-dalek's) `verify_strict` refuses before the equation, and
 * tweetnacl and OpenSSL accept: a public key or R that is a small-order point or a
 * non-canonical encoding, and S not below L. A small-order key is one whose "secret" is
 * public: with R the identity and S = 0, the identity key "signs" every message, so a
 * login, revert or compliance check with it proves nothing. True when none of these holds
 * (the lengths are 32 and 64).
 */
export function isStrictEd25519Input(signature: Uint8Array, publicKey: Uint8Array): boolean {
  if (!(signature instanceof Uint8Array) || !(publicKey instanceof Uint8Array)) return false;
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  return le256(signature, 32, false) < L && isStrictPointEncoding(publicKey, 0) && isStrictPointEncoding(signature, 0);
}

/**
 * The strict ed25519 check ({@link isStrictEd25519Input}, then tweetnacl's equation), for
 * code that also runs in a browser (the console, the SDK). The relay verifies with
 * node:crypto after the same strict checks (src-shared/node/ed25519-native.ts):
 * this one takes milliseconds on the thread that calls it.
 */
export function verifyEd25519(message: string | Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  if (!isStrictEd25519Input(signature, publicKey)) return false;
  const bytes = typeof message === "string" ? enc.encode(message) : message;
  try {
    return nacl.sign.detached.verify(bytes, signature, publicKey);
  } catch {
    return false;
  }
}

export function signEd25519(message: string | Uint8Array, secretKey: Uint8Array): Uint8Array {
  return nacl.sign.detached(typeof message === "string" ? enc.encode(message) : message, secretKey);
}
