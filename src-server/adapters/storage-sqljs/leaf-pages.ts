import type { PageReader } from "./page-files";

/**
 * Page-file layout of the indexer's trees (migration 13):
 * - `tree-<pool>-<level>`: the level's complete nodes, 32 bytes each at index × 32.
 *   A node is complete once every leaf under it is appended, and never changes after.
 *   The right edge's partial nodes live in the `tree_edges` table instead, so an
 *   unacknowledged write can never leave a wrong node inside the committed prefix.
 * - `leaves-<pool>`: per leaf, a LEAF_RECORD-byte record at index × LEAF_RECORD:
 *   byte 0 the signature's length, then its UTF-8 bytes, and the slot as a float64 at SLOT_AT.
 * - `times-<pool>`: per leaf, the Unix second it was indexed, uint32 little-endian.
 * Only the first `pools.next_index` leaves of each file are committed.
 */
export const NODE = 32;
export const LEAF_RECORD = 104;
export const MAX_SIGNATURE_BYTES = 95;
const SLOT_AT = 96;
export const TIME_BYTES = 4;

export const treePage = (poolId: number, level: number): string => `tree-${poolId}-${level}`;
export const leafPage = (poolId: number): string => `leaves-${poolId}`;
export const timePage = (poolId: number): string => `times-${poolId}`;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** Writes one record at `at`; `view` is a DataView over `out`. */
export function encodeLeafRecord(signature: string, slot: number, out: Uint8Array, view: DataView, at: number): void {
  // Signatures are base58 (ASCII): copied char by char, which is far cheaper than a TextEncoder call per leaf.
  let n = signature.length;
  let ascii = n <= MAX_SIGNATURE_BYTES;
  for (let i = 0; ascii && i < n; i++) {
    const c = signature.charCodeAt(i);
    if (c >= 0x80) ascii = false;
    else out[at + 1 + i] = c;
  }
  if (!ascii) {
    const sig = utf8.encode(signature);
    if (sig.length > MAX_SIGNATURE_BYTES) throw new Error(`leaf signature of ${sig.length} bytes; at most ${MAX_SIGNATURE_BYTES} are stored`);
    out.fill(0, at + 1, at + 1 + MAX_SIGNATURE_BYTES);
    out.set(sig, at + 1);
    n = sig.length;
  }
  out[at] = n;
  view.setFloat64(at + SLOT_AT, slot, true);
}

export function decodeLeafRecord(rec: Uint8Array): { signature: string; slot: number } | null {
  if (rec.length < LEAF_RECORD || rec[0] === 0) return null;
  return {
    signature: fromUtf8.decode(rec.subarray(1, 1 + rec[0]!)),
    slot: new DataView(rec.buffer, rec.byteOffset, LEAF_RECORD).getFloat64(SLOT_AT, true),
  };
}

/** SQL function leaf_record(signature, slot): one record, for migration 13. */
export function leafRecordSql(...args: (number | string | Uint8Array | null)[]): Uint8Array {
  const [signature, slot] = args;
  if (typeof signature !== "string" || typeof slot !== "number") throw new Error("leaf_record(signature, slot)");
  const out = new Uint8Array(LEAF_RECORD);
  encodeLeafRecord(signature, slot, out, new DataView(out.buffer), 0);
  return out;
}

/** SQL function u32le(n): 4 bytes, for migration 13. */
export function u32leSql(...args: (number | string | Uint8Array | null)[]): Uint8Array {
  const [n] = args;
  if (typeof n !== "number") throw new Error("u32le(n)");
  const out = new Uint8Array(TIME_BYTES);
  new DataView(out.buffer).setUint32(0, n >>> 0, true);
  return out;
}

/** Indexed-at seconds of leaves [0, count) of a pool; zero where a leaf had no metadata. */
export function readLeafTimes(pages: PageReader, poolId: number, count: number): Uint32Array {
  const bytes = new Uint8Array(count * TIME_BYTES);
  pages.readInto(timePage(poolId), 0, bytes);
  const view = new DataView(bytes.buffer);
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) out[i] = view.getUint32(i * TIME_BYTES, true);
  return out;
}
