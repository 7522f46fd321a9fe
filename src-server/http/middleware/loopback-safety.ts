import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { ErrorName, type ErrorNameValue } from "../../../src-shared/errors";
import { CONSOLE_CONTENT_SECURITY_POLICY } from "../../../src-shared/console-csp";

/**
 * Loopback safety (docs/security.md): a web page the operator visits must not be
 * able to drive a relay listening on 127.0.0.1. Three guards:
 *  - a request body must be declared `application/json` (a page can send
 *    `text/plain` cross-origin without a CORS preflight, never `application/json`);
 *  - on a loopback bind, the Host header must be a loopback name or a configured
 *    public name (a DNS-rebound page sends its own name);
 *  - the console's documents forbid framing and MIME sniffing.
 */

/** The relay endpoints answer errors in the relay result shape `{ status, error, message }`. */
const isRelayPath = (path: string): boolean => path === "/relay" || path === "/relay_swap";

/** An error in the shape of the endpoint that was asked (respond.ts's two conventions). */
export function sendShapedError(req: Request, res: Response, status: number, error: ErrorNameValue, message: string): void {
  res.status(status).json(isRelayPath(req.path) ? { status, error, message } : { error, message });
}

// ---------- Content-Type ----------

/** True when the Content-Type is `application/json` (any parameters, e.g. `; charset=utf-8`). */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  return contentType.split(";", 1)[0]!.trim().toLowerCase() === "application/json";
}

/** Whether the request announces a non-empty body: Content-Length above 0, or a chunked body (length unknown). */
export function bodyAnnounced(req: IncomingMessage): "none" | "sized" | "chunked" {
  if (req.headers["transfer-encoding"] !== undefined) return "chunked";
  const length = req.headers["content-length"];
  if (length === undefined) return "none";
  return Number(length) === 0 ? "none" : "sized";
}

/** The error the JSON parser's `verify` hook throws for a chunked body that turns out non-empty and undeclared. */
export const UNSUPPORTED_MEDIA_TYPE = "content.type.unsupported";

const unsupportedMessage = (contentType: string | undefined): string =>
  `a request body must be sent with Content-Type: application/json${contentType ? `, got ${JSON.stringify(contentType.slice(0, 100))}` : " (none was sent)"}`;

/**
 * Refuses a body whose Content-Type is not application/json with 415 before a
 * byte of it is read. Body-less POSTs (the spec's indexer and compliance calls)
 * and empty bodies need no Content-Type. A chunked body's size is unknown here:
 * {@link verifyJsonBody} refuses it once read, if it is not empty.
 */
export function requireJsonBody(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const contentType = req.headers["content-type"];
    if (bodyAnnounced(req) !== "sized" || isJsonContentType(contentType)) return next();
    // The unread body is drained and discarded by Node once the answer is sent.
    sendShapedError(req, res, 415, ErrorName.UnsupportedMediaType, unsupportedMessage(contentType));
  };
}

/**
 * The JSON parser for requests that announce a body. A body-less request (the
 * spec's reads are POSTs without one) gets what the parser would give it
 * (`{}` for `Content-Length: 0`, nothing without the header) without its
 * stream machinery, a tenth of a get_proof's CPU.
 */
export function withoutEmptyBody(parser: RequestHandler): RequestHandler {
  return (req, res, next) => {
    if (bodyAnnounced(req) !== "none") return parser(req, res, next);
    if (req.headers["content-length"] !== undefined) req.body = {};
    next();
  };
}

/** express.json's `verify`: a non-empty body that is not declared application/json is refused (415). */
export function verifyJsonBody(req: Request, _res: Response, buf: Buffer): void {
  const contentType = req.headers["content-type"];
  if (buf.length === 0 || isJsonContentType(contentType)) return;
  throw Object.assign(new Error(unsupportedMessage(contentType)), { status: 415, type: UNSUPPORTED_MEDIA_TYPE });
}

// ---------- Host ----------

/** True for an address or name that only reaches this machine: 127.0.0.0/8, ::1 (and v4-mapped), localhost. */
export function isLoopbackHost(host: string): boolean {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (h.endsWith(".")) h = h.slice(0, -1);
  if (h === "localhost") return true;
  const kind = isIP(h);
  if (kind === 4) return h.startsWith("127.");
  if (kind === 6) {
    if (h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
    const mapped = /^(?:0:0:0:0:0|):ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
    return mapped !== null && mapped[1]!.startsWith("127.");
  }
  return false;
}

/**
 * The name part of a Host header, lower case, without port, brackets or a
 * trailing dot; null when it is not a well-formed host.
 */
export function hostName(header: string): string | null {
  const h = header.trim().toLowerCase();
  let name: string;
  let rest: string;
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    if (end < 0) return null;
    name = h.slice(1, end);
    rest = h.slice(end + 1);
    if (isIP(name) !== 6) return null;
  } else {
    const colon = h.indexOf(":");
    name = colon < 0 ? h : h.slice(0, colon);
    rest = colon < 0 ? "" : h.slice(colon);
    if (!/^[a-z0-9._-]+$/.test(name)) return null;
  }
  if (rest !== "" && !/^:[0-9]{1,5}$/.test(rest)) return null;
  if (name.endsWith(".")) name = name.slice(0, -1);
  return name === "" ? null : name;
}

/** A configured public name as compared with a Host header's name. */
export function normalizePublicHostname(name: string): string {
  let h = name.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (h.endsWith(".")) h = h.slice(0, -1);
  return h;
}

/**
 * DNS-rebinding guard: when the relay listens on a loopback address, a request
 * whose Host header names anything but a loopback name or one of
 * `publicHostnames` is refused. On any other bind address every Host passes
 * (null: the relay is meant to be reached by other names; a reverse proxy decides).
 * A request without a Host header (HTTP/1.0) cannot come from a browser and passes.
 * No side effect but a bounded cache: http/front-door.ts asks it before it takes a request.
 */
export function hostAcceptor(bindHost: string, publicHostnames: readonly string[]): HostAcceptor | null {
  if (!isLoopbackHost(bindHost)) return null;
  const allowed = new Set(publicHostnames.map(normalizePublicHostname));
  // Clients send the same few Host values over and over: the accepted ones are remembered
  // (bounded, so a client cycling names cannot grow it) instead of parsed on every request.
  const accepted = new Set<string>();
  const accepts = (header: string | undefined): boolean => {
    if (header === undefined || accepted.has(header)) return true;
    const name = hostName(header);
    if (name === null || !(isLoopbackHost(name) || allowed.has(name))) return false;
    if (accepted.size < 64) accepted.add(header);
    return true;
  };
  return { accepts, allowed: [...allowed] };
}

export interface HostAcceptor {
  /** Whether a request with this Host header is answered. */
  accepts(header: string | undefined): boolean;
  /** The configured public names, normalized (for the refusal's message). */
  allowed: readonly string[];
}

/** {@link hostAcceptor} as middleware: a refused Host gets 421 MisdirectedRequest. */
export function hostCheck(host: HostAcceptor): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.host;
    if (host.accepts(header)) return next();
    sendShapedError(
      req,
      res,
      421,
      ErrorName.MisdirectedRequest,
      `this relay listens on a loopback address and answers only to localhost, 127.0.0.1 or [::1]${host.allowed.length > 0 ? ` or ${host.allowed.join(", ")}` : ""}, not to Host ${JSON.stringify(String(header).slice(0, 100))} (a public name is added with http.publicHostnames)`,
    );
  };
}

// ---------- Console headers ----------

/** Headers of every response under /console. */
export function consoleSecurityHeaders(): RequestHandler {
  return (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader("Content-Security-Policy", CONSOLE_CONTENT_SECURITY_POLICY);
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "no-referrer");
    next();
  };
}
