/**
 * JSON-RPC 2.0 over HTTP POST (single and batch requests) and the websocket
 * endpoint on the same port (HTTP upgrade), with the faults that act on the
 * transport: injected errors, delays, held answers, the node being down.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import WebSocket from "ws";
import type { Faults } from "../faults";
import { RpcError } from "./common";
import type { RpcNode } from "./methods";
import type { SubscriptionHub } from "./subscriptions";
import type { LocalJupiterApi } from "./jupiter";

const MAX_BODY = 2 * 1024 * 1024;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface JsonRpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

class HttpStatus extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const STATUS_TEXT: Record<number, string> = {
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

export interface RpcServer {
  readonly port: number;
  readonly host: string;
  close(): Promise<void>;
}

export interface RpcServerOptions {
  node: RpcNode;
  hub: SubscriptionHub;
  faults: Faults;
  host: string;
  port: number;
  /** The Jupiter-compatible swap API under /jupiter/swap/v1 (rpc/jupiter.ts). */
  jupiter?: LocalJupiterApi;
}

export async function startRpcServer(opts: RpcServerOptions): Promise<RpcServer> {
  const { node, hub, faults } = opts;
  const wss = new WebSocket.Server({ noServer: true, maxPayload: MAX_BODY });
  const sockets = new Set<Socket>();
  let closing = false;

  const answer = async (req: JsonRpcRequest): Promise<unknown> => {
    const id = req && typeof req === "object" && "id" in req ? req.id : null;
    if (!req || typeof req !== "object" || req.jsonrpc !== "2.0" || typeof req.method !== "string") {
      return { jsonrpc: "2.0", error: { code: -32600, message: "Invalid request" }, id };
    }
    const method = req.method;
    const injected = faults.takeRpcError(method);
    if (injected) {
      if (injected.code > 0) throw new HttpStatus(injected.code, injected.message ?? STATUS_TEXT[injected.code] ?? "Error");
      return { jsonrpc: "2.0", error: { code: injected.code, message: injected.message ?? defaultMessage(injected.code) }, id };
    }
    const hold = faults.takeTimeout(method);
    let response: unknown;
    try {
      response = { jsonrpc: "2.0", result: await node.call(method, req.params), id };
    } catch (e) {
      const err = e instanceof RpcError ? e : new RpcError(-32603, `Internal error: ${(e as Error).message}`);
      if (!(e instanceof RpcError)) console.error(`[localnet] ${method} failed`, e);
      response = { jsonrpc: "2.0", error: { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) }, id };
    }
    if (hold > 0) await sleep(hold);
    return response;
  };

  const server = http.createServer(async (req, res) => {
    const reply = (status: number, body: string, type = "application/json") => {
      if (res.headersSent || res.destroyed) return;
      res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
      res.end(body);
    };
    try {
      if (req.method === "GET" && (req.url === "/health" || req.url?.startsWith("/health?"))) {
        if (faults.down) return reply(503, "Service Unavailable", "text/plain");
        return reply(200, faults.lagSlots > 0 ? "behind" : "ok", "text/plain");
      }
      if (opts.jupiter && req.url?.startsWith("/jupiter/")) {
        if (faults.down) return reply(503, "Service Unavailable", "text/plain");
        if (await opts.jupiter.handle(req, res)) return;
      }
      if (req.method !== "POST") return reply(405, "Method Not Allowed", "text/plain");
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of req) {
        size += (chunk as Buffer).length;
        if (size > MAX_BODY) return reply(413, "Payload Too Large", "text/plain");
        chunks.push(chunk as Buffer);
      }
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return reply(200, JSON.stringify({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null }));
      }
      const requests = (Array.isArray(body) ? body : [body]) as JsonRpcRequest[];
      const onlyControl = requests.length > 0 && requests.every((r) => typeof r?.method === "string" && r.method.startsWith("localnet_"));
      if (faults.down && !onlyControl) return reply(503, "Service Unavailable", "text/plain");
      if (faults.rpcDelayMs > 0 && !onlyControl) await sleep(faults.rpcDelayMs);
      if (Array.isArray(body)) {
        if (!body.length) return reply(200, JSON.stringify({ jsonrpc: "2.0", error: { code: -32600, message: "Invalid request" }, id: null }));
        return reply(200, JSON.stringify(await Promise.all(requests.map(answer))));
      }
      return reply(200, JSON.stringify(await answer(body as JsonRpcRequest)));
    } catch (e) {
      if (e instanceof HttpStatus) return reply(e.status, e.message, "text/plain");
      console.error("[localnet] request failed", e);
      return reply(500, "Internal Server Error", "text/plain");
    }
  });
  server.keepAliveTimeout = 20_000;

  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.on("upgrade", (req, socket, head) => {
    if (closing || faults.down) {
      socket.end("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket as Socket, head, (ws) => hub.attach(ws));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    host: opts.host,
    close: async () => {
      closing = true;
      wss.close();
      // Requests in flight are answered (web3.js leaves some status polls running after a confirmation); idle and
      // held connections are cut after a short grace.
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        const cut = setTimeout(() => {
          server.closeAllConnections();
          for (const s of sockets) s.destroy();
        }, 300);
        cut.unref();
      });
    },
  };
}

function defaultMessage(code: number): string {
  switch (code) {
    case -32005:
      return "Node is unhealthy";
    case -32004:
      return "Block not available for slot";
    case -32007:
      return "Slot was skipped, or missing due to ledger jump to recent snapshot";
    case -32603:
      return "Internal error";
    default:
      return "Injected RPC error";
  }
}
