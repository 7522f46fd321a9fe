import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import path from "node:path";
import { describeConfig } from "./config/load";
import type { RelayConfig } from "./config/schema";
import type { SecretStore } from "./ports/secret-store";
import { composeRelay, type ComposeOptions, type Relay } from "./composition/compose-relay";
import { RelayLogger } from "./adapters/log-pino/relay-logger";
import { capConnectionsPerIp } from "./http/connection-cap";
import { TeardownStack } from "./teardown";

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  /** The metrics listener's GET /metrics (no token); null when it is off or its default port was taken. */
  metricsUrl: string | null;
  relay: Relay;
  stop(): Promise<void>;
}

export interface StartOptions {
  consoleDir?: string;
  log?: (line: string) => void;
  /** Where keys live at rest; default files in <dataDir>/keys (the desktop host passes safeStorage). */
  secrets?: SecretStore;
  /** Test seam: see {@link ComposeOptions.afterStep}. */
  afterStep?: ComposeOptions["afterStep"];
}

/** Builds the relay and listens; `stop` drains requests and flushes the store. A start that fails (listening included) closes all it opened. */
export async function startServer(config: RelayConfig, opts: StartOptions = {}): Promise<RunningServer> {
  // JSON lines to stdout (headless) or the host's log (desktop), and to <dataDir>/logs (docs/operations.md, "Logs").
  const logger = new RelayLogger({
    dir: config.logs.file ? path.join(config.dataDir, "logs") : null,
    maxFileBytes: config.logs.maxFileMiB * 1024 * 1024,
    maxFiles: config.logs.maxFiles,
    console: opts.log ?? "stdout",
    secrets: [config.operatorToken, config.jupiter.apiKey, config.alerts.webhook.url].filter((s): s is string => !!s),
  });
  // The log files, the relay and the HTTP server close in reverse order, on stop and on a start that fails.
  const stack = new TeardownStack(opts.log ?? ((line) => console.error(line)));
  stack.defer("log files", () => logger.close());
  try {
    return await listen(config, opts, logger, stack);
  } catch (e) {
    // Nothing a failed start opened outlives it, the port being taken included.
    await stack.close().catch(() => {});
    throw e;
  }
}

async function listen(config: RelayConfig, opts: StartOptions, logger: RelayLogger, stack: TeardownStack): Promise<RunningServer> {
  const log = logger.line;
  for (const line of describeConfig(config).split("\n")) log(line);
  const relay = await composeRelay(config, {
    log,
    logger,
    ...(opts.consoleDir ? { consoleDir: opts.consoleDir } : {}),
    ...(opts.secrets ? { secrets: opts.secrets } : {}),
    ...(opts.afterStep ? { afterStep: opts.afterStep } : {}),
  });
  stack.defer("relay", () => relay.close());

  // docs/security.md, "Connections": a client that opens sockets and sends nothing, or sends
  // its headers a byte at a time, is cut off; so is one address holding too many sockets.
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxConnectionsPerIp } = config.http;
  const server: Server = createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      // How often the two time-outs above are checked (Node's default, 30 s, would let them run late).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeoutMs / 4))),
    },
    relay.handle,
  );
  // Longer than clients' own idle timers (undici's 4 s fires up to ~1 s late), so the
  // server does not close a socket a client is about to reuse.
  server.keepAliveTimeout = keepAliveTimeoutMs;
  // RELAY_RATE_LIMITS=off (benchmarks, tests) lifts the cap with the other per-client counts.
  if (maxConnectionsPerIp > 0 && config.rateLimits.enabled) capConnectionsPerIp(server, maxConnectionsPerIp);
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  stack.defer("HTTP server", async () => {
    // Stop accepting, let in-flight requests finish, then close idle keep-alive sockets.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const force = setTimeout(() => {
      for (const s of sockets) s.destroy();
    }, 10_000);
    await closed;
    clearTimeout(force);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => {
      server.off("error", reject);
      resolve();
    });
  });

  const addr = server.address() as AddressInfo;
  const url = `http://${urlHost(config.host)}:${addr.port}`;
  const metricsUrl = relay.metricsHandle ? await listenMetrics(config, relay.metricsHandle, log, stack) : null;

  return { url, host: config.host, port: addr.port, metricsUrl, relay, stop: () => stack.close() };
}

const urlHost = (host: string): string => (host.includes(":") ? `[${host}]` : host);

/**
 * The metrics listener (docs/operations.md, "Metrics"): GET /metrics without a
 * token on its own address, so that the public port never serves it without one.
 * A default port another program holds (a second relay on the machine) is left
 * out with a warning; a port the operator set must be had.
 */
async function listenMetrics(
  config: RelayConfig,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  log: (line: string) => void,
  stack: TeardownStack,
): Promise<string | null> {
  const { host, port, portConfigured } = config.metrics;
  if (port === null) return null;
  const server = createServer({ headersTimeout: config.http.headersTimeoutMs, requestTimeout: config.http.requestTimeoutMs }, handle);
  server.keepAliveTimeout = config.http.keepAliveTimeoutMs;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EADDRINUSE" && !portConfigured) {
      log(
        `metrics: ${host}:${port} is in use; no metrics listener (set metrics.port or RELAY_METRICS_PORT; /metrics on the main port takes the operator token)`,
      );
      return null;
    }
    throw new Error(`metrics listener on ${host}:${port}: ${(e as Error).message}`, { cause: e });
  }
  stack.defer("metrics listener", async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // A scrape is short; a keep-alive scraper's idle socket must not hold the stop up.
    server.closeAllConnections();
    await closed;
  });
  const address = `${urlHost(host)}:${(server.address() as AddressInfo).port}`;
  // Host and port, not a URL: the log cuts every URL to its origin.
  log(`metrics: GET /metrics on ${address} without a token (on the main port it takes the operator token)`);
  return `http://${address}/metrics`;
}
