import nacl from "tweetnacl";

const enc = new TextEncoder();

/** An ed25519 check: true only for a valid signature of `message` (a string as UTF-8) by the 32-byte `publicKey`; never throws. */
export type Ed25519Verify = (message: string | Uint8Array, signature: Uint8Array, publicKey: Uint8Array) => boolean;

/**
 * tweetnacl's check, for code that also runs in a browser (the console, the SDK).
 * The relay verifies with node:crypto instead (src-server/adapters/keys/ed25519-native.ts):
 * this one takes milliseconds on the thread that calls it.
 */
export function verifyEd25519(message: string | Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
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
