/**
 * ed25519 verification through node:crypto (OpenSSL): about a hundred times
 * faster than tweetnacl, so a flood of signed requests cannot hold the event
 * loop (docs/security.md, "Event loop"). Every signature the relay and the
 * local validator check goes through `verifyEd25519Native`; tweetnacl stays
 * only where a browser or wallet needs it (src-shared/crypto/ed25519.ts).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from "node:crypto";
import { isStrictEd25519Input } from "../crypto/ed25519";

/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING (33 bytes) }. */
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/** DER prefix of an Ed25519 PKCS#8 private key (RFC 8410) holding the 32-byte seed. */
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** Keys seen recently (the relayer's own, a depositor's several signatures); bounded, oldest dropped first. */
const keyCache = new Map<string, KeyObject | null>();
const MAX_CACHED_KEYS = 4096;

function keyObject(raw: Uint8Array): KeyObject | null {
  const id = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("hex");
  const cached = keyCache.get(id);
  if (cached !== undefined) return cached;
  let key: KeyObject | null;
  try {
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: "der", type: "spki" });
  } catch {
    key = null;
  }
  if (keyCache.size >= MAX_CACHED_KEYS) keyCache.delete(keyCache.keys().next().value!);
  keyCache.set(id, key);
  return key;
}

const enc = new TextEncoder();

/**
 * True only when `signature` is a valid ed25519 signature of `message` (a
 * string is signed as its UTF-8 bytes) by the raw 32-byte `publicKey`.
 * Never throws: a key or signature of the wrong length, a key that is not a
 * curve point, anything else malformed, and whatever Solana's `verify_strict`
 * refuses (a small-order or non-canonically encoded key or R, S not below the
 * group order: src-shared/crypto/ed25519.ts) answers false. OpenSSL alone
 * accepts a small-order key, for which one fixed signature verifies every message.
 */
export function verifyEd25519Native(message: string | Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  if (!isStrictEd25519Input(signature, publicKey)) return false;
  const key = keyObject(publicKey);
  if (!key) return false;
  try {
    return verify(null, typeof message === "string" ? enc.encode(message) : message, key, signature);
  } catch {
    return false;
  }
}

/**
 * A signing function for a 64-byte ed25519 secret key (seed ‖ public key, as
 * tweetnacl and the Solana CLI store it), through node:crypto: the relay signs
 * every transaction and compliance signature without holding the event loop.
 * The signatures are the same bytes tweetnacl makes (ed25519 is deterministic).
 */
export function ed25519Signer(secretKey: Uint8Array): (message: string | Uint8Array) => Uint8Array {
  if (secretKey.length !== 64) throw new Error("an ed25519 secret key is 64 bytes");
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, secretKey.subarray(0, 32)]), format: "der", type: "pkcs8" });
  return (message) => new Uint8Array(sign(null, typeof message === "string" ? enc.encode(message) : message, key));
}

/**
 * A new random 64-byte ed25519 secret key (seed ‖ public key, as tweetnacl's
 * `sign.keyPair()` makes it), from node:crypto: about a hundred times less CPU
 * than tweetnacl's scalar multiplication, which a first start paid per key.
 */
export function generateEd25519SecretKey(): Uint8Array {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const seed = privateKey.export({ format: "der", type: "pkcs8" }).subarray(PKCS8_PREFIX.length);
  const pub = publicKey.export({ format: "der", type: "spki" }).subarray(SPKI_PREFIX.length);
  const secret = new Uint8Array(64);
  secret.set(seed, 0);
  secret.set(pub, 32);
  return secret;
}

/** The raw 32-byte public key of a 32-byte ed25519 seed (tweetnacl's `sign.keyPair.fromSeed(seed).publicKey`). */
export function ed25519PublicKeyOfSeed(seed: Uint8Array): Uint8Array {
  if (seed.length !== 32) throw new Error("an ed25519 seed is 32 bytes");
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
  return new Uint8Array(createPublicKey(key).export({ format: "der", type: "spki" }).subarray(SPKI_PREFIX.length));
}
