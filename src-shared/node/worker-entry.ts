import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

/**
 * How to start a worker thread on `entry` (a module next to its caller: a .ts
 * file when run from sources under tsx or vitest, a .js one in a
 * bundle). A TypeScript entry needs tsx inside the worker thread, and on Node
 * 20 neither an inherited nor an explicit `--import tsx` in the worker's
 * execArgv works (the .ts entry fails with ERR_UNKNOWN_FILE_EXTENSION, or
 * loads untransformed). What works, under `node --import tsx`, `tsx` and
 * vitest alike: strip tsx loader flags from the inherited execArgv and start
 * a two-line ESM bootstrap that registers tsx's loader in the worker itself
 * (tsx/esm/api, resolved by absolute URL, so the working directory does not
 * matter) and then imports the .ts entry.
 */
export function workerSpec(entry: URL): { entry: URL | string; eval: boolean; execArgv: string[] } {
  // Nothing is inherited: Node refuses per-process flags (--expose-gc, …) in workers, and the .ts bootstrap registers tsx itself.
  const execArgv: string[] = [];
  if (!entry.pathname.endsWith(".ts")) return { entry, eval: false, execArgv };
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve("tsx/package.json");
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as { exports?: Record<string, { import?: { default?: string } }> };
  const api = pkg.exports?.["./esm/api"]?.import?.default;
  if (!api) throw new Error("tsx/esm/api not found: cannot start a TypeScript worker");
  const apiUrl = new URL(api, pathToFileURL(pkgPath)).href;
  const code =
    `import(${JSON.stringify(apiUrl)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })` +
    `.catch((e) => { setImmediate(() => { throw e; }); });`;
  return { entry: code, eval: true, execArgv };
}

/** A worker module next to the calling module (`import.meta.url`): its .ts source, or the .js a bundle (out/server for `npm start`, out/main for the desktop app) emits beside itself. scripts/build-server.mjs finds the server's by this call's text. */
export function workerModule(name: string, callerUrl: string): URL {
  return new URL(callerUrl.endsWith(".ts") ? `./${name}.ts` : `./${name}.js`, callerUrl);
}
