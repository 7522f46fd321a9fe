import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PROGRAM_DATA_HEADER_BYTES, programElfHash } from "../../../src-shared/ceremony/program-hash";

describe("programElfHash", () => {
  it("is the sha256 of the bytes with trailing zero bytes trimmed", () => {
    const elf = Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0]);
    const trimmed = Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]);
    expect(programElfHash(elf)).toBe(createHash("sha256").update(trimmed).digest("hex"));
  });

  it("gives a built .so and its ProgramData account (header, ELF, zero padding) the same hash", () => {
    const so = readFileSync(new URL("../../../programs/pool/pool.so", import.meta.url));
    const account = new Uint8Array(PROGRAM_DATA_HEADER_BYTES + so.length + 10_000);
    account.fill(7, 0, PROGRAM_DATA_HEADER_BYTES);
    account.set(so, PROGRAM_DATA_HEADER_BYTES);
    expect(programElfHash(account.subarray(PROGRAM_DATA_HEADER_BYTES))).toBe(programElfHash(so));
  });

  it("changes when one byte of the program changes", () => {
    const so = new Uint8Array(readFileSync(new URL("../../../programs/pool/pool.so", import.meta.url)));
    const before = programElfHash(so);
    const middle = so.length >> 1;
    so[middle] = so[middle]! ^ 1;
    expect(programElfHash(so)).not.toBe(before);
  });

  it("hashes an all-zero input as the empty input", () => {
    expect(programElfHash(new Uint8Array(64))).toBe(createHash("sha256").digest("hex"));
  });
});
