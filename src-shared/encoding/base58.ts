import bs58 from "bs58";
import { err, ok, type Result } from "../result";

const ALPHABET = /^[1-9A-HJ-NP-Za-km-z]+$/;

export type Base58Problem = "not a string" | "wrong length" | "not base58";

/**
 * Decodes base58 of a known byte length. The text length is bounded before
 * bs58 runs, because base58 decoding is quadratic in the input length.
 */
export function parseBase58(value: unknown, byteLength: number): Result<Uint8Array, Base58Problem> {
  if (typeof value !== "string") return err("not a string");
  // n bytes need at most ceil(n * log(256)/log(58)) characters (+ leading '1's are counted in n).
  const maxChars = Math.ceil((byteLength * 8) / Math.log2(58)) + 1;
  if (value.length === 0 || value.length > maxChars) return err("wrong length");
  if (!ALPHABET.test(value)) return err("not base58");
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(value);
  } catch {
    return err("not base58");
  }
  if (bytes.length !== byteLength) return err("wrong length");
  return ok(bytes);
}

/** A Solana public key: 32 bytes, base58. */
export const parsePublicKey = (value: unknown): Result<Uint8Array, Base58Problem> => parseBase58(value, 32);
/**
 * The 32 bytes of a public key the caller has already validated (config read
 * at start, stored rows, requests past their checks): throws
 * `not a public key: <value>` otherwise, a programming error rather than bad
 * input.
 */
export function publicKeyBytesOrThrow(value: string): Uint8Array {
  const r = parsePublicKey(value);
  if (!r.ok) throw new Error(`not a public key: ${value}`);
  return r.value;
}
/** An ed25519 signature: 64 bytes, base58. */
export const parseSignature = (value: unknown): Result<Uint8Array, Base58Problem> => parseBase58(value, 64);

export const encodeBase58 = (bytes: Uint8Array): string => bs58.encode(bytes);
