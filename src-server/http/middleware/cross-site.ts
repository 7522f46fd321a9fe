import type { IncomingMessage } from "node:http";
import proxyAddr from "proxy-addr";
import type { RequestHandler } from "express";
import { ErrorName } from "../../../src-shared/errors";
import type { TrustProxy } from "../../config/schema";
import { sendShapedError } from "./loopback-safety";

/**
 * Cross-site requests (docs/security.md, "Cross-site requests"): a page on another
 * origin can make the operator's browser send requests a page cannot read the answer
 * of but the relay still acts on and counts (an `<img>` GET, an empty form POST), and
 * so use up the operator's sign-in lockout or the address's /login budget. Browsers
 * name the page's origin in `Origin` on every POST and every CORS request, and in
 * `Sec-Fetch-Site` on every request; non-browser clients send neither.
 */
export interface CrossSiteGuard {
  /** Why the request is refused, or null when it may go on. No side effect (http/front-door.ts asks it too). */
  refusal(req: IncomingMessage): string | null;
}

/** Paths only the operator's console calls: refused to any foreign page, top-level navigations included. */
export function isOperatorPath(path: string): boolean {
  // Express matches routes without regard to case; so does this.
  const p = path.toLowerCase();
  return p === "/admin" || p.startsWith("/admin/") || p === "/metrics" || p === "/health/detail";
}

/** Sec-Fetch-Site values a page of the relay's own (or the operator typing the URL) sends. */
const OWN_FETCH_SITES = new Set(["same-origin", "none"]);

/** `scheme://host[:port]` as a browser serializes it; null when the pieces do not make one. */
function serializeOrigin(scheme: string, host: string): string | null {
  try {
    const u = new URL(`${scheme}://${host}`);
    return u.host === "" ? null : u.origin;
  } catch {
    return null;
  }
}

/**
 * `allowedOrigins` (http.allowedOrigins) are origins answered besides the relay's own,
 * which is the scheme the request arrived with (`http`, or a trusted proxy's
 * `X-Forwarded-Proto`) and its Host header: what a page this relay served sends.
 */
export function crossSiteGuard(opts: { allowedOrigins: readonly string[]; trustProxy: TrustProxy }): CrossSiteGuard {
  const allowed = new Set(opts.allowedOrigins);
  const trust = opts.trustProxy === false ? null : typeof opts.trustProxy === "number" ? opts.trustProxy > 0 : proxyAddr.compile(opts.trustProxy);
  const fromTrustedProxy = (req: IncomingMessage): boolean =>
    trust === null ? false : typeof trust === "boolean" ? trust : trust(req.socket.remoteAddress ?? "", 0);
  const schemeOf = (req: IncomingMessage): string => {
    const forwarded = req.headers["x-forwarded-proto"];
    if (typeof forwarded !== "string" || !fromTrustedProxy(req)) return "http";
    const first = forwarded.split(",", 1)[0]!.trim().toLowerCase();
    return first === "https" ? "https" : "http";
  };
  const ownOrigin = (req: IncomingMessage): string | null => {
    const host = req.headers.host;
    return host ? serializeOrigin(schemeOf(req), host) : null;
  };

  return {
    refusal(req) {
      const origin = req.headers.origin;
      if (origin !== undefined) {
        if (allowed.has(origin)) return null;
        const own = ownOrigin(req);
        if (own !== null && origin.toLowerCase() === own) return null;
        return `a request from a page on ${JSON.stringify(origin.slice(0, 100))} is refused: this relay answers only its own origin${own ? ` (${own})` : ""}${allowed.size > 0 ? ` and ${[...allowed].join(", ")}` : ""} (another one is added with http.allowedOrigins)`;
      }
      const site = req.headers["sec-fetch-site"];
      if (site === undefined || OWN_FETCH_SITES.has(site)) return null;
      // Without Origin a browser's request is a GET or HEAD: an <img>, a <script>, a frame or a navigation.
      const path = (req.url ?? "").split("?", 1)[0]!;
      const topLevelNavigation = req.headers["sec-fetch-mode"] === "navigate" && req.headers["sec-fetch-dest"] === "document";
      if (topLevelNavigation && !isOperatorPath(path)) return null;
      return `a ${site} request from another page (Sec-Fetch-Site: ${site}) is refused${topLevelNavigation ? " on the operator's endpoints" : ": only a link followed to a public endpoint is answered"}`;
    },
  };
}

/** {@link CrossSiteGuard} as the app's middleware: 403 CrossOriginRequest in the endpoint's shape, before anything counts the request. */
export function crossSiteCheck(guard: CrossSiteGuard): RequestHandler {
  return (req, res, next) => {
    const why = guard.refusal(req);
    if (why === null) return next();
    sendShapedError(req, res, 403, ErrorName.CrossOriginRequest, why);
  };
}
