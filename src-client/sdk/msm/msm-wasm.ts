/**
 * msm.c's module (resources/zk/msm-bn254.wasm, built by `npm run gen:msm`):
 * BN254 multi-scalar multiplications in G1 and G2 with the inputs and output
 * of ffjavascript's `multiExpAffine`, the points loaded into the module once.
 * The module runs on the calling thread (`openBnMsm`, which takes its bytes,
 * so it runs wherever WebAssembly does) or on a worker thread of its own
 * (msm-thread.ts, msm-worker.ts); both speak to it through `callOn`.
 */

/** The part of the WebAssembly global used here (the SDK's TypeScript lib has no DOM types). */
interface WasmApi {
  instantiate(code: Uint8Array, imports: Record<string, never>): Promise<{ instance: { exports: unknown } }>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/**
 * One call into the module: `input` is copied into scratch memory and `"in"`
 * in args becomes its address, `"out"` the address of outSize scratch bytes
 * answered as `out`. The scratch is released after the call unless `keep`.
 */
export interface MsmCallSpec {
  fn: string;
  args: (number | "in" | "out")[];
  input?: Uint8Array;
  outSize?: number;
  keep?: boolean;
}
export type MsmCall = (spec: MsmCallSpec) => Promise<{ ret: number; out: Uint8Array | null }>;

/** What `callOn` uses of the module's exports. */
interface Exports {
  memory: { buffer: ArrayBuffer };
  msm_alloc(size: number): number;
  msm_mark(): number;
  msm_release(mark: number): void;
  [fn: string]: unknown;
}

/** `MsmCall` on exports in this thread. */
export function callOn(exports: unknown): (spec: MsmCallSpec) => { ret: number; out: Uint8Array | null } {
  const w = exports as Exports;
  const alloc = (size: number): number => {
    const p = w.msm_alloc(size);
    if (p === 0) throw new RangeError(`the MSM module could not allocate ${size} bytes`);
    return p;
  };
  return ({ fn, args, input, outSize, keep }) => {
    const mark = w.msm_mark();
    try {
      const inPtr = input ? alloc(Math.max(input.byteLength, 16)) : 0;
      const outPtr = outSize ? alloc(outSize) : 0;
      // The module grows its memory as sets and scratch need; a grown buffer detaches old views, so views are taken after allocating.
      if (input) new Uint8Array(w.memory.buffer).set(input, inPtr);
      const f = w[fn];
      if (typeof f !== "function") throw new Error(`the MSM module has no ${fn}`);
      const ret = (f as (...a: number[]) => number)(...args.map((a) => (a === "in" ? inPtr : a === "out" ? outPtr : a)));
      const out = outSize ? new Uint8Array(w.memory.buffer).slice(outPtr, outPtr + outSize) : null;
      if (keep) return { ret, out };
      w.msm_release(mark);
      return { ret, out };
    } catch (e) {
      w.msm_release(mark);
      throw e;
    }
  };
}

export type MsmGroup = "G1" | "G2";

/** A point set in the module's memory: the zkey's points, less those at infinity. */
export interface MsmPoints {
  readonly group: MsmGroup;
  /** Points given, i.e. scalars each sum takes. */
  readonly count: number;
  /** Points kept (finite). */
  readonly finite: number;
  readonly handle: number;
}

/** Bytes of one affine point in the zkey's encoding. */
export const POINT_BYTES: Record<MsmGroup, number> = { G1: 64, G2: 128 };

export interface BnMsm {
  /** Copies `points` (affine, Montgomery with R = 2^256, little-endian, zeros for infinity) into the module, for good. */
  load(group: MsmGroup, points: Uint8Array): Promise<MsmPoints>;
  /**
   * Σ scalar_k·P_k: `scalars` holds points.count 32-byte little-endian
   * integers in standard form. The answer is affine in the points' encoding
   * (zeros for infinity). windowBits 0 lets the module choose. With `slice`,
   * only that part of the sum's windows: the parts' answers add up to the sum.
   */
  multiExp(points: MsmPoints, scalars: Uint8Array, windowBits?: number, slice?: MsmSlice): Promise<Uint8Array>;
  /**
   * Copies a zkey's QAP into the module, for good: its coefficient section
   * without the count (nCoef × 44 bytes), and ω (a primitive domainSize-th
   * root of unity) and g (the coset's shift) as ffjavascript Fr elements.
   */
  loadQap(coeffs: Uint8Array, domainSize: number, omega: Uint8Array, g: Uint8Array): Promise<MsmQap>;
  /** The H scalars (domainSize × 32 bytes, standard form) for a witness (32-byte standard-form values). */
  qapH(qap: MsmQap, witness: Uint8Array): Promise<Uint8Array>;
}

/** A QAP in the module's memory. */
export interface MsmQap {
  readonly domainSize: number;
  readonly handle: number;
}

/** Part `part` (from 0) of `parts` of a sum's windows. */
export interface MsmSlice {
  part: number;
  parts: number;
}
const WHOLE: MsmSlice = { part: 0, parts: 1 };

const prefix = (g: MsmGroup): string => (g === "G1" ? "g1" : "g2");

/** The call behind `multiExp`, checked; shared by the async API and the work-sharing loop (msm-share.ts), which calls the module directly. */
export function msmCallSpec(points: MsmPoints, scalars: Uint8Array, windowBits: number, slice: MsmSlice): MsmCallSpec {
  if (scalars.byteLength !== points.count * 32)
    throw new RangeError(`${points.count} points take ${points.count * 32} bytes of scalars, not ${scalars.byteLength}`);
  if (!Number.isInteger(windowBits) || windowBits < 0 || windowBits > 15) throw new RangeError("window bits are 1 to 15, or 0 for the module's choice");
  const { part, parts } = slice;
  if (!Number.isInteger(parts) || !Number.isInteger(part) || parts < 1 || part < 0 || part >= parts)
    throw new RangeError("a slice is part 0 to parts - 1 of parts");
  return {
    fn: `${prefix(points.group)}_msm`,
    args: [points.handle, "in", "out", windowBits, part, parts],
    input: scalars,
    outSize: POINT_BYTES[points.group],
  };
}

/** `multiExp`'s answer from the module's. */
export function msmAnswer({ ret, out }: { ret: number; out: Uint8Array | null }): Uint8Array {
  if (!ret || !out) throw new RangeError("the MSM module ran out of memory");
  return out;
}

/** The module's G1/G2 operations over a way to call it. */
export function bnMsmOver(call: MsmCall): BnMsm {
  return {
    async load(group, points) {
      const size = POINT_BYTES[group];
      if (points.byteLength % size !== 0) throw new RangeError(`${group} points are ${size} bytes each`);
      const count = points.byteLength / size;
      const g = prefix(group);
      const { ret: handle } = await call({ fn: `${g}_reserve`, args: [count], keep: true });
      if (handle === 0) throw new RangeError(`the MSM module could not hold ${count} ${group} points`);
      // The raw points only pass through scratch memory above the set.
      await call({ fn: `${g}_load`, args: [handle, "in", count], input: points });
      const { ret: finite } = await call({ fn: `${g}_set_size`, args: [handle] });
      return { group, count, finite, handle };
    },
    async multiExp(points, scalars, windowBits = 0, slice = WHOLE) {
      return msmAnswer(await call(msmCallSpec(points, scalars, windowBits, slice)));
    },
    async loadQap(coeffs, domainSize, omega, g) {
      const logN = Math.log2(domainSize);
      if (!Number.isInteger(logN) || logN < 1 || logN > 28) throw new RangeError("the QAP domain is a power of 2");
      if (coeffs.byteLength % 44 !== 0 || omega.byteLength !== 32 || g.byteLength !== 32)
        throw new RangeError("QAP coefficients are 44 bytes each, ω and g 32");
      const { ret: handle } = await call({ fn: "qap_reserve", args: [coeffs.byteLength / 44, logN], keep: true });
      if (handle === 0) throw new RangeError(`the MSM module could not hold ${coeffs.byteLength / 44} QAP coefficients`);
      const input = new Uint8Array(coeffs.byteLength + 64);
      input.set(coeffs);
      input.set(omega, coeffs.byteLength);
      input.set(g, coeffs.byteLength + 32);
      const { ret } = await call({ fn: "qap_load", args: [handle, "in"], input });
      if (!ret) throw new RangeError("the QAP's coefficients name rows outside its domain, or ω is not a primitive root of unity");
      return { domainSize, handle };
    },
    async qapH(qap, witness) {
      if (witness.byteLength % 32 !== 0) throw new RangeError("witness values are 32 bytes each");
      const size = qap.domainSize * 32;
      const { ret, out } = await call({ fn: "qap_h", args: [qap.handle, "in", witness.byteLength / 32, "out"], input: witness, outSize: size });
      if (!ret || !out) throw new RangeError("the witness is shorter than the QAP's signals, or the MSM module ran out of memory");
      return out;
    },
  };
}

/** `MsmCall` on the calling thread, synchronously: what the work-sharing loop (msm-share.ts) runs each piece with. */
export type SyncMsmCall = ReturnType<typeof callOn>;

/** A new instance of the module, initialised, and the way to call it on this thread. */
export async function instantiateMsm(code: Uint8Array): Promise<SyncMsmCall> {
  const { instance } = await wasmApi.instantiate(code, {});
  (instance.exports as { msm_init(): void }).msm_init();
  return callOn(instance.exports);
}

/** The module's API over a call on this thread. */
export function bnMsmHere(call: SyncMsmCall): BnMsm {
  return bnMsmOver((spec) => Promise.resolve().then(() => call(spec)));
}

/** The module on the calling thread. */
export async function openBnMsm(code: Uint8Array): Promise<BnMsm> {
  return bnMsmHere(await instantiateMsm(code));
}
