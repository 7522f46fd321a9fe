import { err, ok, type Result } from "../result";
import { parseByteArray, type ByteArrayProblem } from "./bytes";

/** BN254 scalar field modulus: every hash, root and nullifier lives below it. */
export const FIELD_MODULUS = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
export const FIELD_BYTES = 32;

export function bytesToBigInt(bytes: Uint8Array): bigint {
  let x = 0n;
  for (let i = 0; i < bytes.length; i++) x = (x << 8n) | BigInt(bytes[i]!);
  return x;
}

/** Big-endian, fixed 32 bytes: the wire and storage form of a field element. */
export function bigIntToBytes32(x: bigint): Uint8Array {
  if (x < 0n || x >= 1n << 256n) throw new RangeError("value does not fit in 32 bytes");
  const out = new Uint8Array(32);
  let v = x;
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

const MODULUS_BYTES = bigIntToBytes32(FIELD_MODULUS);

/** Compares bytes to the modulus without allocating a bigint (hot on every request). */
export function isCanonicalField(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  for (let i = 0; i < 32; i++) {
    const a = bytes[i]!;
    const m = MODULUS_BYTES[i]!;
    if (a !== m) return a < m;
  }
  return false;
}

export type FieldProblem = ByteArrayProblem | "not below the field modulus";

export function parseFieldBytes(value: unknown): Result<Uint8Array, FieldProblem> {
  const parsed = parseByteArray(value, FIELD_BYTES);
  if (!parsed.ok) return parsed;
  if (!isCanonicalField(parsed.value)) return err("not below the field modulus");
  return ok(parsed.value);
}

export function isZeroBytes(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}
