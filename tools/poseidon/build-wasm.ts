/**
 * Regenerates the fast Poseidon adapter's poseidon-constants.h
 * (src-server/adapters/poseidon-fast) and compiles its poseidon.c to the module the
 * relay ships prebuilt (resources/zk/poseidon-bn254-fast.wasm), so running
 * the relay never needs clang:
 *
 *   npm run gen:poseidon
 *
 * Needs clang and wasm-ld (Debian: clang lld). The output is a pure function
 * of the two sources and the compiler version: clang runs in the adapter's folder on
 * relative paths and the linker strips names, so no path or date gets in, and
 * the adapter's fast-hasher.test.ts rebuilds it and compares bytes.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ADAPTER_DIR, generateConstantsHeader, HEADER_PATH } from "./gen-constants";

/** The module the relay loads (the adapter's PREBUILT_WASM). */
export const PREBUILT_WASM = fileURLToPath(new URL("../../resources/zk/poseidon-bn254-fast.wasm", import.meta.url));

/**
 * No libc, no start function; exports come from export_name attributes.
 * -fno-builtin: without it clang may turn limb-copy loops into memcpy calls, which nothing provides.
 */
export const CLANG_ARGS = ["--target=wasm32", "-O3", "-nostdlib", "-fno-builtin", "-Wl,--no-entry", "-Wl,--strip-all"] as const;

/** Whether clang can link wasm here (CI installs clang, lld and llvm). */
export function haveWasmToolchain(): boolean {
  const probe = (cmd: string): boolean => spawnSync(cmd, ["--version"], { stdio: "ignore" }).status === 0;
  return probe("clang") && probe("wasm-ld");
}

/** Compiles poseidon.c (with the checked-in header) to `outFile`; throws with clang's output on failure. */
export function compileFastPoseidon(outFile: string): void {
  const run = spawnSync("clang", [...CLANG_ARGS, "-o", path.resolve(outFile), "poseidon.c"], { cwd: ADAPTER_DIR, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`clang failed (${run.error?.message ?? `exit ${run.status}`}):\n${run.stderr}`);
  // wasm-ld marks its output executable; a data file should not be.
  chmodSync(outFile, 0o644);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(HEADER_PATH, await generateConstantsHeader());
  compileFastPoseidon(PREBUILT_WASM);
  console.log(`wrote ${HEADER_PATH} and ${PREBUILT_WASM}`);
}
