import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE_FIELD_MODULUS } from "../../core/proof/codec";
import { FIELD_MODULUS } from "../../../src-shared/encoding/field";
import { BN_SEED, g2CheckSelfTest, isInG2, isOnTwist, mulBySeed, psi, PSI_COEFF_X, PSI_COEFF_Y } from "./g2-subgroup";
import { fp2FromBigInts, g2FromAffine, initMcl, mcl, twistPointAt, twistPointOutsideSubgroup, type Mcl } from "./mcl";
import { releaseSnarkjs, useSingleThreadedSnarkjs, type FfCurve } from "../../../tests/support/groth16/fixtures";

const q = BASE_FIELD_MODULUS;
const r = FIELD_MODULUS;
const h = 2n * q - r; // the twist's cofactor: #E'(Fp2) = r·h
const big = (f: { getStr(base?: number): string }): bigint => BigInt(f.getStr(10));

/** Deterministic 256-bit values. */
function prng(seed: bigint): () => bigint {
  let s = seed;
  return () => {
    s = (s * 6364136223846793005n + 1442695040888963407n) % (1n << 256n);
    return s;
  };
}

describe("G2 membership by Scott's test", () => {
  let ff: FfCurve | undefined;
  const toFf = (p: Mcl.G2): Uint8Array => {
    const n = mcl.normalize(p);
    return ff!.G2.fromObject([
      [big(n.getX().get_a()), big(n.getX().get_b())],
      [big(n.getY().get_a()), big(n.getY().get_b())],
      [1n, 0n],
    ]);
  };
  const fromFf = (p: Uint8Array): Mcl.G2 => {
    const [x, y] = ff!.G2.toObject(ff!.G2.toAffine(p));
    return g2FromAffine([x![0]!, x![1]!], [y![0]!, y![1]!]);
  };
  /** [k]P with ffjavascript's generic double-and-add: right for any point of the twist. */
  const ffMul = (p: Mcl.G2, k: bigint): Mcl.G2 => {
    const out = ff!.G2.timesScalar(toFf(p), k);
    return ff!.G2.isZero(out) ? new mcl.G2() : fromFf(out);
  };
  const rand = prng(20260401n);
  /** Random points of E'(Fp2): almost all outside G2. */
  const randomTwistPoints = (n: number): Mcl.G2[] => {
    const out: Mcl.G2[] = [];
    while (out.length < n) {
      const p = twistPointAt(fp2FromBigInts(rand() % q, rand() % q));
      if (p) out.push(p);
    }
    return out;
  };
  const randomFr = (): Mcl.Fr => {
    const f = new mcl.Fr();
    f.setStr((rand() % r).toString(16), 16);
    return f;
  };

  beforeAll(async () => {
    await initMcl();
    ff = await useSingleThreadedSnarkjs();
  });
  afterAll(() => releaseSnarkjs(ff));

  it("uses the published BN254 constants: ψ's coefficients ξ^((q-1)/3), ξ^((q-1)/2) and b' = 3/(9+u) (as in gnark-crypto)", () => {
    expect(PSI_COEFF_X).toEqual([
      21575463638280843010398324269430826099269044274347216827212613867836435027261n,
      10307601595873709700152284273816112264069230130616436755625194854815875713954n,
    ]);
    expect(PSI_COEFF_Y).toEqual([
      2821565182194536844548159561693502659359617185244120367078079554186484126554n,
      3505843767911556378687030309984248845540243509899259641013678093033130930403n,
    ]);
    const b = mcl.div(fp2FromBigInts(3n, 0n), fp2FromBigInts(9n, 1n));
    expect([big(b.get_a()), big(b.get_b())]).toEqual([
      19485874751759354771024239261021720505790618469301721065564631296452457478373n,
      266929791119991161246907387137283842545076965332900288569378510910307636690n,
    ]);
    expect(BN_SEED).toBe(4965661367192848881n);
    expect(() => g2CheckSelfTest()).not.toThrow();
  });

  it("ψ maps the twist to itself and acts on G2 as multiplication by q", () => {
    const qModR = new mcl.Fr();
    qModR.setStr((q % r).toString(16), 16);
    for (let i = 0; i < 5; i++) {
      const g = mcl.mul(mcl.hashAndMapToG2(`g${i}`), randomFr());
      expect(psi(g).isEqual(mcl.mul(g, qModR))).toBe(true);
    }
    for (const p of randomTwistPoints(5)) {
      const n = mcl.normalize(psi(p));
      expect(isOnTwist(n.getX(), n.getY())).toBe(true);
    }
  });

  it("multiplies by the seed correctly on every twist point (checked with ffjavascript), where mcl.mul is wrong outside G2", () => {
    const pts = randomTwistPoints(8);
    for (const p of pts) expect(mulBySeed(p).isEqual(ffMul(p, BN_SEED))).toBe(true);
    // mcl's GLS scalar multiplication: fine in G2, wrong outside it. Never give it an unchecked point.
    const k = 12345678901234567890123456789012345678901234567890n;
    const kFr = new mcl.Fr();
    kFr.setStr(k.toString(16), 16);
    const g = mcl.hashAndMapToG2("in G2");
    expect(mcl.mul(g, kFr).isEqual(ffMul(g, k))).toBe(true);
    expect(pts.some((p) => !mcl.mul(p, kFr).isEqual(ffMul(p, k)))).toBe(true);
  });

  it("agrees with mcl's isValidOrder (and ffjavascript's [r]P = 0) on subgroup points, random twist points and points with a small-order component", () => {
    // h = 10069 · h', so the twist has points of order 10069.
    expect(h % 10069n).toBe(0n);
    const subgroup = Array.from({ length: 40 }, (_, i) => mcl.mul(mcl.hashAndMapToG2(`s${i}`), randomFr()));
    const random = randomTwistPoints(60);
    const order10069 = randomTwistPoints(6)
      .map((p) => ffMul(p, r * (h / 10069n)))
      .filter((p) => !p.isZero());
    expect(order10069.length).toBeGreaterThan(0);
    for (const t of order10069) expect(ff!.G2.isZero(ff!.G2.timesScalar(toFf(t), 10069n))).toBe(true);
    const cofactorOnly = random.slice(0, 10).map((p) => ffMul(p, r)); // order divides h
    const mixed = [...order10069.map((t, i) => mcl.add(subgroup[i]!, t)), ...cofactorOnly.map((t, i) => mcl.add(subgroup[i]!, t))];
    const all = [...subgroup, ...random, ...order10069, ...cofactorOnly, ...mixed, twistPointOutsideSubgroup()];
    let inside = 0;
    for (const p of all) {
      const theirs = p.isValidOrder();
      expect(isInG2(p)).toBe(theirs);
      if (theirs) inside++;
    }
    expect(inside).toBe(subgroup.length);
    // An independent opinion on a sample: ffjavascript's generic [r]P.
    for (const p of [...subgroup.slice(0, 3), ...random.slice(0, 5), ...mixed.slice(0, 3)]) {
      expect(ff!.G2.isZero(ff!.G2.timesScalar(toFf(p), r))).toBe(isInG2(p));
    }
  });
});
