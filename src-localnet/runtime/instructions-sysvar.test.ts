import { PublicKey } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { toHex } from "../../src-shared/encoding/bytes";
import { decodeInstructionsSysvar, encodeInstructionsSysvar, setInstructionsSysvarIndex } from "./instructions-sysvar";
import type { CompiledInstruction } from "./types";

const key = (b: number): string => new PublicKey(new Uint8Array(32).fill(b)).toBase58();

const instructions: CompiledInstruction[] = [
  { programId: key(0xaa), accounts: [{ address: key(1), isSigner: true, isWritable: true }], data: Uint8Array.from([9, 8]) },
  {
    programId: key(0xbb),
    accounts: [
      { address: key(2), isSigner: false, isWritable: true },
      { address: key(3), isSigner: false, isWritable: false },
    ],
    data: new Uint8Array(0),
  },
];

describe("the Instructions sysvar (agave's layout)", () => {
  it("count, offsets, then per instruction: account count, (flags, key) each, program id, data length, data; the current index last", () => {
    const data = encodeInstructionsSysvar(instructions, 1);
    const first = 2 + 2 * 2;
    const second = first + 2 + 33 + 32 + 2 + 2;
    const expected =
      "0200" +
      first.toString(16).padStart(2, "0") + "00" +
      second.toString(16).padStart(2, "0") + "00" +
      // instruction 0: one account, signer + writable (3)
      "0100" + "03" + "01".repeat(32) + "aa".repeat(32) + "0200" + "0908" +
      // instruction 1: two accounts, writable (2) and read-only (0), no data
      "0200" + "02" + "02".repeat(32) + "00" + "03".repeat(32) + "bb".repeat(32) + "0000" +
      "0100";
    expect(toHex(data)).toBe(expected);
    expect(data.length).toBe(second + 2 + 2 * 33 + 32 + 2 + 2);
  });

  it("decodes back to the instructions and the current index; the index is rewritten in place", () => {
    const data = encodeInstructionsSysvar(instructions);
    expect(decodeInstructionsSysvar(data)).toEqual({ instructions, currentIndex: 0 });
    setInstructionsSysvarIndex(data, 1);
    expect(decodeInstructionsSysvar(data)?.currentIndex).toBe(1);
  });

  it("refuses truncated data", () => {
    const data = encodeInstructionsSysvar(instructions);
    for (const n of [0, 1, 5, 40, data.length - 3]) expect(decodeInstructionsSysvar(data.subarray(0, n)), String(n)).toBeNull();
  });
});
