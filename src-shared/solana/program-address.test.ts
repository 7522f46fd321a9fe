import { PublicKey } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { isOnEd25519Curve } from "../crypto/ed25519";
import { createProgramAddress, findProgramAddress } from "./program-address";

/** Deterministic bytes, so a failure names its case. */
function bytes(seed: number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s >>> 24;
  }
  return out;
}

/** 32 bytes with y (little-endian) and the sign bit, for the decoding's edge cases. */
function point(y: bigint, sign: boolean): Uint8Array {
  const b = new Uint8Array(32);
  for (let i = 0, v = y; i < 32; i++, v >>= 8n) b[i] = Number(v & 0xffn);
  if (sign) b[31]! |= 0x80;
  return b;
}

describe("program addresses without web3.js", () => {
  it("finds the same address and bump as PublicKey.findProgramAddressSync", () => {
    for (let i = 0; i < 400; i++) {
      const seeds = [bytes(i, i % 33), bytes(i + 1000, 32)];
      const program = bytes(i + 2000, 32);
      const [expected, bump] = PublicKey.findProgramAddressSync(seeds, new PublicKey(program));
      const [address, ours] = findProgramAddress(seeds, program);
      expect([new PublicKey(address).toBase58(), ours], `case ${i}`).toEqual([expected.toBase58(), bump]);
    }
  });

  it("tells on-curve bytes apart as web3.js does, the decoding's edge cases included", () => {
    const p = 2n ** 255n - 19n;
    const cases = [
      ...Array.from({ length: 400 }, (_, i) => bytes(i + 5000, 32)),
      ...[1n, p - 1n, 0n, p, p + 1n, 2n ** 255n - 1n].flatMap((y) => [point(y, false), point(y, true)]),
    ];
    for (const [i, b] of cases.entries()) expect(isOnEd25519Curve(b), `case ${i}`).toBe(PublicKey.isOnCurve(b));
  });

  it("refuses seeds web3.js refuses", () => {
    expect(() => createProgramAddress([new Uint8Array(33)], bytes(1, 32))).toThrow("Max seed length exceeded");
    expect(() =>
      createProgramAddress(
        Array.from({ length: 17 }, () => new Uint8Array(1)),
        bytes(1, 32),
      ),
    ).toThrow("Max seed length exceeded");
  });
});
