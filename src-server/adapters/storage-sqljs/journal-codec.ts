import { crc32 } from "./crc32";
import type { SqlStatement, SqlValue } from "./types";

/*
 * Record = u32 bodyLength | u32 crc32(body) | body, little endian.
 * body   = u8 format | u64 seq | u32 statementCount | statement*
 * stmt   = u32 sqlBytes | utf8 sql | u32 paramCount | param*
 * param  = u8 tag | payload (none, i32, f64, u32 len + utf8, u32 len + raw bytes)
 * The CRC covers the body only; a damaged length either points past the end
 * (torn) or frames a body whose CRC fails (corrupt), so both are caught.
 */
export const RECORD_HEADER_BYTES = 8;
const FORMAT_V1 = 1;
const BODY_FIXED_BYTES = 1 + 8 + 4;
/** Far above any sane batch; rejects a garbage length before we try to slice gigabytes. */
const MAX_BODY_BYTES = 1 << 30;

const enum Tag {
  Null = 0,
  Int32 = 1,
  Float64 = 2,
  Text = 3,
  Blob = 4,
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: false });

/**
 * Lone surrogates would be replaced by U+FFFD here but passed through by
 * sql.js when binding, so the live row and the replayed row would differ.
 */
function encodeText(s: string, where: string): Uint8Array {
  if (!(s as unknown as { isWellFormed(): boolean }).isWellFormed()) throw new TypeError(`${where}: string contains a lone surrogate`);
  return utf8.encode(s);
}

type EncodedParam = { tag: Tag.Null } | { tag: Tag.Int32 | Tag.Float64; n: number } | { tag: Tag.Text | Tag.Blob; bytes: Uint8Array };

function encodeParam(v: unknown, where: string): EncodedParam {
  if (v === null) return { tag: Tag.Null };
  if (typeof v === "number") {
    // Same int/double split sql.js uses when binding, so replay binds identically.
    return v === (v | 0) ? { tag: Tag.Int32, n: v } : { tag: Tag.Float64, n: v };
  }
  if (typeof v === "string") return { tag: Tag.Text, bytes: encodeText(v, where) };
  if (v instanceof Uint8Array) return { tag: Tag.Blob, bytes: v };
  throw new TypeError(`${where}: unsupported parameter type ${v === undefined ? "undefined" : typeof v}`);
}

function paramBytes(p: EncodedParam): number {
  switch (p.tag) {
    case Tag.Null:
      return 1;
    case Tag.Int32:
      return 5;
    case Tag.Float64:
      return 9;
    default:
      return 5 + p.bytes.length;
  }
}

/**
 * Encodes a batch into a complete record with seq 0 and no CRC; `sealRecord`
 * fills both once the batch has committed. Encoding first also validates
 * parameter types before anything touches the database.
 */
export function encodeRecord(statements: readonly SqlStatement[]): Uint8Array {
  const encoded = statements.map((s, i) => {
    if (typeof s.sql !== "string") throw new TypeError(`statement ${i}: sql must be a string`);
    const params = (s.params ?? []).map((v, j) => encodeParam(v, `statement ${i} parameter ${j}`));
    return { sql: encodeText(s.sql, `statement ${i} sql`), params };
  });
  let size = RECORD_HEADER_BYTES + BODY_FIXED_BYTES;
  for (const s of encoded) {
    size += 8 + s.sql.length;
    for (const p of s.params) size += paramBytes(p);
  }
  if (size - RECORD_HEADER_BYTES > MAX_BODY_BYTES) throw new RangeError("write batch too large for one journal record");

  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, size - RECORD_HEADER_BYTES, true);
  out[RECORD_HEADER_BYTES] = FORMAT_V1;
  view.setUint32(RECORD_HEADER_BYTES + 9, encoded.length, true);
  let o = RECORD_HEADER_BYTES + BODY_FIXED_BYTES;
  for (const s of encoded) {
    view.setUint32(o, s.sql.length, true);
    out.set(s.sql, o + 4);
    o += 4 + s.sql.length;
    view.setUint32(o, s.params.length, true);
    o += 4;
    for (const p of s.params) {
      out[o++] = p.tag;
      if ("bytes" in p) {
        view.setUint32(o, p.bytes.length, true);
        out.set(p.bytes, o + 4);
        o += 4 + p.bytes.length;
      } else if (p.tag === Tag.Int32) {
        view.setInt32(o, p.n, true);
        o += 4;
      } else if (p.tag === Tag.Float64) {
        view.setFloat64(o, p.n, true);
        o += 8;
      }
    }
  }
  return out;
}

export function sealRecord(record: Uint8Array, seq: number): void {
  const view = new DataView(record.buffer, record.byteOffset, record.byteLength);
  view.setUint32(RECORD_HEADER_BYTES + 1, seq % 2 ** 32, true);
  view.setUint32(RECORD_HEADER_BYTES + 5, Math.floor(seq / 2 ** 32), true);
  view.setUint32(4, crc32(record, RECORD_HEADER_BYTES), true);
}

export interface JournalRecord {
  seq: number;
  statements: SqlStatement[];
}

export interface ScanResult {
  /** Byte offset just past the last intact record; everything after it is a torn or corrupt tail. */
  validEnd: number;
  records: number;
  /** Why scanning stopped before the end of the buffer, if it did. */
  damage: string | null;
}

class Reader {
  private o: number;
  constructor(
    private readonly buf: Uint8Array,
    private readonly view: DataView,
    start: number,
    private readonly end: number,
  ) {
    this.o = start;
  }
  private need(n: number): void {
    if (this.o + n > this.end) throw new Error("record body overrun");
  }
  u8(): number {
    this.need(1);
    return this.buf[this.o++]!;
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.o, true);
    this.o += 4;
    return v;
  }
  i32(): number {
    this.need(4);
    const v = this.view.getInt32(this.o, true);
    this.o += 4;
    return v;
  }
  f64(): number {
    this.need(8);
    const v = this.view.getFloat64(this.o, true);
    this.o += 8;
    return v;
  }
  bytes(n: number): Uint8Array {
    this.need(n);
    const v = this.buf.subarray(this.o, this.o + n);
    this.o += n;
    return v;
  }
  done(): boolean {
    return this.o === this.end;
  }
}

function decodeBody(buf: Uint8Array, view: DataView, start: number, end: number): JournalRecord {
  const r = new Reader(buf, view, start, end);
  const format = r.u8();
  if (format !== FORMAT_V1) throw new Error(`unknown record format ${format}`);
  const seq = r.u32() + r.u32() * 2 ** 32;
  const count = r.u32();
  const statements: SqlStatement[] = [];
  for (let i = 0; i < count; i++) {
    const sql = fromUtf8.decode(r.bytes(r.u32()));
    const nParams = r.u32();
    const params: SqlValue[] = [];
    for (let j = 0; j < nParams; j++) {
      const tag = r.u8();
      switch (tag) {
        case Tag.Null:
          params.push(null);
          break;
        case Tag.Int32:
          params.push(r.i32());
          break;
        case Tag.Float64:
          params.push(r.f64());
          break;
        case Tag.Text:
          params.push(fromUtf8.decode(r.bytes(r.u32())));
          break;
        case Tag.Blob:
          // Copy so callers may keep the value after the file buffer is dropped.
          params.push(r.bytes(r.u32()).slice());
          break;
        default:
          throw new Error(`unknown parameter tag ${tag}`);
      }
    }
    statements.push(nParams > 0 ? { sql, params } : { sql });
  }
  if (!r.done()) throw new Error("trailing bytes in record body");
  return { seq, statements };
}

/**
 * Walks intact records in order. Stops at the first record that is cut short,
 * fails its CRC or does not parse, or that `onRecord` rejects by returning a
 * reason; errors thrown by `onRecord` propagate (they are replay failures, not
 * journal damage).
 */
export function scanJournal(buf: Uint8Array, onRecord: (rec: JournalRecord) => string | null): ScanResult {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let o = 0;
  let records = 0;
  while (o < buf.length) {
    if (buf.length - o < RECORD_HEADER_BYTES) return { validEnd: o, records, damage: "truncated record header" };
    const len = view.getUint32(o, true);
    if (len < BODY_FIXED_BYTES || len > MAX_BODY_BYTES) return { validEnd: o, records, damage: `implausible record length ${len}` };
    const start = o + RECORD_HEADER_BYTES;
    const end = start + len;
    if (end > buf.length) return { validEnd: o, records, damage: "truncated record body" };
    if (crc32(buf, start, end) !== view.getUint32(o + 4, true)) return { validEnd: o, records, damage: "CRC mismatch" };
    let rec: JournalRecord;
    try {
      rec = decodeBody(buf, view, start, end);
    } catch (err) {
      return { validEnd: o, records, damage: `undecodable record: ${(err as Error).message}` };
    }
    const rejected = onRecord(rec);
    if (rejected !== null) return { validEnd: o, records, damage: rejected };
    records++;
    o = end;
  }
  return { validEnd: o, records, damage: null };
}
