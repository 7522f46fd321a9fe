import nacl from "tweetnacl";

const enc = new TextEncoder();

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
