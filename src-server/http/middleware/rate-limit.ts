import type { Request, RequestHandler } from "express";
import { ErrorName } from "../../../src-shared/errors";
import { SlidingWindowLimiter } from "../../core/limits/sliding-window";
import type { RateLimitConfig, RateLimitedEndpoint } from "../../config/schema";

export type ClientKey = (req: Request) => string;

export class RateLimits {
  readonly limiters = new Map<RateLimitedEndpoint, SlidingWindowLimiter>();

  constructor(
    private readonly config: RateLimitConfig,
    private readonly clientKey: ClientKey,
    private readonly now: () => number = Date.now,
  ) {
    for (const [endpoint, limit] of Object.entries(config.perEndpoint) as [RateLimitedEndpoint, number][]) {
      this.limiters.set(endpoint, new SlidingWindowLimiter(limit, config.windowSec * 1000));
    }
  }

  /**
   * DESIGN §4: per endpoint and client, sliding window; 429 with Retry-After
   * and RateLimit-* headers; relay endpoints answer in the relay result shape.
   */
  middleware(endpoint: RateLimitedEndpoint, shape: "relay" | "plain" = "plain"): RequestHandler {
    const limiter = this.limiters.get(endpoint)!;
    const policy = `${limiter.limit};w=${this.config.windowSec}`;
    return (req, res, next) => {
      if (!this.config.enabled) return next();
      const d = limiter.take(this.clientKey(req), this.now());
      res.setHeader("RateLimit-Policy", policy);
      res.setHeader("RateLimit-Limit", String(d.limit));
      res.setHeader("RateLimit-Remaining", String(d.remaining));
      res.setHeader("RateLimit-Reset", String(d.resetSec));
      if (d.allowed) return next();
      res.setHeader("Retry-After", String(d.resetSec));
      res.status(429).json(shape === "relay" ? { status: 429, error: ErrorName.RateLimited } : { error: ErrorName.RateLimited });
    };
  }

  stats(): { endpoint: string; hits: number; refusals: number }[] {
    return [...this.limiters].map(([endpoint, l]) => ({ endpoint, hits: l.hits, refusals: l.refusals }));
  }
}
