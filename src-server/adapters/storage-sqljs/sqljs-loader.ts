import { createRequire } from "node:module";
import initSqlJs, { type SqlJsStatic } from "sql.js";

let loading: Promise<SqlJsStatic> | null = null;

/** One wasm instance per process: instantiation costs tens of ms and each instance holds its own heap. */
export function loadSqlJs(): Promise<SqlJsStatic> {
  if (!loading) {
    const wasmPath = createRequire(import.meta.url).resolve("sql.js/dist/sql-wasm.wasm");
    loading = initSqlJs({ locateFile: () => wasmPath }).catch((err: unknown) => {
      // Let a later open retry instead of caching the failure forever.
      loading = null;
      throw err;
    });
  }
  return loading;
}
