import http from "node:http";

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: unknown;
}

/**
 * One HTTP request on its own connection with exactly the headers given (a Host
 * header included: fetch does not let a test choose it), optionally from a chosen
 * local address (127.0.0.x: another client on the same machine). A body is sent
 * as is, with its content-length, or chunked.
 */
export function sendRaw(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; chunked?: boolean; localAddress?: string } = {},
): Promise<RawAnswer> {
  const u = new URL(url);
  const headers: Record<string, string> = { ...opts.headers };
  if (!Object.keys(headers).some((k) => k.toLowerCase() === "host")) headers.host = u.host;
  if (opts.body !== undefined && !opts.chunked) headers["content-length"] = String(Buffer.byteLength(opts.body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        method: opts.method ?? "POST",
        path: `${u.pathname}${u.search}`,
        headers,
        setHost: false,
        agent: false,
        ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on("error", reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** sendRaw with a JSON body (declared application/json). */
export function rawRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: unknown; localAddress?: string } = {},
): Promise<RawAnswer> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers = { ...(body === undefined ? {} : { "content-type": "application/json" }), ...opts.headers };
  return sendRaw(url, { method: opts.method, headers, body, localAddress: opts.localAddress });
}

/** A POST without a body from another loopback address (127.0.0.x): another client of the same machine. Resolves with the status. */
export function postFrom(localAddress: string, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", localAddress }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}
