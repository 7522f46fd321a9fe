import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler } from "express";
import { ErrorName } from "../../../src-shared/errors";
import { SlidingWindowLimiter, type LimitDecision } from "../../core/limits/sliding-window";
import type { RateLimitConfig, RateLimitedEndpoint } from "../../config/schema";
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
  wallet(req: IncomingMessage, params: PathParams | undefined): string | null;
}

/** A route's limit: true when the request may go on (RateLimit-* headers set), false once it is refused with 429. */
export type Admission = (req: IncomingMessage, res: ServerResponse, params?: PathParams) => boolean;

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
 */
export class RateLimits {
  private readonly byIp = new Map<RateLimitedEndpoint, SlidingWindowLimiter>();
  /** An IPv6 client's /48, at ipv6Per48Multiple times the per-client limit: a site's 65,536 /64s share it. */
  private readonly bySite = new Map<RateLimitedEndpoint, SlidingWindowLimiter>();
  private readonly byWallet = new Map<RateLimitedEndpoint, SlidingWindowLimiter>();
  private readonly tokensPerIp: SlidingWindowLimiter;
  private readonly tokensPerSite: SlidingWindowLimiter;
  private readonly tokensPerWallet: SlidingWindowLimiter;
  private readonly verifying = new Map<string, number>();
  private readonly refusals = new Map<RateLimitedEndpoint, number>();

  /**
   * `admitted`: what a request passes through once its limit lets it on, in
   * order (app.ts: the body parser), so that a refused request's body is never read.
   */
  constructor(
    private readonly config: RateLimitConfig,
    private readonly identity: ClientIdentity,
    tokenTtlSec: number,
    private readonly now: () => number = Date.now,
    private readonly admitted: readonly RequestHandler[] = [],
  ) {
    const site = config.ipv6Per48Multiple;
    for (const [endpoint, limit] of Object.entries(config.perEndpoint) as [RateLimitedEndpoint, number][]) {
      this.byIp.set(endpoint, new SlidingWindowLimiter(limit, config.windowSec * 1000));
      this.bySite.set(endpoint, new SlidingWindowLimiter(limit * site, config.windowSec * 1000));
      this.byWallet.set(endpoint, new SlidingWindowLimiter(limit, config.windowSec * 1000));
    }
    this.tokensPerIp = new SlidingWindowLimiter(config.tokensPerIpPerHour, 3600_000);
    this.tokensPerSite = new SlidingWindowLimiter(config.tokensPerIpPerHour * site, 3600_000);
    // A token lives tokenTtlSec, so the tokens issued within that window are the live ones (in memory: a restart forgets them).
    this.tokensPerWallet = new SlidingWindowLimiter(config.liveTokensPerWallet, tokenTtlSec * 1000);
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
    return [(req, res, next) => void (admit(req, res, req.params) && next()), ...this.admitted];
  }

  /**
   * The limit of one endpoint as a check on Node's request, or null with limits
   * off: set once at start, so behind a proxy that limits, or in a benchmark, a
   * route gets no extra step.
   */
  admission(endpoint: RateLimitedEndpoint, shape: "relay" | "plain" = "plain", scope: "ip+wallet" | "ip" = "ip+wallet"): Admission | null {
    if (!this.config.enabled) return null;
    const ipLimiter = this.byIp.get(endpoint)!;
    const siteLimiter = this.bySite.get(endpoint)!;
    const walletLimiter = this.byWallet.get(endpoint)!;
    const policy = `${ipLimiter.limit};w=${this.config.windowSec}`;
    return (req, res, params) => {
      const now = this.now();
      const ip = this.identity.ip(req);
      const byIp = ipLimiter.take(`ip:${clientKeyOf(ip)}`, now);
      const site = siteKeyOf(ip);
      // A /64 already over its own limit does not spend its /48's: one busy /64 must not shut out the rest of its site.
      const bySite = site ? (byIp.allowed ? siteLimiter.take(site, now) : siteLimiter.peek(site, now)) : null;
      const wallet = scope === "ip+wallet" ? this.identity.wallet(req, params) : null;
      const byWallet = wallet ? walletLimiter.take(`w:${wallet}`, now) : null;
      const d = stricter(stricter(byIp, bySite), byWallet);
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
  tokenGate(req: IncomingMessage): (wallet: string) => TokenRefusal | null {
    const address = this.identity.ip(req);
    const ip = `ip:${clientKeyOf(address)}`;
    const site = siteKeyOf(address);
    return (wallet) => {
      if (!this.config.enabled) return null;
      const now = this.now();
      const a = this.tokensPerIp.peek(ip, now);
      if (!a.allowed) return { retryAfterSec: a.resetSec, reason: `this address was issued ${a.limit} tokens in the last hour` };
      const s = site ? this.tokensPerSite.peek(site, now) : null;
      if (s && !s.allowed) return { retryAfterSec: s.resetSec, reason: `this address's /48 was issued ${s.limit} tokens in the last hour` };
      const b = this.tokensPerWallet.peek(wallet, now);
      if (!b.allowed) return { retryAfterSec: b.resetSec, reason: `this wallet holds ${b.limit} live tokens; use one of them` };
      this.tokensPerIp.take(ip, now);
      if (site) this.tokensPerSite.take(site, now);
      this.tokensPerWallet.take(wallet, now);
      return null;
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
    return [...this.byIp].map(([endpoint, l]) => ({ endpoint, hits: l.hits, refusals: this.refusals.get(endpoint) ?? 0 }));
  }
}

/** 429 RateLimited with Retry-After, in the endpoint's shape. */
export function refuse(res: ServerResponse, retryAfterSec: number, shape: "relay" | "plain", message?: string): void {
  res.setHeader("Retry-After", String(retryAfterSec));
  const body = message === undefined ? { error: ErrorName.RateLimited } : { error: ErrorName.RateLimited, message };
  writeJson(res, 429, shape === "relay" ? { status: 429, ...body } : body);
}
