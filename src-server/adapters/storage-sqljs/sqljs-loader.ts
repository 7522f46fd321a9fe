import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import initSqlJs, { type SqlJsStatic } from "sql.js";
import { compileWithTieringBudget, instantiateWasm, TIERING_BUDGET_FOR_LONG_RUNS, type WasmModule } from "../threads/wasm-tiering";

let loading: Promise<SqlJsStatic> | null = null;
let compiled: WasmModule | null = null;

/**
 * sql.js's wasm, compiled once per process, synchronously, with the tier-up budget of a module
 * the start runs briefly (threads/wasm-tiering.ts: TurboFan compiled SQLite's largest functions
 * at every start otherwise). On the main thread, during the start: the verifier threads boot after it.
 */
function sqlJsModule(): WasmModule {
  compiled ??= compileWithTieringBudget(readFileSync(createRequire(import.meta.url).resolve("sql.js/dist/sql-wasm.wasm")), TIERING_BUDGET_FOR_LONG_RUNS);
  return compiled;
}

/** One wasm instance per process: instantiation costs tens of ms and each instance holds its own heap. */
export function loadSqlJs(): Promise<SqlJsStatic> {
  if (!loading) {
    loading = Promise.resolve()
      .then(() => {
        const module = sqlJsModule();
        // Emscripten's hook: the module compiled above instead of sql.js's own compile of the file. A throw here rejects the init.
        return initSqlJs({
          instantiateWasm(imports, receive) {
            receive(instantiateWasm(module, imports));
            return {};
          },
        });
      })
      .catch((err: unknown) => {
        // Let a later open retry instead of caching the failure forever.
        loading = null;
        throw err;
      });
  }
  return loading;
}
