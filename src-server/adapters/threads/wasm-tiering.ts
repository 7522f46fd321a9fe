/**
 * WebAssembly modules compiled with a larger tier-up budget than V8's default, for modules the
 * relay's start runs briefly and its traffic runs for long (sql.js, the fast Poseidon).
 *
 * V8 runs a wasm function first as Liftoff code and compiles it again with TurboFan, on its
 * platform threads, once it has used up a budget of executed code (--wasm-tiering-budget,
 * 1,800,000 by default: well under a millisecond of a large function). A start on a 1M-leaf
 * pool runs some 40 statements and parses sql.js's schema once, and hashes ~160 Poseidon pairs,
 * which was enough for TurboFan to compile SQLite's VDBE loop, parser and a few more large
 * functions and the fast Poseidon's hash (0.45 to 0.6 s of CPU on the platform threads, half the
 * start's CPU), for code the start then never ran again. V8 sets a module's budgets when it
 * compiles it, from the flag: so the flag is raised for the compile alone and put back, and
 * every other module (mcl-wasm in the verifier threads, whose proofs want TurboFan soon) keeps
 * the default. With TIERING_BUDGET_FOR_LONG_RUNS a function is compiled by TurboFan after tens
 * of milliseconds of Liftoff time instead (measured: the fast Poseidon's hash after under 1,000
 * hashes), which a relay under load reaches at once. The flag is process-wide: a module another
 * thread compiled in the same moment would get the larger budget too, so only the main thread
 * compiles this way, during the start, and the verifier threads boot after it
 * (src-server/composition/storage.ts, src-server/adapters/verifier-groth16/deferred-verifier.ts).
 */
import { setFlagsFromString } from "node:v8";

/** V8's own --wasm-tiering-budget (`node --v8-options`); wasm-tiering.test.ts checks this Node's. */
export const V8_DEFAULT_TIERING_BUDGET = 1_800_000;
/** The budget of a module the start runs briefly and traffic runs long (a flag is an int: below 2^31). */
export const TIERING_BUDGET_FOR_LONG_RUNS = 1_000_000_000;

/** The process's budget: an operator's `--wasm-tiering-budget` on node's command line, else V8's default. */
export function processTieringBudget(execArgv: readonly string[] = process.execArgv): number {
  let budget = V8_DEFAULT_TIERING_BUDGET;
  for (let i = 0; i < execArgv.length; i++) {
    const m = /^--wasm[-_]tiering[-_]budget(?:=(\d+))?$/.exec(execArgv[i]!);
    if (!m) continue;
    const value = m[1] ?? execArgv[i + 1];
    if (value && /^\d+$/.test(value)) budget = Number(value);
  }
  return budget;
}

/** A compiled WebAssembly.Module, for WebAssembly.Instance or a worker (the server's TypeScript lib has no wasm types). */
export type WasmModule = object;
/** The part of the WebAssembly global used here and by the modules compiled with it. */
const wasm = (
  globalThis as unknown as {
    WebAssembly: { Module: new (bytes: Uint8Array) => WasmModule; Instance: new (module: WasmModule, imports: unknown) => { exports: unknown } };
  }
).WebAssembly;

/** An instance of a module compiled here (the server's TypeScript lib has no wasm types). */
export function instantiateWasm(module: WasmModule, imports: unknown): { exports: unknown } {
  return new wasm.Instance(module, imports);
}

/** A module compiled with the process's own budget, without touching the flag. */
export function compileWasm(bytes: Uint8Array): WasmModule {
  return new wasm.Module(bytes);
}

/** Compiles `bytes` (synchronously: the flag must hold only while V8 builds this module) with `budget` for each of its functions. */
export function compileWithTieringBudget(bytes: Uint8Array, budget: number): WasmModule {
  const restore = processTieringBudget();
  setFlagsFromString(`--wasm-tiering-budget=${budget}`);
  try {
    return new wasm.Module(bytes);
  } finally {
    setFlagsFromString(`--wasm-tiering-budget=${restore}`);
  }
}
