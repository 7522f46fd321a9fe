import type { LeafKind } from "../../ports/tree-store";
import { CHANGE, UNKNOWN, type CensusRow } from "../storage-rows/console-rows";
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
 * - `kinds-<pool>` (migration 17): per leaf, KIND_RECORD bytes: byte 0 the kind (a deposit
 *   whose amount follows, a deposit of unknown amount, or a change leaf; 0 where a leaf has
 *   no record), then a deposit's amount as a u64 little-endian.
 * Only the first `pools.next_index` leaves of each file are committed.
 */
export const NODE = 32;
export const LEAF_RECORD = 104;
export const MAX_SIGNATURE_BYTES = 95;
const SLOT_AT = 96;
export const TIME_BYTES = 4;
export const KIND_RECORD = 9;
const KIND_NONE = 0;
const KIND_DEPOSIT_UNKNOWN = 1;
const KIND_DEPOSIT = 2;
const KIND_CHANGE = 3;
const U64_MAX = (1n << 64n) - 1n;

export const treePage = (poolId: number, level: number): string => `tree-${poolId}-${level}`;
export const leafPage = (poolId: number): string => `leaves-${poolId}`;
export const timePage = (poolId: number): string => `times-${poolId}`;
export const kindPage = (poolId: number): string => `kinds-${poolId}`;

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

/**
 * Writes one kind record at `at`. An amount outside u64 (no chain or sandbox amount is) is
 * kept as unknown rather than stop the indexer.
 */
export function encodeKindRecord(kind: "deposit" | "change", amount: bigint | null, view: DataView, at: number): void {
  if (kind === "change") {
    view.setUint8(at, KIND_CHANGE);
    view.setBigUint64(at + 1, 0n, true);
  } else if (amount === null || amount < 0n || amount > U64_MAX) {
    view.setUint8(at, KIND_DEPOSIT_UNKNOWN);
    view.setBigUint64(at + 1, 0n, true);
  } else {
    view.setUint8(at, KIND_DEPOSIT);
    view.setBigUint64(at + 1, amount, true);
  }
}

/** The record at `at`, or null where the leaf has none. */
export function decodeKindRecord(view: DataView, at: number): Omit<LeafKind, "leafIndex"> | null {
  if (at + KIND_RECORD > view.byteLength) return null;
  switch (view.getUint8(at)) {
    case KIND_CHANGE:
      return { kind: "change", amount: null };
    case KIND_DEPOSIT:
      return { kind: "deposit", amount: view.getBigUint64(at + 1, true) };
    case KIND_DEPOSIT_UNKNOWN:
      return { kind: "deposit", amount: null };
    default:
      return null;
  }
}

/** Kind records of leaves [from, to) of a pool, as a view over one read of the page file (shorter where it ends). */
export function readKinds(pages: PageReader, poolId: number, from: number, to: number): DataView {
  const bytes = pages.read(kindPage(poolId), from * KIND_RECORD, Math.max(0, to - from) * KIND_RECORD);
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** Whether leaf `i` of a readKinds view is a change leaf. */
export const isChangeRecord = (view: DataView, i: number): boolean =>
  (i + 1) * KIND_RECORD <= view.byteLength && view.getUint8(i * KIND_RECORD) === KIND_CHANGE;

/**
 * SQL function leaf_kind(kind, amount): one record from an indexed_leaves row, for
 * migration 17. Amount text that is not a u64 without leading zeros (never written by the
 * indexer, which writes bigints) reads as unknown, as listLeaves read it from the row.
 */
export function leafKindSql(...args: (number | string | Uint8Array | null)[]): Uint8Array {
  const [kind, amount] = args;
  if (typeof kind !== "string") throw new Error("leaf_kind(kind, amount)");
  const out = new Uint8Array(KIND_RECORD);
  const known = typeof amount === "string" && /^(0|[1-9][0-9]{0,19})$/.test(amount) ? BigInt(amount) : null;
  encodeKindRecord(kind === "change" ? "change" : "deposit", known, new DataView(out.buffer), 0);
  return out;
}

/** 10^0 .. 10^20 as bigints, for a u64's digit count. */
const POW10 = Array.from({ length: 21 }, (_, i) => 10n ** BigInt(i));

/**
 * The census groups (storage-rows/console-rows.ts) of the kind records of leaves
 * [first, first + count): CHANGE, UNKNOWN (a deposit without an amount, or of amount 0)
 * or a deposit's standard bucket, digits × 10 + mantissa (1, 2 or 5), the largest
 * standard amount at or below it; with each group's count, largest amount and last leaf.
 */
export function censusOfKinds(view: DataView, first: number): CensusRow[] {
  const groups = new Map<number, { n: number; largest: bigint | null; last: number }>();
  const add = (bucket: number, amount: bigint | null, leaf: number): void => {
    const g = groups.get(bucket);
    if (!g) groups.set(bucket, { n: 1, largest: amount, last: leaf });
    else {
      g.n++;
      g.last = leaf;
      if (amount !== null && (g.largest === null || amount > g.largest)) g.largest = amount;
    }
  };
  const count = Math.floor(view.byteLength / KIND_RECORD);
  for (let i = 0; i < count; i++) {
    const at = i * KIND_RECORD;
    const tag = view.getUint8(at);
    if (tag === KIND_NONE) continue;
    if (tag === KIND_CHANGE) add(CHANGE, null, first + i);
    else if (tag !== KIND_DEPOSIT) add(UNKNOWN, null, first + i);
    else {
      const amount = view.getBigUint64(at + 1, true);
      if (amount === 0n) {
        add(UNKNOWN, null, first + i);
        continue;
      }
      let digits = 1;
      while (digits < 20 && amount >= POW10[digits]!) digits++;
      const unit = POW10[digits - 1]!;
      add(digits * 10 + (amount >= 5n * unit ? 5 : amount >= 2n * unit ? 2 : 1), amount, first + i);
    }
  }
  return [...groups].map(([bucket, g]) => ({ bucket, n: g.n, largest: g.largest === null ? null : g.largest.toString(), last: g.last }));
}
