#!/usr/bin/env node
// The relay server as plain JavaScript: src-server/main.ts and the worker threads it
// starts, bundled by esbuild into out/server/ (main.js, one .js per worker, source maps).
// `npm start` and the HTTP tests run `node out/server/main.js`, so nothing is transpiled at
// run time. Packages stay external: the bundle imports them from node_modules as the
// sources do. `npm run build:server` builds unconditionally; scripts/start.mjs and
// tests/support/relay-process.ts call ensureServerBuilt(), which builds only when a
// source is newer than the bundle (docs/decisions.md: the server bundle).
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
export const SERVER_OUT_DIR = join(root, "out", "server");
/** What `npm start` runs; its modification time is when the bundle's sources were read. */
export const SERVER_ENTRY = join(SERVER_OUT_DIR, "main.js");
/** Everything the bundle is made of, or made with. Test files are left out (never bundled). */
const SERVER_SOURCES = [
  join(root, "src-server"),
  join(root, "src-shared"),
  join(root, "package.json"),
  join(root, "tsconfig.base.json"),
  join(root, "tsconfig.node.json"),
  fileURLToPath(import.meta.url),
];

const isTestFile = (name) => /\.test\.[cm]?ts$/.test(name);

/** Newest modification time under the given files and folders (folders count too: a deleted file changes its folder's). */
export function newestMtime(paths) {
  let newest = 0;
  for (const p of paths) {
    if (!existsSync(p)) continue;
    const st = statSync(p);
    newest = Math.max(newest, st.mtimeMs);
    if (!st.isDirectory()) continue;
    for (const entry of readdirSync(p, { withFileTypes: true })) {
      if (!entry.isDirectory() && isTestFile(entry.name)) continue;
      newest = Math.max(newest, newestMtime([join(p, entry.name)]));
    }
  }
  return newest;
}

export function serverIsStale() {
  if (!existsSync(SERVER_ENTRY)) return true;
  return statSync(SERVER_ENTRY).mtimeMs < newestMtime(SERVER_SOURCES);
}

/**
 * The worker threads the server starts: every `workerModule("name", import.meta.url)`
 * (src-server/adapters/threads/worker-entry.ts) names `name.ts` beside its caller, which
 * the bundle must hold as `name.js` beside main.js.
 */
export function serverWorkerEntries() {
  const entries = {};
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = join(dir, entry.name);
      if (entry.isDirectory()) visit(file);
      else if (entry.name.endsWith(".ts") && !isTestFile(entry.name)) {
        for (const m of readFileSync(file, "utf8").matchAll(/\bworkerModule\(\s*"([\w-]+)"/g)) {
          const worker = join(dirname(file), `${m[1]}.ts`);
          if (!existsSync(worker)) throw new Error(`${relative(root, file)} starts worker ${m[1]}, but ${relative(root, worker)} does not exist`);
          if (entries[m[1]] && entries[m[1]] !== worker) throw new Error(`two workers are named ${m[1]}: ${entries[m[1]]} and ${worker}`);
          entries[m[1]] = worker;
        }
      }
    }
  };
  visit(join(root, "src-server"));
  return entries;
}

/**
 * Bundles into a fresh folder beside out/server, then moves each file in with a rename
 * (atomic per file), main.js last, stamped with the time the build started: two processes
 * building at once (two test workers) each leave a whole bundle, and a source saved while
 * esbuild ran leaves the bundle stale.
 */
export async function buildServer({ log = () => {} } = {}) {
  const { build } = await import("esbuild");
  const started = new Date();
  const tmp = join(root, "out", `.server-${process.pid}-${randomBytes(4).toString("hex")}`);
  mkdirSync(tmp, { recursive: true });
  try {
    const t0 = performance.now();
    await build({
      entryPoints: { main: join(root, "src-server", "main.ts"), ...serverWorkerEntries() },
      outdir: tmp,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      // node_modules are imported at run time, from the bundle's folder up (as from the sources).
      packages: "external",
      // Error messages and logs may print a class's name: keep it when the bundle renames one.
      keepNames: true,
      sourcemap: "linked",
      sourcesContent: false,
      tsconfig: join(root, "tsconfig.node.json"),
      logLevel: "warning",
    });
    mkdirSync(SERVER_OUT_DIR, { recursive: true });
    const files = readdirSync(tmp).sort((a, b) => Number(a === "main.js") - Number(b === "main.js"));
    for (const f of files) {
      if (f === "main.js") utimesSync(join(tmp, f), started, started);
      renameSync(join(tmp, f), join(SERVER_OUT_DIR, f));
    }
    log(`server bundle: ${files.filter((f) => f.endsWith(".js")).join(", ")} in ${relative(root, SERVER_OUT_DIR)}/ (${Math.round(performance.now() - t0)} ms)`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Builds the bundle when it is missing or older than a source; true when it built. */
export async function ensureServerBuilt(opts = {}) {
  if (!serverIsStale()) return false;
  await buildServer(opts);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildServer({ log: (line) => console.log(line) });
}
