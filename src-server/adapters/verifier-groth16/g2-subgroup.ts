/**
 * Membership of a proof's B in G2, the order-r subgroup of the twist
 * E'(Fp2): y² = x³ + b', b' = 3/(9 + u). The twist has r·(2q − r) points, so
 * "on the twist" is not enough; on points outside G2 the pairing is not the
 * bilinear map Groth16's soundness argument is about.
 *
 * mcl's own check (G2.isValidOrder, or isValid with verifyOrderG2(true)) is a
 * plain multiplication by the 254-bit r: ~0.75 ms here. Scott's test needs a
 * multiplication by the 63-bit BN seed u only (Dai, Lin, Zhao, Zhou, "Fast
 * subgroup membership testings for G1, G2 and GT on pairing-friendly curves",
 * eprint 2022/348, §3 and §5.1; what gnark-crypto's bn254 G2 IsInSubGroup does):
 *
 *     P ∈ G2  ⇔  [u+1]P + ψ([u]P) + ψ²([u]P) = ψ³([2u]P)
 *
 * with ψ = twist ∘ Frobenius ∘ untwist: ψ(x, y) = (x̄·ξ^((q−1)/3), ȳ·ξ^((q−1)/2)),
 * ξ = 9 + u (x̄ the conjugate in Fp2). ~0.4 ms. It is tested against mcl's
 * isValidOrder on subgroup points, random twist points and points with a
 * small-order component (g2-subgroup.test.ts), and self-checked at start.
 *
 * [u]P is computed here by signed double-and-add, NOT by mcl.mul: mcl's G2
 * scalar multiplication uses the GLS endomorphism (ψ acting as [q] on G2) and
 * is wrong for points outside G2 (the test shows it). No code path may hand an
 * unchecked point to mcl.mul.
 */
import { BASE_FIELD_MODULUS } from "../../core/proof/codec";
import { FIELD_MODULUS } from "../../../src-shared/encoding/field";
import { fp2FromBigInts, mcl, twistPointOutsideSubgroup, type Mcl } from "./mcl";

/** The BN254 seed u (q and r are polynomials in it). */
export const BN_SEED = 4965661367192848881n;

const Q = BASE_FIELD_MODULUS;
type F2 = readonly [bigint, bigint];
const mod = (a: bigint): bigint => ((a % Q) + Q) % Q;
const f2mul = (a: F2, b: F2): F2 => [mod(a[0] * b[0] - a[1] * b[1]), mod(a[0] * b[1] + a[1] * b[0])];
function f2pow(a: F2, e: bigint): F2 {
  let acc: F2 = [1n, 0n];
  let base = a;
  for (let k = e; k > 0n; k >>= 1n) {
    if (k & 1n) acc = f2mul(acc, base);
    base = f2mul(base, base);
  }
  return acc;
}

/** ξ^((q−1)/3) and ξ^((q−1)/2) as [c0, c1]: ψ's coefficients on x and y. */
export const PSI_COEFF_X: F2 = f2pow([9n, 1n], (Q - 1n) / 3n);
export const PSI_COEFF_Y: F2 = f2pow([9n, 1n], (Q - 1n) / 2n);

/** u in signed binary (non-adjacent form), most significant digit first: 63 doublings, 24 additions. */
const SEED_NAF: readonly number[] = (() => {
  const digits: number[] = [];
  for (let k = BN_SEED; k > 0n; k >>= 1n) {
    let d = 0;
    if (k & 1n) {
      d = 2 - Number(k & 3n); // +1 or −1
      k -= BigInt(d);
    }
    digits.push(d);
  }
  return digits.reverse();
})();

interface Consts {
  psiX: Mcl.Fp2;
  psiY: Mcl.Fp2;
  bTwist: Mcl.Fp2;
}
let consts: Consts | null = null;
/** mcl objects can exist only after initMcl(); built on first use. */
function c(): Consts {
  consts ??= {
    psiX: fp2FromBigInts(PSI_COEFF_X[0], PSI_COEFF_X[1]),
    psiY: fp2FromBigInts(PSI_COEFF_Y[0], PSI_COEFF_Y[1]),
    bTwist: mcl.div(fp2FromBigInts(3n, 0n), fp2FromBigInts(9n, 1n)),
  };
  return consts;
}

function conj(a: Mcl.Fp2): Mcl.Fp2 {
  const out = new mcl.Fp2();
  out.set_a(a.get_a());
  out.set_b(mcl.neg(a.get_b()));
  return out;
}

/**
 * ψ on any point of E'(Fp2), in mcl's internal (weighted projective)
 * coordinates: conjugation is a field automorphism, so (X̄·cx, Ȳ·cy, Z̄)
 * represents (x̄·cx, ȳ·cy) whatever the weights of Z.
 */
export function psi(p: Mcl.G2): Mcl.G2 {
  const k = c();
  const out = new mcl.G2();
  out.setX(mcl.mul(conj(p.getX()), k.psiX));
  out.setY(mcl.mul(conj(p.getY()), k.psiY));
  out.setZ(conj(p.getZ()));
  return out;
}

/** [u]P by signed double-and-add: correct for every point of E'(Fp2), in G2 or not. */
export function mulBySeed(p: Mcl.G2): Mcl.G2 {
  const neg = mcl.neg(p);
  let acc = p; // the leading NAF digit is 1
  for (let i = 1; i < SEED_NAF.length; i++) {
    acc = mcl.dbl(acc);
    const d = SEED_NAF[i];
    if (d === 1) acc = mcl.add(acc, p);
    else if (d === -1) acc = mcl.add(acc, neg);
  }
  return acc;
}

/** y² = x³ + b' on affine coordinates. */
export function isOnTwist(x: Mcl.Fp2, y: Mcl.Fp2): boolean {
  return mcl.sqr(y).isEqual(mcl.add(mcl.mul(mcl.sqr(x), x), c().bTwist));
}

/** Scott's test; `p` must be on the twist (isOnTwist). The point at infinity passes (callers reject it first). */
export function isInG2(p: Mcl.G2): boolean {
  const up = mulBySeed(p);
  const psi1 = psi(up);
  const psi2 = psi(psi1);
  const lhs = mcl.add(mcl.add(mcl.add(up, p), psi1), psi2);
  const rhs = mcl.dbl(psi(psi2));
  return lhs.isEqual(rhs);
}

/**
 * Start-up check against mcl's own order test and ψ's defining property
 * (ψ acts on G2 as multiplication by q mod r). Throws if anything is off.
 */
export function g2CheckSelfTest(): void {
  const g = mcl.hashAndMapToG2("verifier-groth16 g2 self-test"); // mcl's hash-to-G2 clears the cofactor
  if (!g.isValidOrder() || !isInG2(g)) throw new Error("G2 check: a subgroup point is rejected");
  const qModR = new mcl.Fr();
  qModR.setStr((Q % FIELD_MODULUS).toString(16), 16);
  if (!psi(g).isEqual(mcl.mul(g, qModR))) throw new Error("G2 check: psi is not [q] on G2");
  const t = twistPointOutsideSubgroup();
  if (isInG2(t) || isInG2(mcl.add(g, t))) throw new Error("G2 check: a point outside G2 is accepted");
}
