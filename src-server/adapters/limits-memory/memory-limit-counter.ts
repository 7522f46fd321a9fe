import { SlidingWindowLimiter, type LimitDecision } from "../../core/limits/sliding-window";
import type { LimitCounter, LimitTake } from "../../ports/limit-counter";

/**
 * The counts of one process (sql.js mode: one process owns the data dir, so its
 * counts are the relay's). One SlidingWindowLimiter per (limit, windowMs): the
 * keys carry their endpoint and kind, so limits of the same size share a limiter
 * and its idle-key sweep without sharing counts.
 */
export class MemoryLimitCounter implements LimitCounter {
  private readonly limiters = new Map<string, SlidingWindowLimiter>();

  take(keys: LimitTake[], now: number): Promise<LimitDecision[]> {
    // Every key of the request is decided in one synchronous turn, as one statement decides them on PostgreSQL.
    const decisions: LimitDecision[] = [];
    for (const k of keys) {
      const limiter = this.limiterOf(k.limit, k.windowMs);
      // The /48 rule: a /64 already over its own limit (keys[0]) does not spend its site's.
      const take = k.mode === "take" || (k.mode === "take-if-first-allowed" && decisions[0]?.allowed === true);
      decisions.push(take ? limiter.take(k.key, now) : limiter.peek(k.key, now));
    }
    return Promise.resolve(decisions);
  }

  private limiterOf(limit: number, windowMs: number): SlidingWindowLimiter {
    const id = `${limit}/${windowMs}`;
    let limiter = this.limiters.get(id);
    if (!limiter) this.limiters.set(id, (limiter = new SlidingWindowLimiter(limit, windowMs)));
    return limiter;
  }
}
