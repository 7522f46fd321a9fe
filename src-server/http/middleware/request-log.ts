import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Request, RequestHandler } from "express";

/** What one request's log line holds. */
export interface RequestLine {
  reqId: string;
  method: string;
  /** The route pattern (`/get_proof/:mint/:depth/:index/:network`), never the path's own text. */
  route: string;
  status: number;
  ms: number;
  /** Only with logs.clientIps. */
  ip?: string | null;
}

export interface RequestLogOptions {
  /** Every request, when its answer is sent (metrics count them all). */
  done(r: RequestLine): void;
  /** The requests that also get a log line (logs.requests). */
  line(r: RequestLine): void;
  /** logs.requests: "changes" leaves successful reads out of the log. */
  requests: "changes" | "all";
  /** logs.clientIps: the client address in each line (null, the default, leaves it out). */
  clientIp: ((req: IncomingMessage) => string) | null;
}

/** Requests' log lines and counts, for Express's routes and for the reads answered ahead of Express (http/front-door.ts). */
export interface RequestLog {
  /**
   * One request, from now until its answer is sent: its X-Request-Id header
   * now; its count, and its line if it gets one, when it finishes, under the
   * route `route` names (a function: read then, as Express matches it late).
   * `setHeader`: how the X-Request-Id header is set (the front door holds it for its answer's writeHead).
   */
  begin(
    req: IncomingMessage,
    res: ServerResponse,
    route: string | ((req: IncomingMessage) => string),
    setHeader?: (res: ServerResponse, name: string, value: string) => void,
    /** The caller calls {@link RequestLog.settle} once it has written its answer (the front door), instead of a `finish` listener. */
    settledByCaller?: boolean,
  ): void;
  /** A request begun with `settledByCaller`: counted and logged now if its answer is ended, else when it finishes. */
  settle(res: ServerResponse): void;
}

/** The spec's reads that are POSTs (indexer reads, is_logged); every GET is a read too. */
const POST_READ = /^\/(?:get_|is_logged\/)/;

/**
 * A successful read: GETs and the spec's POST reads answered below 400. With
 * logs.requests "changes" these get no line: at thousands a second they would
 * be most of the log and a sixth of a get_proof's CPU, and /metrics counts
 * them (relay_http_requests_total). Failures and everything that changes
 * state keep their line.
 */
export const isSuccessfulRead = (r: RequestLine): boolean => r.status < 400 && (r.method === "GET" || r.method === "HEAD" || isPostRead(r.route));

/** POST_READ's answer per route pattern: a handful of patterns, tested once each rather than once per request. */
const postReads = new Map<string, boolean>();
const isPostRead = (route: string): boolean => {
  let read = postReads.get(route);
  if (read === undefined && postReads.size < 256) postReads.set(route, (read = POST_READ.test(route)));
  return read ?? POST_READ.test(route);
};

/** The line's message text, the same in the JSON line and in a plain log. */
export const requestMessage = (r: RequestLine): string => `${r.method} ${r.route} ${r.status} ${r.ms} ms`;

/**
 * One log line per request (but successful reads, unless logs.requests is
 * "all"), when its answer is sent, with a request id (also answered as
 * X-Request-Id). The path is logged as its route pattern
 * (`/is_logged/:id`, never the token in it; no line for an unknown path's
 * text) and the client address only when the operator turns it on
 * (docs/operations.md, "Logs").
 */
export function requestLog(opts: RequestLogOptions): RequestLog {
  // One listener for every request, its state on the response: no closure is made per request
  // (the bundle names each closure it makes, a measurable part of a get_proof's CPU).
  function finished(this: ServerResponse): void {
    const pending = (this as Logged)[PENDING]!;
    const { req, route, reqId, started } = pending;
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const r: RequestLine = { reqId, method: req.method ?? "", route: typeof route === "string" ? route : route(req), status: this.statusCode, ms };
    if (opts.clientIp) r.ip = opts.clientIp(req);
    opts.done(r);
    if (opts.requests === "all" || !isSuccessfulRead(r)) opts.line(r);
  }
  return {
    begin(req, res, route, setHeader, settledByCaller) {
      const reqId = nextRequestId();
      if (setHeader) setHeader(res, "X-Request-Id", reqId);
      else res.setHeader("X-Request-Id", reqId);
      (res as Logged)[PENDING] = { req, route, reqId, started: performance.now() };
      // Adding a listener and emitting to it was a twentieth of a front-door read's CPU.
      if (!settledByCaller) res.on("finish", finished);
    },
    settle(res) {
      if (res.writableEnded) finished.call(res);
      else res.once("finish", finished);
    },
  };
}

/**
 * Request ids: a random prefix drawn once per process and a counter, in a UUID's 36-character
 * shape. Unique across restarts and instances by the prefix's 74 random bits; drawing 16 random
 * bytes per request (randomUUID) bought nothing more for a log correlation id.
 */
const ID_PREFIX = randomUUID().slice(0, 24);
let idCounter = 0;
const nextRequestId = (): string => ID_PREFIX + (idCounter++).toString(16).padStart(12, "0");

const PENDING = Symbol("request-log");
type Logged = ServerResponse & { [PENDING]?: { req: IncomingMessage; route: string | ((req: IncomingMessage) => string); reqId: string; started: number } };

/** The route pattern Express matched, read when the answer is sent. */
function expressRoute(message: IncomingMessage): string {
  const req = message as Request;
  if (req.route) return `${req.baseUrl}${String((req.route as { path: unknown }).path)}`;
  return req.path.startsWith("/console") ? "/console (static)" : "(no route)";
}

/** The request log as the first middleware of the Express app. */
export function requestLogMiddleware(log: RequestLog): RequestHandler {
  return (req, res, next) => {
    log.begin(req, res, expressRoute);
    next();
  };
}
