import { createServer, request, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One request as the relay received it through the proxy. */
export interface RecordedRequest {
  method: string;
  /** The path without the query, e.g. `/get_proof/<mint>/32/5/mainnet`. */
  path: string;
  /** First path segment: `get_proof`, `relay`, `login`, ... */
  endpoint: string;
  /** x-api-auth, or null when the request carried none. */
  token: string | null;
  /** Which client connection carried it: requests on one keep-alive socket share the number. */
  connection: number;
  body: string;
  status: number;
  responseBody: string;
}

export interface RecordingProxy {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A plain HTTP proxy in front of a relay that records each request it passes
 * on (endpoint, token, the client connection that carried it, bodies): what a
 * relay operator could log about a client.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const requests: RecordedRequest[] = [];
  const connections = new WeakMap<Socket, number>();
  let nextConnection = 0;
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let connection = connections.get(req.socket);
      if (connection === undefined) connections.set(req.socket, (connection = ++nextConnection));
      const path = (req.url ?? "/").split("?")[0]!;
      const token = req.headers["x-api-auth"];
      const headers = { ...req.headers, host: upstream.host };
      delete headers.connection;
      const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent: false }, (up) => {
        const back: Buffer[] = [];
        up.on("data", (c: Buffer) => back.push(c));
        up.on("end", () => {
          const responseBody = Buffer.concat(back);
          requests.push({
            method: req.method ?? "GET",
            path,
            endpoint: path.split("/")[1] ?? "",
            token: typeof token === "string" ? token : null,
            connection: connection!,
            body: body.toString("utf8"),
            status: up.statusCode ?? 0,
            responseBody: responseBody.toString("utf8"),
          });
          const h = { ...up.headers };
          delete h.connection;
          delete h["transfer-encoding"];
          res.writeHead(up.statusCode ?? 502, { ...h, "content-length": String(responseBody.length) });
          res.end(responseBody);
        });
      });
      out.on("error", (e) => {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(`proxy: ${e.message}`);
      });
      out.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
