/**
 * ed25519 signature verification through node:crypto (OpenSSL), much faster
 * than tweetnacl. A raw 32-byte public key is wrapped in its SPKI DER form.
 */
import { createPublicKey, verify, type KeyObject } from "node:crypto";

/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING }. */
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

const keyCache = new Map<string, KeyObject | null>();
const MAX_CACHED_KEYS = 4096;

function keyObject(raw: Uint8Array): KeyObject | null {
  const id = Buffer.from(raw).toString("hex");
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

export function verifyEd25519Signature(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  const key = keyObject(publicKey);
  if (!key) return false;
  try {
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}
