#!/usr/bin/env node
// The relay server as plain JavaScript: src-server/main.ts and the worker threads it
// starts, bundled by esbuild into out/server/. `npm start` and the HTTP tests run
// `node out/server/main.js`, so nothing is transpiled at run time. main.js is a small
// loader that runs server.cjs (the server and the pure-JS packages it uses, one CommonJS
// script) through V8's code cache server.cjs.cache, which the build makes by starting the
// bundle once; the workers are ESM bundles (<name>.js) importing their packages from
// node_modules. `npm run build:server` builds unconditionally; scripts/start.mjs and
// tests/support/relay-process.ts call ensureServerBuilt(), which builds only when a
// source is newer than the bundle (docs/decisions.md: the server bundle, and
// "Start-up: one script through a code cache").
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
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
 * Packages left out of server.cjs and required from node_modules at run time: those that
 * find wasm or data files beside themselves (sql.js, mcl-wasm, snarkjs, ffjavascript,
 * circomlibjs, web-worker), start threads from their own files (thread-stream, behind pino's
 * transports, which the relay does not use), or are optional (pg-native).
 */
const EXTERNAL_PACKAGES = ["sql.js", "mcl-wasm", "snarkjs", "ffjavascript", "circomlibjs", "web-worker", "thread-stream", "pg-native"];

/** The server bundle itself; main.js runs it. */
export const SERVER_SCRIPT = "server.cjs";
/** V8's code cache of SERVER_SCRIPT, made by the build's training start. */
export const SERVER_CODE_CACHE = `${SERVER_SCRIPT}.cache`;

/**
 * main.js: compiles server.cjs with its code cache, so a start deserializes the functions
 * a start runs instead of parsing and compiling them (Node 20 has no module compile cache).
 * A cache V8 refuses (another Node or V8 flags) only costs the compile. With
 * RELAY_CODE_CACHE_OUT set (the build's training start), writes the cache at exit, when it
 * holds every function the start and the stop compiled.
 */
const LOADER = `// Made by scripts/build-server.mjs: runs ${SERVER_SCRIPT} through V8's code cache ${SERVER_CODE_CACHE}.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire, Module } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";

const file = fileURLToPath(new URL("./${SERVER_SCRIPT}", import.meta.url));
let cachedData;
try {
  cachedData = readFileSync(\`\${file}.cache\`);
} catch {
  // No cache (a build whose training start failed): compile from source.
}
// The build wrapped the script as Module.wrap would: no second 4 MB copy of it to build here.
const script = new Script(readFileSync(file, "latin1"), { filename: file, cachedData });
cachedData = undefined;
const out = process.env.RELAY_CODE_CACHE_OUT;
if (out) process.once("exit", () => writeFileSync(out, script.createCachedData()));
const mod = new Module(file);
mod.filename = file;
mod.paths = Module._nodeModulePaths(dirname(file));
script.runInThisContext().call(mod.exports, mod.exports, createRequire(file), mod, file, dirname(file));
`;

/**
 * Makes server.cjs the CommonJS function main.js runs, with the wrapper on line 1 so stack
 * traces and the source map keep their lines, and every character ASCII (esbuild escapes
 * strings but leaves comments as written): V8 then holds the 4 MB source as one byte per
 * character, not two, and main.js reads it as is.
 */
function wrapForLoader(file) {
  const text = readFileSync(file, "utf8").replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  writeFileSync(file, `(function (exports, require, module, __filename, __dirname) { ${text}\n});\n`);
}

/**
 * Starts the new bundle once on a fresh data dir (sandbox networks, the defaults) until it
 * says it is listening, then stops it; its loader writes the code cache on the way out.
 * A failed training start leaves no cache (main.js then compiles from source) and says why.
 */
async function trainCodeCache(dir, log) {
  const dataDir = mkdtempSync(join(tmpdir(), "relay-code-cache-"));
  // The operator's RELAY_* settings are not the training start's (a solana network would need its RPC).
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("RELAY_")));
  Object.assign(env, {
    RELAY_DATA_DIR: dataDir,
    RELAY_HOST: "127.0.0.1",
    RELAY_PORT: "0",
    RELAY_METRICS_PORT: "0",
    RELAY_CODE_CACHE_OUT: join(dir, SERVER_CODE_CACHE),
  });
  try {
    await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [join(dir, "main.js")], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      const onData = (d) => {
        output += d.toString();
        if (/listening on http/.test(output) && child.exitCode === null && !child.killed) child.kill("SIGTERM");
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      child.on("error", reject);
      child.on("exit", (code) => {
        clearTimeout(timer);
        if (code === 0 && existsSync(join(dir, SERVER_CODE_CACHE))) resolve();
        else reject(new Error(`exit ${code}: ${output.slice(-1000)}`));
      });
    });
  } catch (err) {
    log(`server bundle: no code cache, the training start failed (${err instanceof Error ? err.message : String(err)})`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
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
    const common = {
      outdir: tmp,
      bundle: true,
      platform: "node",
      target: "node20",
      // Error messages and logs may print a class's name: keep it when the bundle renames one.
      keepNames: true,
      sourcemap: "linked",
      sourcesContent: false,
      tsconfig: join(root, "tsconfig.node.json"),
      logLevel: "warning",
    };
    // One CommonJS script, so that V8 can cache its code (vm.Script) and a module the server imports
    // only when configured (PostgreSQL, a solana network) is not even loaded otherwise.
    await build({
      ...common,
      entryPoints: { server: join(root, "src-server", "main.ts") },
      outExtension: { ".js": ".cjs" },
      format: "cjs",
      external: EXTERNAL_PACKAGES,
      // Sources find their neighbours (workers, the repository) from import.meta.url: in the bundle, the bundle's own URL.
      define: { "import.meta.url": "__bundle_url" },
      banner: { js: 'var __bundle_url = require("node:url").pathToFileURL(__filename).href;' },
    });
    wrapForLoader(join(tmp, SERVER_SCRIPT));
    // Workers keep their top-level await: ESM, packages from node_modules at run time (as from the sources).
    await build({ ...common, entryPoints: serverWorkerEntries(), format: "esm", packages: "external" });
    writeFileSync(join(tmp, "main.js"), LOADER);
    await trainCodeCache(tmp, log);
    mkdirSync(SERVER_OUT_DIR, { recursive: true });
    const files = readdirSync(tmp).sort((a, b) => Number(a === "main.js") - Number(b === "main.js"));
    for (const f of files) {
      if (f === "main.js") utimesSync(join(tmp, f), started, started);
      renameSync(join(tmp, f), join(SERVER_OUT_DIR, f));
    }
    // What an older layout left (main.js.map before main.js became the loader) would only mislead.
    for (const f of readdirSync(SERVER_OUT_DIR)) if (!files.includes(f)) rmSync(join(SERVER_OUT_DIR, f), { force: true });
    log(`server bundle: ${files.filter((f) => /\.c?js$/.test(f)).join(", ")} in ${relative(root, SERVER_OUT_DIR)}/ (${Math.round(performance.now() - t0)} ms)`);
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
