/**
 * Protocol v2's encodings against circomlibjs's Poseidon as an independent
 * oracle: the leaf the pool computes, and extDataHash for a plain withdrawal
 * and a swap.
 */
import { buildPoseidon, type Poseidon } from "circomlibjs";
import { beforeAll, describe, expect, it } from "vitest";
import { bigIntToBytes32, bytesToBigInt } from "../encoding/field";
import type { FieldHasher } from "./hasher";
import { createPoseidonHasher } from "./poseidon-wasm";
import {
  computeChangeLeaf,
  computeExtDataHash,
  computeLeaf,
  computePrecommitment,
  deriveChangeSecrets,
  PUBLIC_SIGNAL_NAMES,
  U64_MAX,
  withdrawalPublicSignals,
} from "./protocol";

let hasher: FieldHasher;
let poseidon: Poseidon;
const P = (xs: bigint[]): bigint => poseidon.F.toObject(poseidon(xs)) as bigint;
const keyField = (k: Uint8Array): bigint => P([bytesToBigInt(k.subarray(0, 16)), bytesToBigInt(k.subarray(16))]);

const MINT = Uint8Array.from({ length: 32 }, (_, i) => 0xf0 - i);
const RELAYER = Uint8Array.from({ length: 32 }, (_, i) => i * 7);
const OUT = Uint8Array.from({ length: 32 }, (_, i) => 0x30 + i);

beforeAll(async () => {
  hasher = await createPoseidonHasher();
  poseidon = await buildPoseidon();
});

describe("protocol v2 leaves", () => {
  it("precommitment = Poseidon(nullifier, secret); leaf = Poseidon(precommitment, amount, mintField)", () => {
    const pre = computePrecommitment(hasher, bigIntToBytes32(11n), bigIntToBytes32(22n));
    expect(bytesToBigInt(pre)).toBe(P([11n, 22n]));
    const leaf = computeLeaf(hasher, pre, 7n, MINT);
    expect(bytesToBigInt(leaf)).toBe(P([P([11n, 22n]), 7n, keyField(MINT)]));
  });
  it("a deposit of 7 cannot produce the leaf of a larger amount", () => {
    const pre = computePrecommitment(hasher, bigIntToBytes32(11n), bigIntToBytes32(22n));
    expect(computeLeaf(hasher, pre, 7n, MINT)).not.toEqual(computeLeaf(hasher, pre, 3_000_000n, MINT));
  });
  it("refuses an amount that is not a u64", () => {
    expect(() => computeLeaf(hasher, new Uint8Array(32), U64_MAX + 1n, MINT)).toThrow(RangeError);
  });
});

describe("extDataHash = Poseidon(relayer, fee, outputMint, minOut)", () => {
  it("uses 0 and 0 for a plain withdrawal", () => {
    const h = computeExtDataHash(hasher, { relayer: RELAYER, fee: 2_500n, swap: null });
    expect(bytesToBigInt(h)).toBe(P([keyField(RELAYER), 2_500n, 0n, 0n]));
  });
  it("binds a swap's output mint and minimum", () => {
    const h = computeExtDataHash(hasher, { relayer: RELAYER, fee: 2_500n, swap: { outputMint: OUT, minOut: 999n } });
    expect(bytesToBigInt(h)).toBe(P([keyField(RELAYER), 2_500n, keyField(OUT), 999n]));
  });
  it("changes with every term", () => {
    const base = { relayer: RELAYER, fee: 2_500n, swap: { outputMint: OUT, minOut: 999n } };
    const h = (t: typeof base) => bytesToBigInt(computeExtDataHash(hasher, t));
    const all = [
      h(base),
      h({ ...base, fee: 2_501n }),
      h({ ...base, relayer: OUT }),
      h({ ...base, swap: { outputMint: MINT, minOut: 999n } }),
      h({ ...base, swap: { outputMint: OUT, minOut: 998n } }),
    ];
    expect(new Set(all).size).toBe(all.length);
  });
});

describe("withdrawalPublicSignals", () => {
  it("gives the seven signals in the circuit's order, the change commitment last", () => {
    expect(PUBLIC_SIGNAL_NAMES).toEqual(["root", "nullifierHash", "recipient", "amount", "mint", "extDataHash", "changeCommitment"]);
    const root = bigIntToBytes32(5n);
    const nh = bigIntToBytes32(6n);
    const s = withdrawalPublicSignals(hasher, {
      root,
      nullifierHash: nh,
      recipient: OUT,
      amount: 9n,
      mint: MINT,
      terms: { relayer: RELAYER, fee: 1n, swap: null },
      changeCommitment: bigIntToBytes32(77n),
    });
    expect(s.map(bytesToBigInt)).toEqual([5n, 6n, keyField(OUT), 9n, keyField(MINT), P([keyField(RELAYER), 1n, 0n, 0n]), 77n]);
  });
});

describe("change notes (protocol v3)", () => {
  it("a change leaf is Poseidon(changePrecommitment, remaining, mintField, origin), never a deposit leaf of the same inputs", () => {
    const pre = bigIntToBytes32(11n);
    const origin = bigIntToBytes32(12n);
    const change = computeChangeLeaf(hasher, pre, 500n, MINT, origin);
    expect(bytesToBigInt(change)).toBe(P([11n, 500n, keyField(MINT), 12n]));
    expect(bytesToBigInt(change)).not.toBe(bytesToBigInt(computeLeaf(hasher, pre, 500n, MINT)));
    expect(() => computeChangeLeaf(hasher, pre, -1n, MINT, origin)).toThrow(RangeError);
    expect(() => computeChangeLeaf(hasher, pre, 1n << 64n, MINT, origin)).toThrow(RangeError);
  });

  it("derives the change note's secrets as Poseidon(nullifier, secret, 1) and Poseidon(nullifier, secret, 2)", () => {
    const { nullifier, secret } = deriveChangeSecrets(hasher, bigIntToBytes32(3n), bigIntToBytes32(4n));
    expect(bytesToBigInt(nullifier)).toBe(P([3n, 4n, 1n]));
    expect(bytesToBigInt(secret)).toBe(P([3n, 4n, 2n]));
    expect(bytesToBigInt(nullifier)).not.toBe(3n);
  });
});
