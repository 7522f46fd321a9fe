/**
 * The pool's Groth16 verifier (programs/pool/src/groth16.c) on the real SVM: the
 * groth16-harness program runs it in LiteSVM on the recorded protocol v3 proofs and on
 * every way a proof or its inputs can be wrong. Reasons (groth16.h) come back as
 * custom error 1 + reason.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBn128 } from "ffjavascript";
import { encodeProof, fromSnarkjs, type SnarkjsProof } from "../../src-shared/zk/proof-codec";
import { bigIntToBytes32, bytesToBigInt, FIELD_MODULUS } from "../../src-shared/encoding/field";
import { loadFixtures, type WireCase } from "../../tests/support/groth16/fixtures";
import { BASE_FIELD_MODULUS } from "../../src-shared/zk/proof-codec";
import { initMcl, mcl, twistPointOutsideSubgroup } from "../../src-server/adapters/verifier-groth16/mcl";
import { startHarness, type Harness, type HarnessRun } from "./run-harness";

/** groth16.h's reasons. */
const REASON = {
  inputNotInField: 1,
  coordinateNotInField: 2,
  pairingInput: 6,
  pairingNotOne: 7,
} as const;

const VKEY = JSON.parse(readFileSync(new URL("../../resources/zk/verification_key.json", import.meta.url), "utf8")) as { IC: string[][] };
const V1 = JSON.parse(readFileSync(new URL("../../tests/support/v1-proof.json", import.meta.url), "utf8")) as {
  publicSignals: string[];
  proof: SnarkjsProof;
};

const concat = (proof: Uint8Array, signals: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(256 + 32 * signals.length);
  out.set(proof, 0);
  signals.forEach((s, i) => out.set(s, 256 + 32 * i));
  return out;
};
const flip = (bytes: Uint8Array, at: number): Uint8Array => {
  const out = bytes.slice();
  out[at]! ^= 0x01;
  return out;
};
const word = (bytes: Uint8Array, k: number): bigint => bytesToBigInt(bytes.subarray(32 * k, 32 * k + 32));
/** The proof with 32-byte word k replaced. */
const withWord = (bytes: Uint8Array, k: number, v: bigint): Uint8Array => {
  const out = bytes.slice();
  out.set(bigIntToBytes32(v), 32 * k);
  return out;
};

let h: Harness;
let fixtures: WireCase[];

beforeAll(() => {
  h = startHarness();
  fixtures = loadFixtures();
});

const expectRefused = (run: HarnessRun, reason: number): void => {
  expect(run.ok, run.logs.join("\n")).toBe(false);
  expect(run.custom, run.logs.join("\n")).toBe(1 + reason);
};

describe("groth16_verify in the SVM: the recorded protocol v3 proofs", () => {
  it("verifies all five, within the compute budget the withdrawal leaves it", () => {
    expect(fixtures).toHaveLength(5);
    const units: number[] = [];
    for (const f of fixtures) {
      const run = h.verify(concat(f.proof, f.signals));
      expect(run.ok, `${f.label}\n${run.logs.join("\n")}`).toBe(true);
      units.push(run.verifierUnits!);
    }
    const tx = h.verify(concat(fixtures[0]!.proof, fixtures[0]!.signals)).computeUnits;
    console.log(`groth16_verify: ${units.join(", ")} CU (verifier alone); ${tx} CU for the whole harness transaction`);
    // 7 MUL + 7 ADD + one 4-pair pairing is ~102.9k in syscall fees; the rest must stay small.
    for (const u of units) expect(u).toBeLessThan(105_500);
  });
});

describe("groth16_verify in the SVM: refusals", () => {
  const good = (): WireCase => fixtures[0]!;

  it("a flipped byte in A, in B (each coordinate) or in C: the point leaves the curve", () => {
    const f = good();
    for (const at of [31, 63, 95, 127, 159, 191, 223, 255]) {
      expectRefused(h.verify(concat(flip(f.proof, at), f.signals)), REASON.pairingInput);
    }
  });

  it("each public input changed by one", () => {
    const f = good();
    for (let i = 0; i < 7; i++) {
      const signals = f.signals.slice();
      signals[i] = bigIntToBytes32((bytesToBigInt(signals[i]!) + 1n) % FIELD_MODULUS);
      expectRefused(h.verify(concat(f.proof, signals)), REASON.pairingNotOne);
    }
  });

  it("another fixture's inputs under a valid proof", () => {
    expectRefused(h.verify(concat(fixtures[0]!.proof, fixtures[1]!.signals)), REASON.pairingNotOne);
  });

  it("a public input >= r, even one congruent to the true input (input + r) or r itself", () => {
    const f = good();
    for (let i = 0; i < 7; i++) {
      const signals = f.signals.slice();
      signals[i] = bigIntToBytes32(bytesToBigInt(signals[i]!) + FIELD_MODULUS);
      expectRefused(h.verify(concat(f.proof, signals)), REASON.inputNotInField);
    }
    const signals = f.signals.slice();
    signals[1] = bigIntToBytes32(FIELD_MODULUS);
    expectRefused(h.verify(concat(f.proof, signals)), REASON.inputNotInField);
    signals[1] = new Uint8Array(32).fill(0xff);
    expectRefused(h.verify(concat(f.proof, signals)), REASON.inputNotInField);
  });

  it("a proof coordinate >= q, even the same point's coordinate + q, or q itself", () => {
    const f = good();
    for (let k = 0; k < 8; k++) {
      expectRefused(h.verify(concat(withWord(f.proof, k, word(f.proof, k) + BASE_FIELD_MODULUS), f.signals)), REASON.coordinateNotInField);
    }
    expectRefused(h.verify(concat(withWord(f.proof, 7, BASE_FIELD_MODULUS), f.signals)), REASON.coordinateNotInField);
  });

  it("A off the curve: (1, 1), and (A.x, 0)", () => {
    const f = good();
    const a11 = withWord(withWord(f.proof, 0, 1n), 1, 1n);
    expectRefused(h.verify(concat(a11, f.signals)), REASON.pairingInput);
    expectRefused(h.verify(concat(withWord(f.proof, 1, 0n), f.signals)), REASON.pairingInput);
  });

  it("A sent negated (-A = (A.x, q - A.y)): a point on the curve, but the check fails", () => {
    const f = good();
    const negA = withWord(f.proof, 1, BASE_FIELD_MODULUS - word(f.proof, 1));
    expectRefused(h.verify(concat(negA, f.signals)), REASON.pairingNotOne);
  });

  it("B on the twist but outside G2 (the order-r subgroup): the syscall checks membership, not just the curve equation", async () => {
    await initMcl();
    const t = mcl.normalize(twistPointOutsideSubgroup());
    const n = (f: { getStr(base?: number): string }): bigint => BigInt(f.getStr(10));
    const f = good();
    let p = withWord(f.proof, 2, n(t.getX().get_b()));
    p = withWord(p, 3, n(t.getX().get_a()));
    p = withWord(p, 4, n(t.getY().get_b()));
    p = withWord(p, 5, n(t.getY().get_a()));
    expectRefused(h.verify(concat(p, f.signals)), REASON.pairingInput);
  });

  it("B and C swapped (A | C | B), and A and C swapped", () => {
    const f = good();
    const acb = new Uint8Array(256);
    acb.set(f.proof.subarray(0, 64), 0);
    acb.set(f.proof.subarray(192, 256), 64);
    acb.set(f.proof.subarray(64, 192), 128);
    expectRefused(h.verify(concat(acb, f.signals)), REASON.pairingInput);
    const cba = new Uint8Array(256);
    cba.set(f.proof.subarray(192, 256), 0);
    cba.set(f.proof.subarray(64, 192), 64);
    cba.set(f.proof.subarray(0, 64), 192);
    expectRefused(h.verify(concat(cba, f.signals)), REASON.pairingNotOne);
  });

  it("B in snarkjs's Fp2 order (c0 before c1), not the syscall's", () => {
    const f = good();
    const p = f.proof.slice();
    p.set(f.proof.subarray(64, 96), 96);
    p.set(f.proof.subarray(96, 128), 64);
    p.set(f.proof.subarray(128, 160), 160);
    p.set(f.proof.subarray(160, 192), 128);
    expectRefused(h.verify(concat(p, f.signals)), REASON.pairingInput);
  });

  it("an all-zero proof (every point at infinity)", () => {
    expectRefused(h.verify(concat(new Uint8Array(256), good().signals)), REASON.pairingNotOne);
  });

  it("a real protocol v1 proof with its five signals and a zero sixth and seventh", () => {
    const proof = encodeProof(fromSnarkjs(V1.proof));
    const signals = [...V1.publicSignals.map((s) => bigIntToBytes32(BigInt(s))), new Uint8Array(32), new Uint8Array(32)];
    expectRefused(h.verify(concat(proof, signals)), REASON.pairingNotOne);
  });

  it("a v3 proof with its seventh signal (the change leaf) dropped or zeroed", () => {
    const f = good();
    const zeroed = [...f.signals.slice(0, 6), new Uint8Array(32)];
    expectRefused(h.verify(concat(f.proof, zeroed)), REASON.pairingNotOne);
    const run = h.verify(concat(f.proof, f.signals.slice(0, 6)));
    expect(run.ok).toBe(false);
  });
});

describe("vk_x = IC[0] + sum(input[i] * IC[i + 1]) in the SVM, against ffjavascript", () => {
  type G1 = Uint8Array;
  interface Curve {
    G1: {
      fromObject(p: bigint[]): G1;
      timesScalar(p: G1, s: bigint): G1;
      add(a: G1, b: G1): G1;
      isZero(p: G1): boolean;
      toAffine(p: G1): G1;
      toObject(p: G1): bigint[];
    };
    terminate(): Promise<void>;
  }
  let curve: Curve;
  beforeAll(async () => {
    curve = (await buildBn128(true)) as unknown as Curve;
  });
  afterAll(async () => {
    await curve?.terminate();
  });

  const expected = (inputs: bigint[]): Uint8Array => {
    const ic = VKEY.IC.map((p) => curve.G1.fromObject(p.map((s) => BigInt(s))));
    let acc = ic[0]!;
    inputs.forEach((s, i) => {
      acc = curve.G1.add(acc, curve.G1.timesScalar(ic[i + 1]!, s));
    });
    if (curve.G1.isZero(acc)) return new Uint8Array(64);
    const [x, y] = curve.G1.toObject(curve.G1.toAffine(acc));
    return new Uint8Array([...bigIntToBytes32(x!), ...bigIntToBytes32(y!)]);
  };

  it("matches for real inputs, zero inputs (skipped MULs), one, r - 1 and all zero", () => {
    const real = fixtures[2]!.signals.map(bytesToBigInt);
    const cases: bigint[][] = [
      real,
      [0n, real[1]!, 0n, real[3]!, 0n, real[5]!, 0n],
      [real[0]!, 0n, real[2]!, 0n, real[4]!, 0n, real[6]!],
      [0n, 0n, 0n, 0n, 0n, 0n, 0n],
      [1n, 1n, 1n, 1n, 1n, 1n, 1n],
      [FIELD_MODULUS - 1n, 2n, 0n, 1n, FIELD_MODULUS - 1n, 3n, FIELD_MODULUS - 1n],
    ];
    for (const inputs of cases) {
      const run = h.vkX(inputs.map(bigIntToBytes32));
      expect(run.ok, run.logs.join("\n")).toBe(true);
      expect(Buffer.from(run.returnData).toString("hex"), inputs.join(",")).toBe(Buffer.from(expected(inputs)).toString("hex"));
    }
  });
});
