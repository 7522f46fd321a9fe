import { Router, type Request, type RequestHandler } from "express";
import { hostName, isLoopbackHost } from "../middleware/loopback-safety";

export interface MetricsRouteDeps {
  text(): Promise<string>;
  contentType(): string;
  /** The operator-token guard of /admin. */
  guard: RequestHandler;
  /** metrics.loopbackWithoutToken: a scraper on this machine needs no token. */
  loopbackWithoutToken: boolean;
}

/**
 * A request that comes from this machine itself and not through a proxy:
 * the socket's peer is a loopback address, no proxy header is present, and
 * the Host is a loopback name (a reverse proxy on the same machine forwards
 * the public name, and usually X-Forwarded-For). Anything else needs the
 * operator token (docs/operations.md, "Metrics").
 */
export function isDirectLoopback(req: Request): boolean {
  const peer = req.socket.remoteAddress ?? "";
  if (!isLoopbackHost(peer)) return false;
  if (req.get("x-forwarded-for") !== undefined || req.get("forwarded") !== undefined || req.get("x-real-ip") !== undefined) return false;
  const host = hostName(req.get("host") ?? "");
  return host !== null && isLoopbackHost(host);
}

/** GET /metrics: Prometheus text, on loopback without a token (when allowed), otherwise with the operator token. */
export function metricsRoutes(deps: MetricsRouteDeps): Router {
  const r = Router();
  const serve: RequestHandler = (_req, res, next) => {
    deps
      .text()
      .then((body) => {
        res.setHeader("Cache-Control", "no-store");
        res.type(deps.contentType()).send(body);
      })
      .catch(next);
  };
  r.get("/metrics", (req, res, next) => {
    if (deps.loopbackWithoutToken && isDirectLoopback(req) && !req.get("authorization")) return serve(req, res, next);
    deps.guard(req, res, (err?: unknown) => (err ? next(err) : serve(req, res, next)));
  });
  return r;
}
