import { existsSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from "express";
import { ErrorName } from "../../src-shared/errors";
import type { Network } from "../../src-shared/networks";
import type { SandboxLedger } from "../ports/sandbox-ledger";
import type { RelayConfig } from "../config/schema";
import type { ChainBackend } from "../ports/chain";
import type { LimitCounter } from "../ports/limit-counter";
import type { AuthService } from "../services/auth";
import type { ComplianceService } from "../services/compliance";
import type { HealthService } from "../services/health";
import type { IndexerService } from "../services/indexer";
import type { RelayService } from "../services/relay-service";
import type { SwapRoutingService } from "../services/swap-routing";
import type { RevertService } from "../services/revert-service";
import { relayRoutes } from "./routes/relay";
import { swapRoutes } from "./routes/swap";
import { RateLimits, type ClientIdentity } from "./middleware/rate-limit";
import { authRoutes } from "./routes/auth";
import { complianceRoutes } from "./routes/compliance";
import { indexerReads, indexerRoutes } from "./routes/indexer";
import { metaRoutes, type MetaInfo } from "./routes/meta";
import { revertRoutes } from "./routes/revert";
import { sandboxRoutes } from "./routes/sandbox";
import { adminRoutes, type AdminRouteDeps } from "./routes/admin/index";
import { requireOperator } from "./routes/admin/auth";
import { isStoreUnavailable } from "../ports/store-errors";
import { holdHeader, sendError, sendStoreUnavailable, writeJson } from "./respond";
import {
  consoleSecurityHeaders,
  hostAcceptor,
  hostCheck,
  requireJsonBody,
  UNSUPPORTED_MEDIA_TYPE,
  verifyJsonBody,
  withoutEmptyBody,
} from "./middleware/loopback-safety";
import { clientAddress } from "./middleware/client-address";
import { crossSiteCheck, crossSiteGuard } from "./middleware/cross-site";
import { metricsListener, metricsRoutes, type MetricsScrape } from "./routes/metrics";
import { requestLogMiddleware, type RequestLog } from "./middleware/request-log";
import { frontDoor } from "./front-door";
import { inSequence } from "./middleware/in-sequence";
import type { FeeSchedule } from "../services/fee-schedule";

export interface AppDeps {
  config: RelayConfig;
  auth: AuthService;
  /** Where the rate limits and token caps are counted: this process's memory, or the instances' shared store. */
  limitCounter: LimitCounter;
  indexer: IndexerService;
  relay: RelayService;
  /** The fees GET /fees publishes (services/fee-schedule.ts). */
  fees: FeeSchedule;
  swaps: SwapRoutingService;
  compliance: ComplianceService;
  reverts: RevertService;
  chains: ReadonlyMap<Network, ChainBackend>;
  sandboxes: ReadonlyMap<Network, SandboxLedger>;
  health: HealthService;
  meta: MetaInfo;
  nullifierAddress: (network: Network, mint: Uint8Array, hash: Uint8Array) => string;
  consoleDir?: string;
  /** What the operator's /admin API reads and changes (composition/console-admin.ts). */
  admin: AdminRouteDeps;
  /**
   * Whether a token is the operator's. The one guard built on it (routes/admin/auth.ts) stands in
   * front of /admin, /health/detail and the main port's /metrics, so failed sign-ins count once.
   */
  verifyOperator: (token: string) => boolean;
  /** The metrics text (composition/ops.ts), for GET /metrics and the metrics listener; none with metrics off. */
  metrics?: MetricsScrape;
  /** One log line per request (composition/ops.ts), before anything else. */
  requestLog?: RequestLog;
  log: (line: string) => void;
}

export interface RelayApp {
  app: Express;
  /** Node's request listener: the indexer's reads answered ahead of Express (http/front-door.ts), the rest by `app`. */
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  limits: RateLimits;
  /** Node's request listener of the metrics port (metrics.host:metrics.port), null with metrics off. */
  metricsHandle: ((req: IncomingMessage, res: ServerResponse) => void) | null;
}

/** The HTTP surface without listen(): tests and the Electron host mount the same app. */
export function createApp(deps: AppDeps): RelayApp {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", deps.config.http.trustProxy);
  app.set("etag", false);

  // Every body reaches the parser (a chunked one of unknown size too); verifyJsonBody refuses a non-empty one that is not application/json.
  const json = express.json({ limit: deps.config.http.bodyLimitBytes, type: () => true, strict: true, verify: verifyJsonBody });
  // Read only once a request is past its rate limit (docs/security.md, "Rate limits"): a refused body costs nothing to parse.
  const parseBody = withoutEmptyBody(json);
  const limits = new RateLimits(deps.config.rateLimits, clientIdentity(deps), deps.limitCounter, deps.config.auth.tokenTtlSec, Date.now, [parseBody]);

  // Loopback safety (docs/security.md): a DNS-rebound page is refused by its Host, and a
  // cross-origin "simple" request (text/plain, form) cannot deliver a body: bodies must be JSON.
  // A page on another origin is refused by its Origin (or Sec-Fetch-Site) before anything counts it.
  const host = hostAcceptor(deps.config.host, deps.config.http.publicHostnames);
  const crossSite = crossSiteGuard({ allowedOrigins: deps.config.http.allowedOrigins, trustProxy: deps.config.http.trustProxy });
  // Run as one middleware: each router layer costs a get_proof about a microsecond.
  app.use(
    inSequence([
      ...(deps.requestLog ? [requestLogMiddleware(deps.requestLog)] : []),
      nosniff,
      ...(host ? [hostCheck(host)] : []),
      crossSiteCheck(crossSite),
      requireJsonBody(),
    ]),
  );
  const reads = mountRoutes(app, deps, limits, parseBody);

  const answerError = errorAnswer(deps);
  const onError: ErrorRequestHandler = (error: unknown, req, res, _next) => answerError(req.method, req.path, error, res);
  app.use(onError);

  const handle = frontDoor({
    routes: reads,
    accepts: (req) => (!host || host.accepts(req.headers.host)) && crossSite.refusal(req) === null,
    begin: (req, res, route) => {
      // Held for the answer's own writeHead (http/respond.ts): the front door's reads answer through writeJson.
      deps.requestLog?.begin(req, res, route, holdHeader, true);
      commonHeaders(res, holdHeader);
    },
    settle: (res) => deps.requestLog?.settle(res),
    admission: (endpoint) => limits.admission(endpoint),
    // The front door takes no query, so its path is the whole URL.
    failed: (req, res, error) => answerError(req.method, req.url ?? "", error, res),
    express: app,
  });
  // The metrics port answers loopback names only when bound to loopback, and no page of any other origin.
  const metricsHandle = deps.metrics
    ? metricsListener({
        scrape: deps.metrics,
        host: hostAcceptor(deps.config.metrics.host, []),
        crossSite: crossSiteGuard({ allowedOrigins: [], trustProxy: false }),
        log: deps.log,
      })
    : null;
  return { app, handle, limits, metricsHandle };
}

type HeaderSetter = (res: ServerResponse, name: string, value: string) => void;
const setNow: HeaderSetter = (res, name, value) => void res.setHeader(name, value);
/** The headers every answer carries besides the request id; `set`: how (the front door holds them for its writeHead). */
const commonHeaders = (res: ServerResponse, set: HeaderSetter = setNow): void => set(res, "X-Content-Type-Options", "nosniff");
const nosniff: RequestHandler = (_req, res, next) => {
  commonHeaders(res);
  next();
};

/**
 * docs/security.md, "Rate limits": every request is counted by its client address (req.ip's, after the
 * proxies http.trustProxy names), and also by the wallet of a valid token (header, or the path's {id}).
 */
function clientIdentity(deps: AppDeps): ClientIdentity {
  return {
    ip: clientAddress(deps.config.http.trustProxy),
    wallet: async (req, params) => {
      const header = req.headers["x-api-auth"];
      return deps.auth.walletOf(typeof header === "string" ? header : params?.id);
    },
  };
}

/** Every route after the safety checks, the operator's last; answers the indexer's reads for the front door. */
function mountRoutes(app: Express, deps: AppDeps, limits: RateLimits, parseBody: RequestHandler): ReturnType<typeof indexerReads> {
  // The one operator guard: /admin, /health/detail and the main port's /metrics share its lockout.
  const operatorGuard = requireOperator(deps.verifyOperator);
  // The indexer's reads first: they are most of the traffic, and their paths (/get_*) are no other router's.
  // Registered on the app's own router, not mounted as a nested one: a nested router costs every read a few microseconds.
  // The front door (createApp) answers most of them before Express; these routes answer the rest the same way.
  const reads = indexerReads({ indexer: deps.indexer, chains: deps.chains });
  indexerRoutes({ indexer: deps.indexer, chains: deps.chains, nullifierAddress: deps.nullifierAddress, limits }, app.router, reads);
  app.use(metaRoutes(deps.health, deps.meta, operatorGuard));
  app.use(authRoutes(deps.auth, limits));
  app.use(relayRoutes({ relay: deps.relay, fees: deps.fees, chains: deps.chains, auth: deps.auth, limits, config: deps.config }));
  app.use(swapRoutes({ swaps: deps.swaps, limits, log: deps.log }));
  app.use(revertRoutes({ reverts: deps.reverts, limits, enabled: (n) => deps.chains.has(n) }));
  app.use(complianceRoutes({ compliance: deps.compliance, limits, enabled: (n) => deps.chains.has(n) }));
  if (deps.sandboxes.size > 0) app.use(sandboxRoutes(deps.sandboxes, deps.indexer, limits));
  // The routes above parse a body after their limit (RateLimits' `admitted`); the operator's below have no limit.
  app.use(parseBody);

  if (deps.metrics) app.use(metricsRoutes({ scrape: deps.metrics, guard: operatorGuard }));
  app.use("/admin", operatorGuard, adminRoutes(deps.admin));

  if (deps.consoleDir && existsSync(path.join(deps.consoleDir, "index.html"))) {
    const dir = deps.consoleDir;
    app.use("/console", consoleSecurityHeaders(), express.static(dir, { index: "index.html", fallthrough: true }));
    app.get(/^\/console(\/.*)?$/, consoleSecurityHeaders(), (_req, res) => res.sendFile(path.join(dir, "index.html")));
    app.get("/", (_req, res) => res.redirect("/console/"));
  }

  app.use((_req, res) => sendError(res, 404, ErrorName.NotFound, "no such endpoint"));
  return reads;
}

/** How often a request refused for want of the database is logged: every refused request would flood the log while it is down. */
const STORE_LOG_EVERY_MS = 10_000;

/** A database URL (credentials included) that an error message might carry: never logged. */
const DATABASE_URL = /\b(?:postgres(?:ql)?:\/\/|[a-z][a-z0-9+.-]*:\/\/[^\s'"/]*@)[^\s'"]*/gi;

/** The answer to an error a handler raised or passed on, for Express's routes and the front door's alike. */
function errorAnswer(deps: AppDeps): (method: string | undefined, path: string, error: unknown, res: ServerResponse) => void {
  let storeLoggedAt = -Infinity;
  let storeRefusals = 0;
  return (method, path, error, res) => {
    const e = error as { type?: string; status?: number; message?: string };
    const relay = path === "/relay" || path === "/relay_swap";
    if (isStoreUnavailable(error)) {
      storeRefusals += 1;
      const now = Date.now();
      if (now - storeLoggedAt >= STORE_LOG_EVERY_MS) {
        const cause = String(e.message ?? "").replace(DATABASE_URL, "(database URL)");
        deps.log(`store unavailable: ${storeRefusals} request(s) answered 503 (last ${method} ${path}): ${cause}`);
        storeLoggedAt = now;
        storeRefusals = 0;
      }
      if (!res.headersSent) sendStoreUnavailable(res, relay ? "relay" : "plain");
      return;
    }
    let status = 500;
    let name: string = path === "/login" ? ErrorName.ServerError : "InternalError";
    let message = "internal error";
    if (e.type === UNSUPPORTED_MEDIA_TYPE || e.type === "charset.unsupported") {
      status = 415;
      name = ErrorName.UnsupportedMediaType;
      message = e.message ?? "a request body must be sent with Content-Type: application/json";
    } else if (e.type === "entity.too.large") {
      status = 413;
      name = ErrorName.PayloadTooLarge;
      message = `body exceeds ${deps.config.http.bodyLimitBytes} bytes`;
    } else if (
      e.type === "entity.parse.failed" ||
      e.type === "encoding.unsupported" ||
      e.type === "charset.unsupported" ||
      e.type === "entity.verify.failed" ||
      (typeof e.status === "number" && e.status >= 400 && e.status < 500)
    ) {
      status = e.status && e.status < 500 ? e.status : 400;
      name = ErrorName.InvalidRequest;
      message = e.type === "entity.parse.failed" ? "body is not valid JSON" : (e.message ?? "bad request");
    } else {
      deps.log(`error: ${method} ${path}: ${e.message ?? String(error)}`);
      if (relay) name = ErrorName.RelayFailed;
    }
    if (res.headersSent) return;
    writeJson(res, status, relay ? { status, error: name, message } : { error: name, message });
  };
}
