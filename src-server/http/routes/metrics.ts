import type { IncomingMessage, ServerResponse } from "node:http";
import { Router, type RequestHandler } from "express";
import { ErrorName } from "../../../src-shared/errors";
import type { CrossSiteGuard } from "../middleware/cross-site";
import type { HostAcceptor } from "../middleware/loopback-safety";
import { sendError, writeJson } from "../respond";

/** The Prometheus text and its content type. */
export interface MetricsScrape {
  text(): Promise<string>;
  contentType(): string;
}

/** How long one rendering of the text is served: Prometheus scrapes every 15 s or more, a flood gets the same text. */
export const METRICS_CACHE_MS = 1000;

/**
 * `source` rendered at most once per `ttlMs`: rendering walks every collector
 * (process metrics, indexer and RPC stats) and at 68 requests a second it took
 * /version's p50 from 6 ms to 257 ms. Requests during a rendering wait for that
 * one; a rendering that fails is not kept.
 */
export function cachedScrape(source: MetricsScrape, ttlMs = METRICS_CACHE_MS, now: () => number = Date.now): MetricsScrape {
  let cached: { at: number; text: Promise<string> } | null = null;
  return {
    contentType: () => source.contentType(),
    text: () => {
      const t = now();
      if (cached && t - cached.at < ttlMs) return cached.text;
      const entry = { at: t, text: source.text() };
      cached = entry;
      entry.text.catch(() => {
        if (cached === entry) cached = null;
      });
      return entry.text;
    },
  };
}

function writeScrape(scrape: MetricsScrape, res: ServerResponse, head: boolean, failed: (e: unknown) => void): void {
  scrape.text().then((body) => {
    const bytes = Buffer.from(body, "utf8");
    res.writeHead(200, { "Content-Type": scrape.contentType(), "Content-Length": bytes.length, "Cache-Control": "no-store" });
    res.end(head ? undefined : bytes);
  }, failed);
}

/**
 * GET /metrics on the main port: the operator token only (the /admin guard and
 * its lockout), whoever asks. No exemption by peer or Host: a reverse proxy on
 * the same machine (nginx's stock `proxy_pass`) sends `Host: 127.0.0.1:<port>`
 * and no X-Forwarded-For, so such a request looks local. A scraper on this
 * machine reads the metrics listener ({@link metricsListener}) instead.
 */
export function metricsRoutes(deps: { scrape: MetricsScrape; guard: RequestHandler }): Router {
  const r = Router();
  r.get("/metrics", deps.guard, (req, res, next) => writeScrape(deps.scrape, res, req.method === "HEAD", next));
  return r;
}

/**
 * Node's request listener of the metrics port (metrics.host:metrics.port, default
 * 127.0.0.1:9464): GET /metrics without a token, nothing else. On a loopback bind
 * a page cannot read it by DNS rebinding (the Host check) nor make the browser ask
 * for it (the cross-site check); on any other bind it is whoever reaches that
 * address's, so bind it to a private interface only (docs/operations.md).
 */
export function metricsListener(deps: {
  scrape: MetricsScrape;
  host: HostAcceptor | null;
  crossSite: CrossSiteGuard;
  log: (line: string) => void;
}): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    if (deps.host && !deps.host.accepts(req.headers.host))
      return sendError(res, 421, ErrorName.MisdirectedRequest, "the metrics listener answers only to localhost, 127.0.0.1 or [::1]");
    const why = deps.crossSite.refusal(req);
    if (why !== null) return sendError(res, 403, ErrorName.CrossOriginRequest, why);
    const path = (req.url ?? "").split("?", 1)[0];
    if (path !== "/metrics") return sendError(res, 404, ErrorName.NotFound, "the metrics listener serves GET /metrics only");
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("Allow", "GET, HEAD");
      return sendError(res, 405, ErrorName.InvalidRequest, "GET /metrics");
    }
    writeScrape(deps.scrape, res, req.method === "HEAD", (e: unknown) => {
      deps.log(`error: metrics listener: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent) writeJson(res, 500, { error: "InternalError", message: "metrics could not be rendered" });
    });
  };
}
