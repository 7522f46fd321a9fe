import type { SnarkjsProof } from "../../src-shared/zk/proof-codec";

/**
 * The slice of snarkjs the SDK uses. snarkjs ships no type declarations, and
 * it is loaded only when a proof is built or checked, so that commands which
 * never prove do not pay for it.
 */
export interface SnarkjsGroth16 {
  fullProve(
    input: object,
    wasm: string,
    zkey: string,
    logger?: undefined,
    wtnsCalcOptions?: undefined,
    proverOptions?: { singleThread?: boolean },
  ): Promise<{ proof: SnarkjsProof; publicSignals: string[] }>;
  verify(vkey: object, publicSignals: string[], proof: SnarkjsProof): Promise<boolean>;
}

let loaded: Promise<SnarkjsGroth16> | null = null;

export function loadSnarkjs(): Promise<SnarkjsGroth16> {
  // @ts-expect-error -- snarkjs ships no type declarations; the slice used is typed above.
  loaded ??= import("snarkjs").then((m: { groth16: SnarkjsGroth16 }) => m.groth16);
  return loaded;
}

type CurveGlobal = { curve_bn128?: unknown };

/**
 * Runs `fn` with a single-threaded bn128 curve as snarkjs's shared curve.
 * snarkjs's verify always asks ffjavascript for the shared curve, which is a
 * worker-thread pool unless one is already set; a pool would keep the process
 * alive after the CLI is done. A curve someone else installed is left alone.
 */
export async function withSingleThreadedCurve<T>(fn: () => Promise<T>): Promise<T> {
  const g = globalThis as CurveGlobal;
  if (g.curve_bn128) return fn();
  const { buildBn128 } = await import("ffjavascript");
  const curve = await buildBn128(true);
  g.curve_bn128 = curve;
  try {
    return await fn();
  } finally {
    if (g.curve_bn128 === curve) g.curve_bn128 = null;
    await curve.terminate();
  }
}
