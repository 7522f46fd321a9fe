import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";

export interface RequestLogOptions {
  event(fields: Record<string, unknown>, msg: string): void;
  /** logs.clientIps: the client address in each line (off unless the operator turns it on). */
  clientIps: boolean;
}

/**
 * One log line per request, when its answer is sent, with a request id (also
 * answered as X-Request-Id). The path is logged as its route pattern
 * (`/is_logged/:id`, never the token in it; no line for an unknown path's
 * text) and the client address only when the operator turns it on
 * (docs/operations.md, "Logs").
 */
export function requestLog(opts: RequestLogOptions): RequestHandler {
  return (req, res, next) => {
    const reqId = randomUUID();
    res.setHeader("X-Request-Id", reqId);
    const started = performance.now();
    res.on("finish", () => {
      const route = req.route
        ? `${req.baseUrl}${String((req.route as { path: unknown }).path)}`
        : req.path.startsWith("/console")
          ? "/console (static)"
          : "(no route)";
      const ms = Math.round((performance.now() - started) * 10) / 10;
      const fields: Record<string, unknown> = { reqId, method: req.method, route, status: res.statusCode, ms };
      if (opts.clientIps) fields.ip = req.ip ?? req.socket.remoteAddress ?? null;
      opts.event(fields, `${req.method} ${route} ${res.statusCode} ${ms} ms`);
    });
    next();
  };
}
