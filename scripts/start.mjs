#!/usr/bin/env node
// `npm start`: build the console and the server bundle if their sources changed, then
// run the headless relay (out/server/main.js, bundled from src-server/main.ts by
// scripts/build-server.mjs: no TypeScript is transpiled at run time) in a child process
// that inherits stdio and env. Signals are forwarded and the child's exit code becomes
// ours. Prints nothing of its own besides the build summaries (when it builds) and errors.
import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureServerBuilt, newestMtime, SERVER_ENTRY } from "./build-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const consoleIndex = join(root, "out", "console", "index.html");
const consoleConfig = join(root, "vite.console.config.ts");
/** Everything the console bundle is made of (the renderer imports the bridge contract). */
const consoleSources = [join(root, "src-renderer"), consoleConfig, join(root, "src-preload", "api.ts")];

function consoleIsStale() {
  if (!existsSync(consoleIndex)) return true;
  return statSync(consoleIndex).mtimeMs < newestMtime(consoleSources);
}

async function buildConsole() {
  const { build } = await import("vite");
  await build({ configFile: consoleConfig, logLevel: "info" });
}

function runServer() {
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    cwd: root,
    env: process.env,
    stdio: "inherit",
  });
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  const signals = ["SIGTERM", "SIGINT"];
  for (const signal of signals) process.on(signal, forward);
  child.on("error", (err) => {
    console.error(`start: cannot run the server: ${err.message}`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    for (const s of signals) process.off(s, forward);
    if (code !== null) process.exit(code);
    // Killed by a signal: report it the way a shell would.
    process.exit(128 + (constants.signals[signal] ?? 0));
  });
}

try {
  if (consoleIsStale()) await buildConsole();
} catch (err) {
  console.error(`start: the console build failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
try {
  await ensureServerBuilt({ log: (line) => console.log(line) });
} catch (err) {
  console.error(`start: the server build failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
runServer();
