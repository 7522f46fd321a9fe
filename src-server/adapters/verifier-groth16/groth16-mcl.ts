/**
 * Groth16 verification on BN254 with mcl-wasm, synchronous, for one thread
 * (the worker pool runs it off the event loop).
 *
 * Accepts iff  e(A, B) = e(α, β) · e(vk_x, γ) · e(C, δ),  vk_x = IC₀ + Σ sᵢ·ICᵢ,
 * evaluated as  FE( ML(−A, B) · ML(vk_x, γ) · ML(C, δ) ) = e(−α, β)  with
 * e(−α, β) cached, γ and δ precomputed (line coefficients), and one final
 * exponentiation FE per proof. mcl-wasm's API has a 2-pair multi-Miller loop
 * with precomputed G2 but no 3-pair one, so the three loops run as one 2-pair
 * loop (γ, δ precomputed) and one plain loop on (−A, B). (The wasm also
 * exports an unwrapped mclBn_millerLoopVec; measured, its 3-pair loop without
 * precomputation is no faster, so it is not used.)
 *
 * Rejected (false, never an exception) before any pairing:
 * - anything but exactly 256 bytes; a coordinate not below q (codec);
 * - A or C not on E(Fp): y² = x³ + 3, or the point at infinity. BN254's G1
 *   has cofactor 1 (#E(Fp) = q + 1 − t = r, t = 6u² + 1), so on the curve
 *   means in the order-r group; no extra check exists or is needed;
 * - B not on the twist E'(Fp2): y² = x³ + 3/(9 + u), or not in its order-r
 *   subgroup G2 (#E'(Fp2) = r·(2q − r): most twist points are outside it; the
 *   pairing is not a bilinear map there), or the point at infinity. The
 *   subgroup test is Scott's (g2-subgroup.ts), tested equal to mcl's
 *   isValidOrder and twice as fast; the key's own G2 points get both;
 * - a public signal count other than nPublic, or a signal not a 32-byte
 *   big-endian integer below r.
 * The all-zero encoding (the EIP-197 point at infinity) of A, B or C is not on
 * the curve with Z = 1, and is rejected by an explicit check anyway.
 */
import { readFile } from "node:fs/promises";
import { BASE_FIELD_MODULUS, decodeProof } from "../../core/proof/codec";
import { isCanonicalField } from "../../../src-shared/encoding/field";
import { parseVerificationKey, type SnarkjsVerificationKey } from "../../../src-shared/zk/verification-key";
import { g2CheckSelfTest, isInG2, isOnTwist } from "./g2-subgroup";
import { fp2FromBigInts, frFromBytesBE, g1FromAffine, g2FromAffine, g2FromFp2, initMcl, mcl, type Mcl } from "./mcl";

export async function loadVerificationKey(path: string): Promise<SnarkjsVerificationKey> {
  const parsed = parseVerificationKey(JSON.parse(await readFile(path, "utf8")) as unknown);
  if (!parsed.ok) throw new Error(`${path}: ${parsed.error}`);
  return parsed.value;
}

/** A decimal (or 0x-hex) canonical integer in [0, modulus). */
function coordinate(s: string, what: string): bigint {
  if (!/^(0|[1-9][0-9]*|0x[0-9a-fA-F]+)$/.test(s)) throw new Error(`${what}: not an integer: ${s}`);
  const v = BigInt(s);
  if (v >= BASE_FIELD_MODULUS) throw new Error(`${what}: not below the base field modulus`);
  return v;
}

/** A key point: affine with z = 1, or (G1 only, IC only) the point at infinity z = 0; on the curve and in the group. */
function keyG1(p: string[], what: string, mayBeInfinity: boolean): Mcl.G1 {
  const z = coordinate(p[2]!, `${what}.z`);
  if (z === 0n && mayBeInfinity) return new mcl.G1();
  if (z !== 1n) throw new Error(`${what}: not affine (z = 1)`);
  const pt = g1FromAffine(coordinate(p[0]!, `${what}.x`), coordinate(p[1]!, `${what}.y`));
  if (!pt.isValid() || !pt.isValidOrder()) throw new Error(`${what}: not on the curve`);
  return pt;
}

function keyG2(p: string[][], what: string): Mcl.G2 {
  const c = (i: number, j: number): bigint => coordinate(p[i]![j]!, `${what}[${i}][${j}]`);
  if (c(2, 0) !== 1n || c(2, 1) !== 0n) throw new Error(`${what}: not affine (z = 1)`);
  const pt = g2FromAffine([c(0, 0), c(0, 1)], [c(1, 0), c(1, 1)]);
  // Both order checks, mcl's (inside isValid: initMcl sets verifyOrderG2 and checks it works) and Scott's: a key is loaded once,
  // and a disagreement would be a bug to stop on. (isValidOrder again would be the same multiplication by r a second time.)
  if (!pt.isValid() || !isInG2(pt)) throw new Error(`${what}: not in the order-r subgroup of the twist`);
  return pt;
}

export class Groth16MclVerifier {
  private closed = false;

  private constructor(
    readonly nPublic: number,
    private readonly ic: Mcl.G1[],
    private readonly gammaPre: Mcl.PrecomputedG2,
    private readonly deltaPre: Mcl.PrecomputedG2,
    /** e(−α, β): the right-hand side after moving everything but e(α, β) to the left. */
    private readonly target: Mcl.GT,
  ) {}

  /** Validates every key point (curve, subgroup, canonical coordinates) and precomputes. Throws on a bad key. */
  static async create(vk: SnarkjsVerificationKey): Promise<Groth16MclVerifier> {
    const parsed = parseVerificationKey(vk);
    if (!parsed.ok) throw new Error(parsed.error);
    await initMcl();
    g2CheckSelfTest();
    const alpha = keyG1(vk.vk_alpha_1, "vk_alpha_1", false);
    const beta = keyG2(vk.vk_beta_2, "vk_beta_2");
    const gamma = keyG2(vk.vk_gamma_2, "vk_gamma_2");
    const delta = keyG2(vk.vk_delta_2, "vk_delta_2");
    const ic = vk.IC.map((p, i) => keyG1(p, `IC[${i}]`, true));
    const target = mcl.pairing(mcl.neg(alpha), beta);
    return new Groth16MclVerifier(vk.nPublic, ic, new mcl.PrecomputedG2(gamma), new mcl.PrecomputedG2(delta), target);
  }

  static async fromFile(path: string): Promise<Groth16MclVerifier> {
    return Groth16MclVerifier.create(await loadVerificationKey(path));
  }

  /** true iff the proof verifies for these public signals; false for any malformed input. Never throws. */
  verify(proof: Uint8Array, publicSignals: readonly Uint8Array[]): boolean {
    if (this.closed) throw new Error("Groth16MclVerifier used after close()");
    try {
      return this.verifyOrThrow(proof, publicSignals);
    } catch {
      // Unreachable for any input (problems are answered before mcl sees them); a bug must not turn into acceptance.
      return false;
    }
  }

  private verifyOrThrow(proof: Uint8Array, publicSignals: readonly Uint8Array[]): boolean {
    if (!(proof instanceof Uint8Array) || !Array.isArray(publicSignals)) return false;
    if (publicSignals.length !== this.nPublic) return false;
    for (const s of publicSignals) if (!(s instanceof Uint8Array) || !isCanonicalField(s)) return false;

    const decoded = decodeProof(proof); // length 256, every coordinate < q
    if (!decoded.ok) return false;
    const { a, b, c } = decoded.value;
    if ((a.x | a.y) === 0n || (c.x | c.y) === 0n || (b.x[0] | b.x[1] | b.y[0] | b.y[1]) === 0n) return false; // infinity

    const A = g1FromAffine(a.x, a.y);
    const C = g1FromAffine(c.x, c.y);
    if (!A.isValid() || !C.isValid()) return false; // on E(Fp) = the order-r group (cofactor 1)
    const bx = fp2FromBigInts(b.x[0], b.x[1]);
    const by = fp2FromBigInts(b.y[0], b.y[1]);
    if (!isOnTwist(bx, by)) return false;
    const B = g2FromFp2(bx, by);
    // In G2: Scott's test (g2-subgroup.ts), the same answer as mcl's isValidOrder (tested) in half the time.
    if (!isInG2(B)) return false;

    const n = this.nPublic;
    let vkx = this.ic[0]!;
    if (n > 0) {
      const scalars = publicSignals.map(frFromBytesBE); // each < r: checked above, and mcl rejects otherwise
      vkx = mcl.add(vkx, mcl.mulVec(this.ic.slice(1), scalars));
    }
    const ml = mcl.mul(mcl.millerLoop(mcl.neg(A), B), mcl.precomputedMillerLoop2(vkx, this.gammaPre, C, this.deltaPre));
    return mcl.finalExp(ml).isEqual(this.target);
  }

  /** Frees the precomputed G2 tables (wasm heap); verify() after close() is a bug and throws. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.gammaPre.destroy();
    this.deltaPre.destroy();
  }
}
