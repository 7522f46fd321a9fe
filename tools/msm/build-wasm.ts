/**
 * Compiles the SDK prover's multi-scalar multiplication (src-client/sdk/msm/msm.c
 * with msm-curve.h) to the module the SDK ships prebuilt
 * (resources/zk/msm-bn254.wasm), so proving never needs clang:
 *
 *   npm run gen:msm
 *
 * Same toolchain and flags as the fast Poseidon module (tools/poseidon/build-wasm.ts):
 * clang runs in the source folder on relative paths and the linker strips
 * names, so the output is a pure function of the sources and the compiler
 * version, and src-client/sdk/msm/msm-wasm.test.ts rebuilds it and compares bytes.
 */
import { spawnSync } from "node:child_process";
import { chmodSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CLANG_ARGS } from "../poseidon/build-wasm";

export const MSM_SOURCE_DIR = fileURLToPath(new URL("../../src-client/sdk/msm/", import.meta.url));
/** The module the SDK loads (fast-prover.ts's MSM_WASM). */
export const PREBUILT_MSM_WASM = fileURLToPath(new URL("../../resources/zk/msm-bn254.wasm", import.meta.url));

/** Compiles msm.c to `outFile`; throws with clang's output on failure. */
export function compileMsm(outFile: string): void {
  const run = spawnSync("clang", [...CLANG_ARGS, "-o", path.resolve(outFile), "msm.c"], { cwd: MSM_SOURCE_DIR, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`clang failed (${run.error?.message ?? `exit ${run.status}`}):\n${run.stderr}`);
  // wasm-ld marks its output executable; a data file should not be.
  chmodSync(outFile, 0o644);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  compileMsm(PREBUILT_MSM_WASM);
  console.log(`wrote ${PREBUILT_MSM_WASM}`);
}
