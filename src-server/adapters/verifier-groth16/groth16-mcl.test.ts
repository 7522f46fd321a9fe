import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE_FIELD_MODULUS } from "../../core/proof/codec";
import { FIELD_MODULUS, bigIntToBytes32 } from "../../../src-shared/encoding/field";
import { parseVerificationKey, type SnarkjsVerificationKey } from "../../../src-shared/zk/verification-key";
import { Groth16MclVerifier } from "./groth16-mcl";
import { fpFromBigInt, frFromBytesBE, g1FromAffine, initMcl, mcl, twistPointOutsideSubgroup } from "./mcl";
import { loadFixtures, releaseSnarkjs, useSingleThreadedSnarkjs, VKEY_PATH, type FfCurve, type WireCase } from "../../../tests/support/groth16/fixtures";

const q = BASE_FIELD_MODULUS;
const r = FIELD_MODULUS;
const vkJson = (): SnarkjsVerificationKey => JSON.parse(readFileSync(VKEY_PATH, "utf8")) as SnarkjsVerificationKey;

describe("BN254 facts the verifier relies on", () => {
  let curve: FfCurve | undefined;
  beforeAll(async () => {
    curve = await useSingleThreadedSnarkjs();
    await initMcl();
  });
  afterAll(() => releaseSnarkjs(curve));

  it("q and r are the BN polynomials at u = 4965661367192848881, and #E(Fp) = q + 1 - t = r: G1 has cofactor 1", () => {
    const u = 4965661367192848881n;
    expect(36n * u ** 4n + 36n * u ** 3n + 24n * u ** 2n + 6n * u + 1n).toBe(q);
    expect(36n * u ** 4n + 36n * u ** 3n + 18n * u ** 2n + 6n * u + 1n).toBe(r);
    const t = 6n * u ** 2n + 1n; // trace of Frobenius
    expect(q + 1n - t).toBe(r); // every point of E(Fp) but infinity has prime order r: on the curve = in G1
  });

  it("a point on the twist E'(Fp2) need not be in G2: #E' = r(2q - r), and the constructed point is killed by #E' but not by r (checked with ffjavascript)", () => {
    const T = mcl.normalize(twistPointOutsideSubgroup());
    const n = (f: { getStr(base?: number): string }) => BigInt(f.getStr(10));
    const ff = curve!.G2.fromObject([
      [n(T.getX().get_a()), n(T.getX().get_b())],
      [n(T.getY().get_a()), n(T.getY().get_b())],
      [1n, 0n],
    ]);
    expect(curve!.G2.isValid(ff)).toBe(true); // on the twist
    expect(curve!.G2.isZero(curve!.G2.timesScalar(ff, r))).toBe(false); // not of order r
    expect(curve!.G2.isZero(curve!.G2.timesScalar(ff, r * (2n * q - r)))).toBe(true); // the twist's order
  });

  it("verifyOrderG2(true) is effective: G2.isValid() rejects the non-subgroup twist point (and would accept it with the flag off)", () => {
    const T = twistPointOutsideSubgroup();
    expect(T.isValidOrder()).toBe(false);
    expect(T.isValid()).toBe(false);
    mcl.verifyOrderG2(false);
    try {
      expect(T.isValid()).toBe(true); // curve equation only: the hazard the flag closes
    } finally {
      mcl.verifyOrderG2(true);
    }
    expect(T.isValid()).toBe(false);
  });

  it("integers enter mcl exactly: q and r are refused, not reduced", () => {
    expect(() => fpFromBigInt(q)).toThrow();
    expect(() => fpFromBigInt((1n << 256n) - 1n)).toThrow();
    expect(fpFromBigInt(q - 1n).getStr(10)).toBe((q - 1n).toString());
    expect(() => frFromBytesBE(bigIntToBytes32(r))).toThrow();
    expect(frFromBytesBE(bigIntToBytes32(r - 1n)).getStr(10)).toBe((r - 1n).toString());
    expect(g1FromAffine(0n, 0n).isZero()).toBe(false); // (0, 0) with Z = 1 is not infinity, and not on the curve:
    expect(g1FromAffine(0n, 0n).isValid()).toBe(false);
  });
});

describe("Groth16MclVerifier", () => {
  let verifier: Groth16MclVerifier;
  let fixtures: WireCase[];
  beforeAll(async () => {
    verifier = await Groth16MclVerifier.fromFile(VKEY_PATH);
    fixtures = loadFixtures();
  });
  afterAll(() => verifier.close());

  it("accepts the five recorded withdraw proofs (three withdraw, two withdraw_swap) with their public signals", () => {
    expect(fixtures).toHaveLength(5);
    for (const f of fixtures) expect(verifier.verify(f.proof, f.signals)).toBe(true);
  });

  it("rejects a public signal not below r, even where it is r plus the right value", () => {
    const f = fixtures[0]!;
    for (let i = 0; i < 5; i++) {
      const v = BigInt("0x" + Buffer.from(f.signals[i]!).toString("hex"));
      const s = f.signals.slice();
      s[i] = bigIntToBytes32(v + r);
      expect(verifier.verify(f.proof, s)).toBe(false);
    }
  });

  it("rejects the wrong number of public signals", () => {
    const f = fixtures[0]!;
    expect(verifier.verify(f.proof, f.signals.slice(0, 4))).toBe(false);
    expect(verifier.verify(f.proof, [...f.signals, new Uint8Array(32)])).toBe(false);
    expect(verifier.verify(f.proof, [])).toBe(false);
  });

  it("answers false and never throws for malformed arguments and arbitrary bytes", () => {
    const f = fixtures[0]!;
    const junk: unknown[] = [
      undefined,
      null,
      "proof",
      42,
      {},
      [],
      new Uint8Array(255),
      new Uint8Array(257),
      new Uint8Array(0),
      Buffer.from(f.proof).subarray(1),
    ];
    for (const p of junk) expect(verifier.verify(p as Uint8Array, f.signals)).toBe(false);
    const badSignals: unknown[] = [
      undefined,
      null,
      "x",
      [new Uint8Array(31), ...f.signals.slice(1)],
      [new Uint8Array(33), ...f.signals.slice(1)],
      [null, ...f.signals.slice(1)],
      [[1, 2, 3], ...f.signals.slice(1)],
    ];
    for (const s of badSignals) expect(verifier.verify(f.proof, s as Uint8Array[])).toBe(false);
    let seed = 7;
    for (let n = 0; n < 300; n++) {
      const b = new Uint8Array(256);
      for (let i = 0; i < 256; i++) b[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
      expect(verifier.verify(b, f.signals)).toBe(false);
    }
    // A Buffer (a Uint8Array subclass) holding a valid proof is fine.
    expect(
      verifier.verify(
        Buffer.from(f.proof),
        f.signals.map((s) => Buffer.from(s)),
      ),
    ).toBe(true);
  });

  it("does not mutate its inputs", () => {
    const f = fixtures[1]!;
    const p = f.proof.slice();
    const s = f.signals.map((x) => x.slice());
    verifier.verify(p, s);
    expect(p).toEqual(f.proof);
    expect(s).toEqual(f.signals);
  });
});

describe("verification key loading", () => {
  const T = (): string[][] => {
    const t = mcl.normalize(twistPointOutsideSubgroup());
    const s = (f: { getStr(base?: number): string }) => f.getStr(10);
    return [
      [s(t.getX().get_a()), s(t.getX().get_b())],
      [s(t.getY().get_a()), s(t.getY().get_b())],
      ["1", "0"],
    ];
  };
  beforeAll(() => initMcl());

  it("accepts the committed key and rejects keys of another shape", () => {
    expect(parseVerificationKey(vkJson()).ok).toBe(true);
    expect(parseVerificationKey({ ...vkJson(), protocol: "plonk" })).toEqual({ ok: false, error: "protocol plonk is not groth16" });
    expect(parseVerificationKey({ ...vkJson(), curve: "bls12381" }).ok).toBe(false);
    expect(parseVerificationKey({ ...vkJson(), IC: vkJson().IC.slice(1) }).ok).toBe(false);
    expect(parseVerificationKey({ ...vkJson(), nPublic: 4 }).ok).toBe(false);
    expect(parseVerificationKey(null).ok).toBe(false);
  });

  it("refuses a key point off the curve, outside G2, non-affine or with a coordinate >= q", async () => {
    const vk = vkJson();
    const a = vk.vk_alpha_1;
    await expect(Groth16MclVerifier.create({ ...vk, vk_alpha_1: [a[0]!, (BigInt(a[1]!) + 1n).toString(), "1"] })).rejects.toThrow(
      /vk_alpha_1: not on the curve/,
    );
    await expect(Groth16MclVerifier.create({ ...vk, vk_gamma_2: T() })).rejects.toThrow(/vk_gamma_2: not in the order-r subgroup/);
    await expect(Groth16MclVerifier.create({ ...vk, vk_alpha_1: [a[0]!, a[1]!, "2"] })).rejects.toThrow(/not affine/);
    await expect(Groth16MclVerifier.create({ ...vk, vk_alpha_1: [(BigInt(a[0]!) + q).toString(), a[1]!, "1"] })).rejects.toThrow(
      /not below the base field modulus/,
    );
    await expect(Groth16MclVerifier.create({ ...vk, vk_alpha_1: ["-1", a[1]!, "1"] })).rejects.toThrow(/not an integer/);
    await expect(Groth16MclVerifier.create({ ...vk, vk_alpha_1: ["0", "1", "0"] })).rejects.toThrow(/not affine/);
  });
});
