import { loadConfig } from "../src-server/config/load";
import { startServer } from "../src-server/index";
import type { SecretStore } from "../src-server/ports/secret-store";
import { desktopOperatorToken } from "./operator-token";

/** What the desktop shell needs of a running relay. */
export interface HostedRelay {
  /** The relay's own address, as it printed it (`listening on ...`). */
  url: string;
  /** An address this machine can reach it at (a wildcard bind becomes loopback). */
  apiBase: string;
  /** Where the console is served: `<apiBase>/console/`. */
  consoleUrl: string;
  dataDir: string;
  /** The console token the host holds (handed to its window), or null when only the server's hash exists. */
  operatorToken: string | null;
  stop(): Promise<void>;
}

/**
 * Lifecycle of the one in-process server: start once, stop once, and a stop that
 * arrives while starting waits for the start and then stops. Never restarts after
 * a stop (the app is quitting).
 */
export interface ServerHost<T> {
  start(): Promise<T>;
  stop(): Promise<void>;
  /** The running instance, undefined before it is up and after it is stopped. */
  current(): T | undefined;
}

export function createServerHost<T extends { stop(): Promise<void> }>(start: () => Promise<T>): ServerHost<T> {
  let starting: Promise<T> | undefined;
  let stopping: Promise<void> | undefined;
  let running: T | undefined;
  return {
    start() {
      if (stopping) return Promise.reject(new Error("the relay server has been stopped"));
      starting ??= start().then((instance) => {
        running = instance;
        return instance;
      });
      return starting;
    },
    stop() {
      stopping ??= (async () => {
        if (!starting) return;
        let instance: T;
        try {
          instance = await starting;
        } catch {
          return; // never started: nothing to stop
        }
        running = undefined;
        await instance.stop();
      })();
      return stopping;
    },
    current: () => (stopping ? undefined : running),
  };
}

/** `http://0.0.0.0:8080` is where the server listens, not an address to connect to. */
export function reachableUrl(url: string): string {
  const u = new URL(url);
  if (u.hostname === "0.0.0.0") u.hostname = "127.0.0.1";
  else if (u.hostname === "[::]") u.hostname = "[::1]";
  return u.origin;
}

export interface StartRelayOptions {
  env: NodeJS.ProcessEnv;
  /** The OS app-data folder: the default data dir in desktop mode (README.md: Running it). */
  userDataDir: string;
  /** The built renderer, served by the relay at /console/. */
  consoleDir: string;
  log: (line: string) => void;
  /** Where keys live at rest for a data dir (safeStorage in the desktop app); default the headless files. */
  keyStorage?: (dataDir: string) => { secrets: SecretStore; encrypted: boolean };
}

/** Load the config (env + RELAY_CONFIG, as headless) and start the relay in this process (it logs its config). */
export async function startRelay(opts: StartRelayOptions): Promise<HostedRelay> {
  const loaded = loadConfig(opts.env, { defaultDataDir: opts.userDataDir });
  const keys = opts.keyStorage?.(loaded.dataDir) ?? null;
  const operatorToken = desktopOperatorToken(opts.env, keys);
  // The host's token is the configured one; the config object is frozen, so it is copied.
  const config = operatorToken && !loaded.operatorToken ? { ...loaded, operatorToken } : loaded;
  const server = await startServer(config, { consoleDir: opts.consoleDir, log: opts.log, ...(keys ? { secrets: keys.secrets } : {}) });
  const apiBase = reachableUrl(server.url);
  return {
    url: server.url,
    apiBase,
    consoleUrl: new URL("/console/", apiBase).href,
    dataDir: config.dataDir,
    operatorToken,
    stop: () => server.stop(),
  };
}

/** Minimal view of Electron's `app` for the quit hook (tests pass a stand-in). */
export interface QuittingApp {
  on(event: "before-quit", listener: (event: { preventDefault(): void }) => void): unknown;
  quit(): void;
}

/**
 * Hold the quit until the server has stopped (stop accepting, finish in-flight
 * relays, flush the store), then quit for real. A stop that hangs is abandoned
 * after `timeoutMs` so the app still exits.
 */
export function stopServerBeforeQuit(app: QuittingApp, stop: () => Promise<void>, log: (line: string) => void, timeoutMs = 15_000): void {
  let phase: "running" | "stopping" | "stopped" = "running";
  app.on("before-quit", (event) => {
    if (phase === "stopped") return;
    event.preventDefault();
    if (phase === "stopping") return;
    phase = "stopping";
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        log(`relay did not stop within ${timeoutMs} ms; quitting anyway`);
        resolve();
      }, timeoutMs);
    });
    Promise.race([stop(), timeout])
      .catch((err: unknown) => log(`relay stop failed: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => {
        clearTimeout(timer);
        phase = "stopped";
        app.quit();
      });
  });
}
