import { describe, expect, it } from "vitest";
import { crc32, crc32Js } from "./crc32";
import { encodeRecord, RECORD_HEADER_BYTES, scanJournal, sealRecord, type JournalRecord } from "./journal-codec";
import type { SqlStatement } from "./types";
import { concatBytes } from "../../../src-shared/encoding/bytes";

function sealed(seq: number, statements: SqlStatement[]): Uint8Array {
  const rec = encodeRecord(statements);
  sealRecord(rec, seq);
  return rec;
}

function scanAll(buf: Uint8Array): { records: JournalRecord[]; validEnd: number; damage: string | null } {
  const records: JournalRecord[] = [];
  const r = scanJournal(buf, (rec) => {
    records.push(rec);
    return null;
  });
  return { records, validEnd: r.validEnd, damage: r.damage };
}

describe("crc32", () => {
  it("matches the standard check value for '123456789'", () => {
    expect(crc32(new TextEncoder().encode("123456789"))).toBe(0xcbf43926);
  });

  it("gives the same value natively and in JavaScript (journals written by either read by the other), on whole buffers and slices", () => {
    const bytes = new Uint8Array(70_001).map((_, i) => (i * 131 + (i >> 7)) & 0xff);
    expect(crc32(bytes)).toBe(crc32Js(bytes));
    expect(crc32(bytes, 8, 69_000)).toBe(crc32Js(bytes, 8, 69_000));
    expect(crc32(bytes, 5, 5)).toBe(crc32Js(bytes, 5, 5));
  });
});

describe("journal record codec", () => {
  it("round-trips every parameter type exactly, including the int/double split sql.js binds by", () => {
    const blob = new Uint8Array([0, 1, 2, 255]);
    const stmts: SqlStatement[] = [
      { sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", params: [null, 42, -7, 2 ** 31, 1.5, Number.MAX_SAFE_INTEGER, "héllo ✓ 🎉", blob, ""] },
      { sql: "DELETE FROM t" },
    ];
    const { records, damage } = scanAll(sealed(2 ** 40 + 3, stmts));
    expect(damage).toBeNull();
    expect(records).toEqual([{ seq: 2 ** 40 + 3, statements: stmts }]);
  });

  it("stores blobs as raw bytes, not as text or number arrays", () => {
    const small = encodeRecord([{ sql: "x", params: [new Uint8Array(0)] }]);
    const big = encodeRecord([{ sql: "x", params: [new Uint8Array(10_000)] }]);
    expect(big.length - small.length).toBe(10_000);
  });

  it("rejects parameters sql.js could not replay identically", () => {
    const bad: unknown[] = [undefined, true, 10n, {}, "lone \uD800 surrogate"];
    for (const v of bad) {
      expect(() => encodeRecord([{ sql: "x", params: [v as null] }])).toThrow(TypeError);
    }
  });

  it("stops at a record cut short and reports where the intact prefix ends", () => {
    const a = sealed(1, [{ sql: "a", params: [1] }]);
    const b = sealed(2, [{ sql: "b", params: ["two"] }]);
    for (let cut = 1; cut < b.length; cut++) {
      const { records, validEnd, damage } = scanAll(concatBytes(a, b.subarray(0, cut)));
      expect(records.map((r) => r.seq)).toEqual([1]);
      expect(validEnd).toBe(a.length);
      expect(damage).not.toBeNull();
    }
  });

  it("stops at a record whose bytes were flipped (CRC mismatch)", () => {
    const a = sealed(1, [{ sql: "a" }]);
    const b = sealed(2, [{ sql: "bbbb", params: [3] }]);
    const at = RECORD_HEADER_BYTES + 20;
    b[at] = b[at]! ^ 0x40;
    const { records, validEnd, damage } = scanAll(concatBytes(a, b, sealed(3, [{ sql: "c" }])));
    expect(records.map((r) => r.seq)).toEqual([1]);
    expect(validEnd).toBe(a.length);
    expect(damage).toBe("CRC mismatch");
  });

  it("treats zero-filled or random garbage after the last record as a damaged tail", () => {
    const a = sealed(1, [{ sql: "a" }]);
    for (const junk of [new Uint8Array(4096), Uint8Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) & 0xff)]) {
      const { records, validEnd } = scanAll(concatBytes(a, junk));
      expect(records).toHaveLength(1);
      expect(validEnd).toBe(a.length);
    }
  });
});
