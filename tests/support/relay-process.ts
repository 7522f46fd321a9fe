import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureServerBuilt, SERVER_ENTRY } from "../../scripts/build-server.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface RelayProcess {
  url: string;
  /** The metrics listener's GET /metrics (no token): a free port unless the test sets RELAY_METRICS_PORT; null when off. */
  metricsUrl: string | null;
  dataDir: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: the crash a power cut or OOM killer delivers. */
  kill9(): Promise<void>;
  cleanup(): void;
}

let built: Promise<unknown> | null = null;

/**
 * The arguments of `node` that run the relay as `npm start` does: the server bundle
 * (out/server/main.js), built first when missing or older than its sources. Built once per
 * test process; test processes building at once each leave a whole bundle (scripts/build-server.mjs).
 */
export async function relayArgs(): Promise<string[]> {
  built ??= ensureServerBuilt();
  await built;
  return [SERVER_ENTRY];
}

/**
 * Starts the relay exactly as operators and black-box tests do (README.md: Running it):
 * the headless entry with RELAY_* variables, port 0, and the `listening on` line.
 */
export async function startRelay(env: Record<string, string> = {}, dataDir?: string): Promise<RelayProcess> {
  const args = await relayArgs();
  const dir = dataDir ?? mkdtempSync(path.join(tmpdir(), "relay-test-"));
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    // The metrics listener on a free port too: parallel relays never meet on its default 9464.
    env: { ...process.env, RELAY_HOST: "127.0.0.1", RELAY_PORT: "0", RELAY_METRICS_PORT: "0", RELAY_DATA_DIR: dir, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`relay did not start within 60 s:\n${out}`)), 60_000);
    const check = (): void => {
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`relay exited with ${code} before listening:\n${out}`));
    });
  });

  // The metrics line goes through the asynchronous JSON log, the `listening on` line straight to
  // stdout: wait for it so that `metricsUrl` is there when startRelay returns.
  const metricsLine = /metrics: GET \/metrics on (\S+) without a token/;
  const metricsOff = (env.RELAY_METRICS_PORT ?? "0") === "off";
  for (let waited = 0; !metricsOff && !metricsLine.test(out) && waited < 10_000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  return {
    url,
    // The start-up log's JSON line `metrics: GET /metrics on HOST:PORT …`, written as the relay starts listening.
    get metricsUrl() {
      const m = /metrics: GET \/metrics on (\S+) without a token/.exec(out);
      return m ? `http://${m[1]}/metrics` : null;
    },
    dataDir: dir,
    child,
    output: () => out,
    stop: async () => {
      child.kill("SIGTERM");
      return exited;
    },
    kill9: async () => {
      child.kill("SIGKILL");
      await exited;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
