import http from "node:http";

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  json: unknown;
}

/**
 * One HTTP request on its own connection from a chosen local address
 * (127.0.0.x: another client on the same machine), with any headers,
 * X-Forwarded-For included.
 */
export function rawRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: unknown; localAddress?: string } = {},
): Promise<RawAnswer> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers: Record<string, string> = {
    ...(body === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }),
    ...opts.headers,
  };
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: opts.method ?? "POST", headers, agent: false, ...(opts.localAddress ? { localAddress: opts.localAddress } : {}) },
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
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
