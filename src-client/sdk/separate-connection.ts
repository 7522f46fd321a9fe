/**
 * A `fetch` for the requests that must not be tied to a wallet's session
 * (docs/privacy.md): every request opens its own TCP connection (no agent,
 * `connection: close`) so it never rides a keep-alive socket that carried a
 * login or a /relay, and none of those reuses its socket afterwards. The
 * global fetch pools connections per origin, which would let a relay match
 * requests by socket even when they carry no token.
 */
import http from "node:http";
import https from "node:https";

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

function headersOf(init: RequestInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, key) => {
    out[key] = value;
  });
  out.connection = "close";
  return out;
}

function bodyOf(init: RequestInit | undefined): string | Uint8Array | undefined {
  const b = init?.body;
  if (b === undefined || b === null) return undefined;
  if (typeof b === "string" || b instanceof Uint8Array) return b;
  throw new TypeError("separateConnectionFetch sends string or byte bodies only");
}

/** The subset of fetch the SDK's RelayClient uses (method, headers, a string body, an AbortSignal), one connection per request. */
export const separateConnectionFetch: typeof fetch = (input, init) =>
  new Promise<Response>((resolve, reject) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const transport = url.protocol === "https:" ? https : url.protocol === "http:" ? http : null;
    if (!transport) {
      reject(new TypeError(`separateConnectionFetch: ${url.protocol} is not http(s)`));
      return;
    }
    let body: string | Uint8Array | undefined;
    try {
      body = bodyOf(init);
    } catch (e) {
      reject(e);
      return;
    }
    const signal = init?.signal ?? undefined;
    const req = transport.request(url, { method: init?.method ?? "GET", headers: headersOf(init), agent: false, ...(signal ? { signal } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          if (v === undefined) continue;
          for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
        }
        const status = res.statusCode ?? 0;
        resolve(new Response(NULL_BODY_STATUSES.has(status) ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? "", headers }));
      });
    });
    req.on("error", (e: Error) => {
      // Shaped as the global fetch reports a failure, so callers classify both alike.
      if (e.name === "AbortError") reject(signal?.reason instanceof Error ? signal.reason : e);
      else reject(new TypeError("fetch failed", { cause: e }));
    });
    req.end(body);
  });
