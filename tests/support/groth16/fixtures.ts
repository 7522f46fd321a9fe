/**
 * Test and benchmark helpers: the recorded real proofs in wire form, and the
 * typed slice of snarkjs / ffjavascript the differential test uses as oracle.
 */
import { readFileSync } from "node:fs";
import { buildBn128 } from "ffjavascript";
// @ts-expect-error -- snarkjs ships no type declarations; the slice used here is typed below.
import * as snarkjsUntyped from "snarkjs";
import { encodeProof, fromSnarkjs, type SnarkjsProof } from "../../../src-server/core/proof/codec";
import { bigIntToBytes32, bytesToBigInt } from "../../../src-shared/encoding/field";
import { FIXTURES_PATH, VKEY_PATH, vkeySha256, type FixtureTerms, type ProofFixtures } from "./generate";

export { VKEY_PATH };
export { FIXTURE_CASES, FIXTURE_FEE, FIXTURE_MINT, FIXTURE_NOTE, FIXTURE_OUTPUT_MINT, FIXTURE_RELAYER_SEED, type FixtureTerms } from "./generate";

export interface SnarkjsGroth16 {
  groth16: { verify(vkey: object, publicSignals: string[], proof: SnarkjsProof): Promise<boolean> };
}
export const snarkjs = snarkjsUntyped as unknown as SnarkjsGroth16;

/** ffjavascript's bn128 (the curve snarkjs computes on), the slice the tests use. */
export interface FfCurve {
  terminate(): Promise<void>;
  G2: {
    fromObject(p: bigint[][]): Uint8Array;
    timesScalar(p: Uint8Array, s: bigint): Uint8Array;
    isValid(p: Uint8Array): boolean;
    isZero(p: Uint8Array): boolean;
    toAffine(p: Uint8Array): Uint8Array;
    /** [[x.c0, x.c1], [y.c0, y.c1], [z.c0, z.c1]] */
    toObject(p: Uint8Array): bigint[][];
  };
}

/**
 * snarkjs single-threaded, as the brief measures it: snarkjs picks up
 * globalThis.curve_bn128 instead of building a multi-threaded curve.
 */
export async function useSingleThreadedSnarkjs(): Promise<FfCurve> {
  const curve = (await buildBn128(true)) as unknown as FfCurve;
  (globalThis as { curve_bn128?: unknown }).curve_bn128 = curve;
  return curve;
}
export async function releaseSnarkjs(curve: FfCurve | undefined): Promise<void> {
  (globalThis as { curve_bn128?: unknown }).curve_bn128 = null;
  await curve?.terminate();
}

export interface WireCase {
  label: string;
  proof: Uint8Array;
  signals: Uint8Array[];
  snarkjsProof: SnarkjsProof;
  snarkjsSignals: string[];
  /** The relayer, fee and (swap) output mint and minOut the proof is bound to. */
  terms: FixtureTerms;
}

export function loadFixtures(): WireCase[] {
  const fx = JSON.parse(readFileSync(FIXTURES_PATH, "utf8")) as ProofFixtures;
  if (fx.vkeySha256 !== vkeySha256()) {
    throw new Error(
      "tests/support/groth16/proofs.json was made for another resources/zk/verification_key.json; regenerate: npx tsx tests/support/groth16/generate.ts",
    );
  }
  return fx.proofs.map((p) => ({
    label: p.label,
    proof: encodeProof(fromSnarkjs(p.proof)),
    signals: p.publicSignals.map((s) => bigIntToBytes32(BigInt(s))),
    snarkjsProof: p.proof,
    snarkjsSignals: p.publicSignals,
    terms: p.terms,
  }));
}

export const readVkey = (): object => JSON.parse(readFileSync(VKEY_PATH, "utf8")) as object;

/**
 * The snarkjs form of ANY 256 bytes, without the codec's range check: the
 * eight raw big-endian words as decimal strings, z = 1. (snarkjs reduces a
 * coordinate >= q modulo q; the wire format forbids such encodings.)
 */
export function rawToSnarkjs(bytes: Uint8Array): SnarkjsProof {
  const w = Array.from({ length: 8 }, (_, i) => bytesToBigInt(bytes.subarray(32 * i, 32 * i + 32)).toString());
  return {
    pi_a: [w[0]!, w[1]!, "1"],
    pi_b: [
      [w[3]!, w[2]!],
      [w[5]!, w[4]!],
      ["1", "0"],
    ],
    pi_c: [w[6]!, w[7]!, "1"],
    protocol: "groth16",
    curve: "bn128",
  };
}
