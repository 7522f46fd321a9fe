/**
 * A Groth16 prover for the withdraw circuit that computes what snarkjs's
 * `groth16.fullProve` computes (same circom witness, same QAP, same zkey
 * sections, the same five multi-scalar multiplications and final
 * combination), without what fullProve pays again on every call:
 * - the circuit's witness calculator (circom wasm) is compiled once per file;
 * - the zkey is read and split into its sections once per file, and its
 *   points and QAP are loaded once into msm.c's module (src-client/sdk/msm),
 *   which computes the H scalars and runs the five MSMs (A, B1, C, H in G1, B2
 *   in G2) at about 2.5x less CPU than ffjavascript (docs/decisions.md);
 * - the bn128 engine (ffjavascript, for the final combination) is built once
 *   per prover; fullProve builds a new one for every proof.
 * Where a second core and worker threads exist (Node), an MSM thread with its
 * own copy of the points shares the five MSMs with the calling thread: each
 * large sum is cut into slices of its windows and each thread takes the next
 * slice as soon as it is free (msm/msm-share.ts), so a busy core only takes
 * fewer, and a slice the thread is slow to finish is summed again here. r and
 * s are uniform in Fr from crypto.getRandomValues (64 bytes reduced mod r).
 * The answer is snarkjs's JSON proof, so the wire encoding and every check
 * behind it are unchanged. It reads its files with node:fs.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { buildBn128 } from "ffjavascript";
import { FIELD_MODULUS } from "../../src-shared/encoding/field";
import { BASE_FIELD_MODULUS, type SnarkjsProof } from "../../src-shared/zk/proof-codec";
import { abandonJob, finishPieces, jobAnswers, jobDone, newShareJob, planShare, provideH, takePieces, type ShareSet, type SharePlan } from "./msm/msm-share";
import type { MsmThread } from "./msm/msm-thread";
import { bnMsmHere, instantiateMsm, type BnMsm, type MsmGroup, type MsmPoints, type MsmQap, type SyncMsmCall } from "./msm/msm-wasm";

const N8 = 32;
/** BN254's base field (coordinates) and scalar field (witness, r, s): the zkey header must name these. */
const Q = BASE_FIELD_MODULUS;
const R = FIELD_MODULUS;
/** msm.c compiled ahead of time (msm-wasm.test.ts rebuilds it with clang and compares bytes); `npm run gen:msm` regenerates it. */
export const MSM_WASM = fileURLToPath(new URL("../../resources/zk/msm-bn254.wasm", import.meta.url));

/** Per-phase times of one proof, in ms (wall clock). */
export interface ProofTimings {
  /** The circom witness, from the input object. */
  witnessMs: number;
  /** From the witness to the affine proof: QAP, FFTs and the five MSMs. */
  proofMs: number;
  qapMs: number;
  msmMs: number;
  /** Slices the MSMs were cut into (5 on one thread), and how many of them the MSM thread summed. */
  slices: number;
  slicesOnThread: number;
}

/** The slice of ffjavascript's bn128 engine used (it ships loose typings). */
/* eslint-disable @typescript-eslint/no-explicit-any -- ffjavascript's field and group elements are untyped byte buffers */
interface Engine {
  Fr: any;
  G1: any;
  G2: any;
  terminate(): Promise<void>;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

interface ProvingKey {
  nVars: number;
  nPublic: number;
  domainSize: number;
  power: number;
  /** Section 4 without its count: (m, row, signal, coefficient) × its count. */
  coeffs: Uint8Array;
  pointsA: Uint8Array;
  pointsB1: Uint8Array;
  pointsB2: Uint8Array;
  pointsC: Uint8Array;
  pointsH: Uint8Array;
  alpha1: unknown;
  beta1: unknown;
  beta2: unknown;
  delta1: unknown;
  delta2: unknown;
}

/**
 * A slice's cost in G1 point additions (~20 µs each here): B2 in 10 slices, H
 * in 7, A and C in 4, B1 in 3, each ~50 ms on an idle core. Small slices bound
 * what the calling thread may wait for, or sum again, at the end; cutting into
 * 5, 16, 28 or 43 slices made no difference to a proof's CPU time beyond the
 * noise (each slice passes over its scalars once more, a few hundred µs).
 */
const PIECE_COST = 2500;

/** The MSM thread of a key: the thread, and the numbers there of the key's sets, in the plan's order. */
interface FarMsm {
  thread: MsmThread;
  sets: number[];
}

/** A zkey's point sets and QAP in this thread's instance of msm.c's module, the plan that shares them, and the MSM thread if any. */
interface KeyMsm {
  near: BnMsm;
  call: SyncMsmCall;
  qap: MsmQap;
  /** This thread's handles, in the plan's order (keySets). */
  sets: MsmPoints[];
  plan: SharePlan;
  far: FarMsm | null;
}

type ThreadModule = typeof import("./msm/msm-thread");

/** The zkey's sets in the order the plan names them: B2 first (the largest), H (its scalars come last), then A, C, B1. */
function keySets(key: ProvingKey): { group: MsmGroup; points: Uint8Array; scalars: ShareSet["scalars"] }[] {
  const all = { witnessOffset: 0 };
  return [
    { group: "G2", points: key.pointsB2, scalars: all },
    { group: "G1", points: key.pointsH, scalars: "h" },
    { group: "G1", points: key.pointsA, scalars: all },
    { group: "G1", points: key.pointsC, scalars: { witnessOffset: (key.nPublic + 1) * N8 } },
    { group: "G1", points: key.pointsB1, scalars: all },
  ];
}

/** Starts an MSM thread and sends it the key's sets, without waiting for either; null when no thread can be made (the prover then uses this one). */
function startFar(threads: ThreadModule, code: Uint8Array, key: ProvingKey): FarMsm | null {
  let thread: MsmThread;
  try {
    thread = threads.startMsmThread(code);
  } catch {
    // e.g. a .ts worker with no tsx to load it: proving on one thread beats failing.
    return null;
  }
  const sent = keySets(key).map((s) => thread.send(s.group, s.points));
  return { thread, sets: sent.map((s) => s.id) };
}

async function loadKeyMsm(code: Uint8Array, key: ProvingKey, c: Engine, threads: ThreadModule | null): Promise<KeyMsm> {
  const call = await instantiateMsm(code);
  const near = bnMsmHere(call);
  // snarkjs's domain root and coset shift (the 2n-th root of unity, or ffjavascript's shift at the largest domain).
  const { Fr } = c;
  const shift = (key.power === Fr.s ? Fr.shift : Fr.w[key.power + 1]) as Uint8Array;
  const described = keySets(key);
  const [qap, ...sets] = await Promise.all([
    near.loadQap(key.coeffs, key.domainSize, Fr.w[key.power] as Uint8Array, shift),
    ...described.map((s) => near.load(s.group, s.points)),
  ]);
  const plan = planShare(
    described.map((s, i) => ({ group: s.group, finite: sets[i]!.finite, scalars: s.scalars })),
    key.nVars * N8,
    key.domainSize * N8,
    threads ? PIECE_COST : Infinity,
  );
  return { near, call, qap: qap as MsmQap, sets: sets as MsmPoints[], plan, far: threads ? startFar(threads, code, key) : null };
}

function le32ToBigInt(b: Uint8Array, off: number): bigint {
  let v = 0n;
  for (let i = 31; i >= 0; i--) v = (v << 8n) | BigInt(b[off + i]!);
  return v;
}

/** The zkey's sections by type (binfileutils layout: "zkey", version, count, then type u32 + size u64 + bytes). */
export function readSections(zkey: Uint8Array): Map<number, Uint8Array> {
  const dv = new DataView(zkey.buffer, zkey.byteOffset, zkey.byteLength);
  if (String.fromCharCode(...zkey.subarray(0, 4)) !== "zkey") throw new Error("not a zkey file");
  const nSections = dv.getUint32(8, true);
  const sections = new Map<number, Uint8Array>();
  let p = 12;
  for (let i = 0; i < nSections; i++) {
    const type = dv.getUint32(p, true);
    const size = Number(dv.getBigUint64(p + 4, true));
    p += 12;
    if (p + size > zkey.byteLength) throw new Error(`zkey section ${type} runs past the end of the file`);
    if (sections.has(type)) throw new Error(`zkey section ${type} appears twice`);
    sections.set(type, zkey.subarray(p, p + size));
    p += size;
  }
  return sections;
}

function parseKey(zkey: Uint8Array, c: Engine): ProvingKey {
  const s = readSections(zkey);
  const sec = (t: number, bytes?: number): Uint8Array => {
    const b = s.get(t);
    if (!b) throw new Error(`zkey has no section ${t}`);
    if (bytes !== undefined && b.byteLength !== bytes) throw new Error(`zkey section ${t} has ${b.byteLength} bytes, not ${bytes}`);
    return b;
  };
  const h1 = sec(1);
  if (new DataView(h1.buffer, h1.byteOffset, h1.byteLength).getUint32(0, true) !== 1) throw new Error("zkey is not groth16");
  const h2 = sec(2);
  const dv = new DataView(h2.buffer, h2.byteOffset, h2.byteLength);
  if (dv.getUint32(0, true) !== 32 || le32ToBigInt(h2, 4) !== Q || dv.getUint32(36, true) !== 32 || le32ToBigInt(h2, 40) !== R) {
    throw new Error("zkey is not over BN254");
  }
  const nVars = dv.getUint32(72, true);
  const nPublic = dv.getUint32(76, true);
  const domainSize = dv.getUint32(80, true);
  const power = Math.log2(domainSize);
  if (!Number.isInteger(power) || power > c.Fr.s) throw new Error("zkey domain size is not a supported power of 2");
  // alpha1, beta1 (64 bytes each), beta2, gamma2 (128), delta1 (64), delta2 (128): affine, Montgomery, little-endian.
  const at = (o: number, n: number): Uint8Array => h2.slice(84 + o, 84 + o + n);
  const coeffs = sec(4);
  const nCoef = new DataView(coeffs.buffer, coeffs.byteOffset, coeffs.byteLength).getUint32(0, true);
  if (coeffs.byteLength !== 4 + nCoef * (12 + N8)) throw new Error("zkey coefficient section has the wrong size");
  return {
    nVars,
    nPublic,
    domainSize,
    power,
    coeffs: coeffs.slice(4),
    pointsA: sec(5, nVars * 64),
    pointsB1: sec(6, nVars * 64),
    pointsB2: sec(7, nVars * 128),
    pointsC: sec(8, (nVars - nPublic - 1) * 64),
    pointsH: sec(9, domainSize * 64),
    alpha1: c.G1.fromRprLEM(at(0, 64), 0),
    beta1: c.G1.fromRprLEM(at(64, 64), 0),
    beta2: c.G2.fromRprLEM(at(128, 128), 0),
    delta1: c.G1.fromRprLEM(at(384, 64), 0),
    delta2: c.G2.fromRprLEM(at(448, 128), 0),
  };
}

type CurveGlobal = { curve_bn128?: unknown };

interface WitnessCalculator {
  calculateWTNSBin(input: object, sanityCheck?: boolean): Promise<Uint8Array>;
}

/** A uniform scalar in [0, r) from 64 bytes of crypto.getRandomValues (bias below 2^-250). */
export function randomScalar(): bigint {
  const bytes = crypto.getRandomValues(new Uint8Array(64));
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v % R;
}

export interface FastProverOptions {
  /**
   * Whether an MSM thread per zkey shares the MSMs with the calling thread.
   * Default: where worker threads exist (Node) and os.availableParallelism()
   * is 2 or more. true asks for it wherever worker threads exist; false
   * proves on the calling thread alone. Without worker threads (a browser)
   * the prover uses the calling thread whatever this says.
   */
  threads?: boolean;
  /** msm.c's prebuilt module (default: resources/zk/msm-bn254.wasm of this repository). */
  msmWasm?: string;
}

type LoadedKey = ProvingKey & { msm: KeyMsm };

/**
 * A prover with its caches: the engine, the parsed zkeys and witness
 * calculators by path, and the MSM modules with each zkey's points. Its
 * MSM threads keep the process alive only while they work; `close()` ends them.
 */
export class FastProver {
  private engine: Promise<Engine> | null = null;
  private readonly keys = new Map<string, Promise<LoadedKey>>();
  private msmCode: Promise<Uint8Array> | null = null;
  private readonly msmThreads = new Set<MsmThread>();
  private readonly calculators = new Map<string, Promise<WitnessCalculator>>();
  private readonly threads: boolean | undefined;
  private threadModule: Promise<ThreadModule | null> | null = null;
  private readonly msmWasm: string;

  constructor(options: FastProverOptions = {}) {
    this.threads = options.threads;
    this.msmWasm = options.msmWasm ?? MSM_WASM;
  }

  /** msm-thread.ts when this prover shares its MSMs with a thread; loaded only then, so that where worker threads are missing nothing fails. */
  private threadsFor(): Promise<ThreadModule | null> {
    this.threadModule ??= (async () => {
      if (this.threads === false) return null;
      try {
        const os = await import("node:os");
        if (this.threads === undefined && os.availableParallelism() < 2) return null;
        return await import("./msm/msm-thread");
      } catch {
        return null;
      }
    })();
    return this.threadModule;
  }

  private curve(): Promise<Engine> {
    this.engine ??= (async () => {
      // ffjavascript hands out (and records) one shared engine in globalThis.curve_bn128, which snarkjs then uses
      // for everything; this prover's engine is its own, so the global is left as found.
      const g = globalThis as CurveGlobal;
      const before = g.curve_bn128 ?? null;
      g.curve_bn128 = null;
      try {
        // One thread: ffjavascript's worker pool made its FFTs slower on a busy machine; the prover's thread is the MSM one.
        return (await buildBn128(true)) as unknown as Engine;
      } finally {
        g.curve_bn128 = before;
      }
    })();
    return this.engine;
  }

  private keyFor(zkeyPath: string): Promise<LoadedKey> {
    let k = this.keys.get(zkeyPath);
    if (!k) {
      k = (async () => {
        this.msmCode ??= readFile(this.msmWasm);
        const [bytes, c, code, threads] = await Promise.all([readFile(zkeyPath), this.curve(), this.msmCode, this.threadsFor()]);
        const key = parseKey(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), c);
        const msm = await loadKeyMsm(code, key, c, threads);
        if (msm.far) this.msmThreads.add(msm.far.thread);
        return { ...key, msm };
      })();
      k.catch(() => this.keys.delete(zkeyPath));
      this.keys.set(zkeyPath, k);
    }
    return k;
  }

  private calculatorFor(wasmPath: string): Promise<WitnessCalculator> {
    let w = this.calculators.get(wasmPath);
    if (!w) {
      w = (async () => {
        // @ts-expect-error -- circom_runtime (snarkjs's witness calculator) ships no type declarations; the slice used is typed above.
        const { WitnessCalculatorBuilder } = (await import("circom_runtime")) as {
          WitnessCalculatorBuilder: (code: Uint8Array) => Promise<WitnessCalculator>;
        };
        return WitnessCalculatorBuilder(await readFile(wasmPath));
      })();
      w.catch(() => this.calculators.delete(wasmPath));
      this.calculators.set(wasmPath, w);
    }
    return w;
  }

  /** Loads (and caches) the engine, the zkey and the witness calculator, so that the next proof pays none of it. */
  async warm(wasmPath: string, zkeyPath: string): Promise<void> {
    await Promise.all([this.keyFor(zkeyPath), this.calculatorFor(wasmPath)]);
  }

  /** The circuit's witness: nVars × 32 bytes, little-endian, standard form. */
  async witness(input: object, wasmPath: string): Promise<Uint8Array> {
    const wc = await this.calculatorFor(wasmPath);
    const asBig: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(input)) asBig[k] = Array.isArray(v) ? v.map((x) => BigInt(x as string)) : BigInt(v as string);
    const wtns = await wc.calculateWTNSBin(asBig, false);
    // wtns: "wtns", version, 2 sections; section 1 = type, size (12), n8, prime (n8), nWitness; section 2 = type, size (12), witness.
    const dv = new DataView(wtns.buffer, wtns.byteOffset, wtns.byteLength);
    const n8 = dv.getUint32(24, true);
    if (n8 !== N8) throw new Error(`witness field elements are ${n8} bytes, not ${N8}`);
    const nWitness = dv.getUint32(28 + n8, true);
    const start = 28 + n8 + 4 + 12;
    return wtns.slice(start, start + nWitness * n8);
  }

  async prove(input: object, wasmPath: string, zkeyPath: string): Promise<{ proof: SnarkjsProof; publicSignals: string[]; timings: ProofTimings }> {
    const [key, c] = await Promise.all([this.keyFor(zkeyPath), this.curve(), this.calculatorFor(wasmPath)]);
    const t0 = performance.now();
    const witness = await this.witness(input, wasmPath);
    const t1 = performance.now();
    const out = await this.fromWitness(c, key, witness);
    const t2 = performance.now();
    const { qapMs, msmMs, slices, slicesOnThread } = out;
    return { proof: out.proof, publicSignals: out.publicSignals, timings: { witnessMs: t1 - t0, proofMs: t2 - t1, qapMs, msmMs, slices, slicesOnThread } };
  }

  private async fromWitness(
    c: Engine,
    key: LoadedKey,
    witness: Uint8Array,
  ): Promise<{ proof: SnarkjsProof; publicSignals: string[] } & Omit<ProofTimings, "witnessMs" | "proofMs">> {
    if (witness.byteLength !== key.nVars * N8) throw new Error(`Invalid witness length. Circuit: ${key.nVars}, witness: ${witness.byteLength / N8}`);
    const { Fr, G1, G2 } = c;
    const t0 = performance.now();
    const sums = await this.multiExps(key, witness);
    // The plan's order: B2, H, A, C, B1; each the sum of its slices, affine in the zkey's encoding.
    const add = (G: Engine["G1"], parts: Uint8Array[]): unknown => parts.reduce((acc: unknown, p) => G.add(acc, G.fromRprLEM(p, 0)), G.zero);
    const piB2 = add(G2, sums.answers[0]!);
    const [resH, piA0, piC0, piB10] = sums.answers.slice(1).map((parts) => add(G1, parts));
    const t2 = performance.now();

    const r = Fr.e(randomScalar());
    const s = Fr.e(randomScalar());
    const piA = G1.add(G1.add(piA0, key.alpha1), G1.timesFr(key.delta1, r));
    const piB = G2.add(G2.add(piB2, key.beta2), G2.timesFr(key.delta2, s));
    const piB1 = G1.add(G1.add(piB10, key.beta1), G1.timesFr(key.delta1, s));
    let piC = G1.add(piC0, resH);
    piC = G1.add(piC, G1.timesFr(piA, s));
    piC = G1.add(piC, G1.timesFr(piB1, r));
    piC = G1.add(piC, G1.timesFr(key.delta1, Fr.neg(Fr.mul(r, s))));

    const a = G1.toObject(G1.toAffine(piA)) as bigint[];
    const b = G2.toObject(G2.toAffine(piB)) as bigint[][];
    const cc = G1.toObject(G1.toAffine(piC)) as bigint[];
    const str = (x: bigint | undefined): string => String(x);
    const proof: SnarkjsProof = {
      pi_a: [str(a[0]), str(a[1]), "1"],
      pi_b: [
        [str(b[0]![0]), str(b[0]![1])],
        [str(b[1]![0]), str(b[1]![1])],
        ["1", "0"],
      ],
      pi_c: [str(cc[0]), str(cc[1]), "1"],
      protocol: "groth16",
      curve: "bn128",
    };
    const publicSignals: string[] = [];
    for (let i = 1; i <= key.nPublic; i++) publicSignals.push(le32ToBigInt(witness, i * N8).toString());
    return { proof, publicSignals, qapMs: sums.qapMs, msmMs: t2 - t0 - sums.qapMs, slices: sums.slices, slicesOnThread: sums.slices - sums.slicesHere };
  }

  /**
   * The five sums' slices for a witness: the MSM thread (if any) starts on
   * the witness slices while this thread computes the H scalars, then both
   * take slices until none is left, and this thread sums again whatever the
   * other has not finished in about a slice's time (msm/msm-share.ts). The
   * proof never awaits the thread: one that died is replaced at the next proof.
   */
  private async multiExps(key: LoadedKey, witness: Uint8Array): Promise<{ answers: Uint8Array[][]; qapMs: number; slices: number; slicesHere: number }> {
    const m = key.msm;
    if (m.far?.thread.failed) await this.replaceFar(m, key);
    const job = newShareJob(m.plan, witness);
    m.far?.thread.share(m.far.sets, job);
    const t0 = performance.now();
    let h: Uint8Array;
    try {
      h = await m.near.qapH(m.qap, witness);
    } catch (e) {
      abandonJob(job);
      throw e;
    }
    const t1 = performance.now();
    provideH(job, h);
    const taken = takePieces(m.call, m.sets, job);
    const perSlice = taken > 0 ? (performance.now() - t1) / taken : t1 - t0;
    const slicesHere = taken + finishPieces(m.call, m.sets, job, perSlice);
    if (!jobDone(job)) throw new Error("the MSMs were left unfinished");
    return { answers: jobAnswers(job), qapMs: t1 - t0, slices: m.plan.pieces.length, slicesHere };
  }

  /** A new MSM thread for a key whose thread failed, or none if it never got as far as starting (another would fail the same way). */
  private async replaceFar(m: KeyMsm, key: LoadedKey): Promise<void> {
    const old = m.far!;
    m.far = null;
    this.msmThreads.delete(old.thread);
    void old.thread.terminate();
    const [threads, code] = await Promise.all([old.thread.answered ? this.threadsFor() : null, this.msmCode]);
    if (!threads || !code || m.far) return;
    m.far = startFar(threads, code, key);
    if (m.far) this.msmThreads.add(m.far.thread);
  }

  /** Ends the worker threads; the next proof starts new ones. */
  async close(): Promise<void> {
    const e = this.engine;
    this.engine = null;
    this.keys.clear();
    const threads = [...this.msmThreads];
    this.msmThreads.clear();
    await Promise.all(threads.map((th) => th.terminate()));
    if (!e) return;
    const g = globalThis as CurveGlobal;
    const before = g.curve_bn128 ?? null;
    await (await e).terminate(); // a threaded engine's terminate clears the global
    g.curve_bn128 = before;
  }
}
