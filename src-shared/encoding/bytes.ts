import { err, ok, type Result } from "../result";

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

export function toHex(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]!];
  return s;
}

export function fromHex(hex: string): Uint8Array | null {
  const h = hex.startsWith("0x") ? hex.slice(2) : hex;
  if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) return null;
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export type ByteArrayProblem = "not an array" | "wrong length" | "not a byte";

/**
 * Parses a JSON byte array (the spec's number[] wire form). The length is
 * checked before the elements so a huge array costs one comparison.
 */
export function parseByteArray(value: unknown, length: number): Result<Uint8Array, ByteArrayProblem> {
  if (!Array.isArray(value)) return err("not an array");
  if (value.length !== length) return err("wrong length");
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    const v: unknown = value[i];
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 255) return err("not a byte");
    out[i] = v;
  }
  return ok(out);
}

/** JSON wire form of bytes: a plain number[] (the spec's byte arrays). */
export function toByteArray(bytes: Uint8Array): number[] {
  return Array.from(bytes);
}

/** The parts one after another in one new array. */
export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
