import type { Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { describeConfig } from "./config/load";
import type { RelayConfig } from "./config/schema";
import type { SecretStore } from "./ports/secret-store";
import { composeRelay, type Relay } from "./composition";

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  relay: Relay;
  stop(): Promise<void>;
}

export interface StartOptions {
  consoleDir?: string;
  log?: (line: string) => void;
  /** Where keys live at rest; default files in <dataDir>/keys (the desktop host passes safeStorage). */
  secrets?: SecretStore;
}

/** Builds the relay and listens; `stop` drains requests and flushes the store. */
export async function startServer(config: RelayConfig, opts: StartOptions = {}): Promise<RunningServer> {
  const log = opts.log ?? ((line: string) => console.log(line));
  for (const line of describeConfig(config).split("\n")) log(line);
  const relay = await composeRelay(config, { log, ...(opts.consoleDir ? { consoleDir: opts.consoleDir } : {}), ...(opts.secrets ? { secrets: opts.secrets } : {}) });

  const server: Server = await new Promise((resolve, reject) => {
    const s = relay.app.listen(config.port, config.host, () => resolve(s));
    s.once("error", reject);
  });
  // Idle keep-alive sockets outlive clients' own idle timers (undici's fire up to ~1 s late), so
  // the server never closes a socket a client is about to reuse; 65 s is what load balancers expect.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 120_000;
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });

  const addr = server.address() as AddressInfo;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `http://${host}:${addr.port}`;

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      // Stop accepting, let in-flight requests finish, then close idle keep-alive sockets.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => {
        for (const s of sockets) s.destroy();
      }, 10_000);
      await closed;
      clearTimeout(force);
      await relay.close();
    })());

  return { url, host: config.host, port: addr.port, relay, stop };
}
