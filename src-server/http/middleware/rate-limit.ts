import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler } from "express";
import { ErrorName } from "../../../src-shared/errors";
import type { LimitDecision } from "../../core/limits/sliding-window";
import type { RateLimitConfig, RateLimitedEndpoint } from "../../config/schema";
import type { LimitCounter, LimitTake } from "../../ports/limit-counter";
import type { TokenAdmission } from "../../services/auth";
import type { VerificationGate } from "../../services/relay-service";
import type { PathParams } from "../params";
import { writeJson } from "../respond";
import { clientKeyOf, siteKeyOf } from "./client-address";

/**
 * Who a request comes from: its client address (after the trusted proxies), and
 * the wallet of a valid token it carries (header, or the path's {id}). Node's
 * own request: reads answered ahead of Express (http/front-door.ts) are counted too.
 */
export interface ClientIdentity {
  ip(req: IncomingMessage): string;
  wallet(req: IncomingMessage, params: PathParams | undefined): Promise<string | null>;
}

/** A route's limit: true when the request may go on (RateLimit-* headers set), false once it is refused with 429. */
export type Admission = (req: IncomingMessage, res: ServerResponse, params?: PathParams) => Promise<boolean>;

/** A /login that would take a token over a cap: when to try again. */
export interface TokenRefusal {
  retryAfterSec: number;
  reason: string;
}

/** The decision that tells the client most: a refusal over an allowance; of two, the one that waits longest or leaves fewest. */
function stricter(a: LimitDecision, b: LimitDecision | null): LimitDecision {
  if (!b) return a;
  if (a.allowed !== b.allowed) return a.allowed ? b : a;
  if (!a.allowed) return a.resetSec >= b.resetSec ? a : b;
  return a.remaining <= b.remaining ? a : b;
}

const HOUR_MS = 3600_000;

/**
 * Per-client limits (docs/security.md, "Rate limits"). Every limited request is
 * counted against its client address (an IPv6 one by its /64 and, at
 * ipv6Per48Multiple times the limit, its /48); a request carrying a valid token is also
 * counted against that token's wallet, so minting tokens for fresh wallets buys
 * nothing (the address is still counted) and a wallet gains nothing from many
 * addresses. Either count over the limit refuses: 429 with Retry-After and
 * RateLimit-* headers; relay endpoints answer in the relay result shape.
 * The limit runs as route middleware, before the body is read (the parser is
 * one of the `admitted` stages) or a signature or proof is checked.
 *
 * The counts live in `counter` (in memory, or shared by every instance on one
 * database): a request's keys go to it together, one round trip. Its keys name
 * the endpoint and what is counted, so no two limits share a count.
 */
export class RateLimits {
  private readonly windowMs: number;
  /** Requests that reached each endpoint's limit, in the config's order (stats). */
  private readonly hits = new Map<RateLimitedEndpoint, number>();
  private readonly refusals = new Map<RateLimitedEndpoint, number>();
  /**
   * Proof verifications running or queued per client address, in this instance only: the
   * share guards this instance's own verifier workers, which no other instance uses (a
   * second instance has its own pool and its own share of it).
   */
  private readonly verifying = new Map<string, number>();

  /**
   * `admitted`: what a request passes through once its limit lets it on, in
   * order (app.ts: the body parser), so that a refused request's body is never read.
   */
  constructor(
    private readonly config: RateLimitConfig,
    private readonly identity: ClientIdentity,
    private readonly counter: LimitCounter,
    private readonly tokenTtlSec: number,
    private readonly now: () => number = Date.now,
    private readonly admitted: readonly RequestHandler[] = [],
  ) {
    this.windowMs = config.windowSec * 1000;
    for (const endpoint of Object.keys(config.perEndpoint) as RateLimitedEndpoint[]) this.hits.set(endpoint, 0);
  }

  get enabled(): boolean {
    return this.config.enabled;
  }

  /**
   * `scope` "ip" counts the address only: /login, whose token is not issued yet
   * (and whose body's wallet is unproven until its signature is checked).
   */
  middleware(endpoint: RateLimitedEndpoint, shape: "relay" | "plain" = "plain", scope: "ip+wallet" | "ip" = "ip+wallet"): RequestHandler[] {
    const admit = this.admission(endpoint, shape, scope);
    if (!admit) return [...this.admitted];
    // Express 5 passes a rejected promise (a store that cannot be reached) to the error handler.
    return [(req, res, next) => admit(req, res, req.params).then((ok) => void (ok && next())), ...this.admitted];
  }

  /**
   * The limit of one endpoint as a check on Node's request, or null with limits
   * off: set once at start, so behind a proxy that limits, or in a benchmark, a
   * route gets no extra step.
   */
  admission(endpoint: RateLimitedEndpoint, shape: "relay" | "plain" = "plain", scope: "ip+wallet" | "ip" = "ip+wallet"): Admission | null {
    if (!this.config.enabled) return null;
    const limit = this.config.perEndpoint[endpoint];
    const siteLimit = limit * this.config.ipv6Per48Multiple;
    const windowMs = this.windowMs;
    const policy = `${limit};w=${this.config.windowSec}`;
    return async (req, res, params) => {
      const ip = this.identity.ip(req);
      const site = siteKeyOf(ip);
      const wallet = scope === "ip+wallet" ? await this.identity.wallet(req, params) : null;
      const keys: LimitTake[] = [{ key: `${endpoint}:ip:${clientKeyOf(ip)}`, limit, windowMs, mode: "take" }];
      // A /64 already over its own limit does not spend its /48's: one busy /64 must not shut out the rest of its site.
      if (site) keys.push({ key: `${endpoint}:site:${site}`, limit: siteLimit, windowMs, mode: "take-if-first-allowed" });
      if (wallet) keys.push({ key: `${endpoint}:w:${wallet}`, limit, windowMs, mode: "take" });
      const decisions = await this.counter.take(keys, this.now());
      this.hits.set(endpoint, (this.hits.get(endpoint) ?? 0) + 1);
      const d = decisions.reduce((a, b) => stricter(a, b));
      res.setHeader("RateLimit-Policy", policy);
      res.setHeader("RateLimit-Limit", String(d.limit));
      res.setHeader("RateLimit-Remaining", String(d.remaining));
      res.setHeader("RateLimit-Reset", String(d.resetSec));
      if (d.allowed) return true;
      this.refusals.set(endpoint, (this.refusals.get(endpoint) ?? 0) + 1);
      refuse(res, d.resetSec, shape);
      return false;
    };
  }

  /**
   * The token caps of a /login from this request's address: called once the
   * signature and timestamp are good and just before a token is issued (so a
   * forged login for someone else's wallet cannot use up that wallet's tokens).
   * Counts the token when it answers null.
   */
  tokenGate(req: IncomingMessage): TokenAdmission {
    const address = this.identity.ip(req);
    const ip = `token:ip:${clientKeyOf(address)}`;
    const site = siteKeyOf(address);
    return async (wallet) => {
      if (!this.config.enabled) return null;
      const perIp = this.config.tokensPerIpPerHour;
      const keys: LimitTake[] = [{ key: ip, limit: perIp, windowMs: HOUR_MS, mode: "peek" }];
      if (site) keys.push({ key: `token:site:${site}`, limit: perIp * this.config.ipv6Per48Multiple, windowMs: HOUR_MS, mode: "peek" });
      // A token lives tokenTtlSec, so the tokens issued within that window are the live ones.
      keys.push({ key: `token:w:${wallet}`, limit: this.config.liveTokensPerWallet, windowMs: this.tokenTtlSec * 1000, mode: "peek" });
      const now = this.now();
      // Looked at first, counted only if every cap has room: a refused login uses up none of them.
      const refused = tokenRefusal(await this.counter.take(keys, now), site !== null);
      if (refused) return refused;
      // Another login (here or on another instance) may have taken the last one in between: the take's own answer decides.
      return tokenRefusal(
        await this.counter.take(
          keys.map((k) => ({ ...k, mode: "take" })),
          now,
        ),
        site !== null,
      );
    };
  }

  /**
   * At most `verificationsPerIp` proof verifications running or queued per client
   * address: one address cannot fill the verifier's queue for everyone.
   */
  verificationGate(req: IncomingMessage): VerificationGate {
    const ip = clientKeyOf(this.identity.ip(req));
    return () => {
      if (!this.config.enabled) return () => {};
      const n = this.verifying.get(ip) ?? 0;
      if (n >= this.config.verificationsPerIp) return null;
      this.verifying.set(ip, n + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (this.verifying.get(ip) ?? 1) - 1;
        if (left <= 0) this.verifying.delete(ip);
        else this.verifying.set(ip, left);
      };
    };
  }

  stats(): { endpoint: string; hits: number; refusals: number }[] {
    // Every limited request is counted by address; a refusal by either count is one refusal.
    return [...this.hits].map(([endpoint, hits]) => ({ endpoint, hits, refusals: this.refusals.get(endpoint) ?? 0 }));
  }
}

/** The first cap a /login's decisions (address, its /48 if any, wallet) leave no room in, as the client is told it; null when all have room. */
function tokenRefusal(decisions: readonly LimitDecision[], hasSite: boolean): TokenRefusal | null {
  const [a, ...rest] = decisions;
  const s = hasSite ? rest.shift() : undefined;
  const b = rest.shift();
  if (a && !a.allowed) return { retryAfterSec: a.resetSec, reason: `this address was issued ${a.limit} tokens in the last hour` };
  if (s && !s.allowed) return { retryAfterSec: s.resetSec, reason: `this address's /48 was issued ${s.limit} tokens in the last hour` };
  if (b && !b.allowed) return { retryAfterSec: b.resetSec, reason: `this wallet holds ${b.limit} live tokens; use one of them` };
  return null;
}

/** 429 RateLimited with Retry-After, in the endpoint's shape. */
export function refuse(res: ServerResponse, retryAfterSec: number, shape: "relay" | "plain", message?: string): void {
  res.setHeader("Retry-After", String(retryAfterSec));
  const body = message === undefined ? { error: ErrorName.RateLimited } : { error: ErrorName.RateLimited, message };
  writeJson(res, 429, shape === "relay" ? { status: 429, ...body } : body);
}
