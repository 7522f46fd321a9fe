/**
 * msm.c's module (resources/zk/msm-bn254.wasm, built by `npm run gen:msm`):
 * BN254 multi-scalar multiplications in G1 and G2 with the inputs and output
 * of ffjavascript's `multiExpAffine`, the points loaded into the module once.
 * Takes the module's bytes, so it runs wherever WebAssembly does.
 */

interface MsmExports {
  memory: { buffer: ArrayBuffer };
  msm_init(): void;
  msm_alloc(size: number): number;
  msm_mark(): number;
  msm_release(mark: number): void;
  g1_reserve(n: number): number;
  g2_reserve(n: number): number;
  g1_load(h: number, src: number, n: number): void;
  g2_load(h: number, src: number, n: number): void;
  g1_set_size(h: number): number;
  g2_set_size(h: number): number;
  g1_msm(h: number, scalars: number, out: number, windowBits: number): number;
  g2_msm(h: number, scalars: number, out: number, windowBits: number): number;
}
/** The part of the WebAssembly global used here (the SDK's TypeScript lib has no DOM types). */
interface WasmApi {
  instantiate(code: Uint8Array, imports: Record<string, never>): Promise<{ instance: { exports: unknown } }>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

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
  load(group: MsmGroup, points: Uint8Array): MsmPoints;
  /**
   * Σ scalar_k·P_k: `scalars` holds points.count 32-byte little-endian
   * integers in standard form. The answer is affine in the points' encoding
   * (zeros for infinity). windowBits 0 lets the module choose.
   */
  multiExp(points: MsmPoints, scalars: Uint8Array, windowBits?: number): Uint8Array;
}

export async function openBnMsm(code: Uint8Array): Promise<BnMsm> {
  const { instance } = await wasmApi.instantiate(code, {});
  const wasm = instance.exports as MsmExports;
  wasm.msm_init();
  // The module grows its memory as sets and scratch need; a grown buffer detaches old views.
  const bytes = (): Uint8Array => new Uint8Array(wasm.memory.buffer);
  const alloc = (size: number): number => {
    const p = wasm.msm_alloc(size);
    if (p === 0) throw new RangeError(`the MSM module could not allocate ${size} bytes`);
    return p;
  };
  return {
    load(group, points) {
      const size = POINT_BYTES[group];
      if (points.byteLength % size !== 0) throw new RangeError(`${group} points are ${size} bytes each`);
      const count = points.byteLength / size;
      const handle = group === "G1" ? wasm.g1_reserve(count) : wasm.g2_reserve(count);
      if (handle === 0) throw new RangeError(`the MSM module could not hold ${count} ${group} points`);
      // The raw points only pass through: above the set, released once converted.
      const mark = wasm.msm_mark();
      try {
        const src = alloc(points.byteLength);
        bytes().set(points, src);
        if (group === "G1") wasm.g1_load(handle, src, count);
        else wasm.g2_load(handle, src, count);
      } finally {
        wasm.msm_release(mark);
      }
      const finite = group === "G1" ? wasm.g1_set_size(handle) : wasm.g2_set_size(handle);
      return { group, count, finite, handle };
    },
    multiExp(points, scalars, windowBits = 0) {
      if (scalars.byteLength !== points.count * 32)
        throw new RangeError(`${points.count} points take ${points.count * 32} bytes of scalars, not ${scalars.byteLength}`);
      if (!Number.isInteger(windowBits) || windowBits < 0 || windowBits > 15) throw new RangeError("window bits are 1 to 15, or 0 for the module's choice");
      const size = POINT_BYTES[points.group];
      const mark = wasm.msm_mark();
      try {
        const s = alloc(Math.max(scalars.byteLength, 32));
        const out = alloc(size);
        bytes().set(scalars, s);
        const ok = points.group === "G1" ? wasm.g1_msm(points.handle, s, out, windowBits) : wasm.g2_msm(points.handle, s, out, windowBits);
        if (!ok) throw new RangeError("the MSM module ran out of memory");
        return bytes().slice(out, out + size);
      } finally {
        wasm.msm_release(mark);
      }
    },
  };
}
