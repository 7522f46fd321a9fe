import type { LimitDecision } from "../../core/limits/sliding-window";
import type { LimitCounter, LimitTake } from "../../ports/limit-counter";
import type { PgDatabase } from "./pool";

const resetSec = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/**
 * A key counts separately per (limit, window), as MemoryLimitCounter keeps one limiter per
 * pair: a key asked under another limit (a changed config) starts its own count there too.
 */
const rowKey = (k: LimitTake): string => `${k.limit}/${Math.ceil(k.windowMs)}|${k.key}`;

/**
 * Rate-limit counts shared by every instance: SlidingWindowLimiter's exact sliding-window log,
 * one row per key, all of one request's keys decided in one round trip (relay_limit_take,
 * migration 1). Times are the callers' `now`, whole milliseconds.
 */
export class PgLimitCounter implements LimitCounter {
  constructor(private readonly db: PgDatabase) {}

  async take(keys: LimitTake[], now: number): Promise<LimitDecision[]> {
    if (keys.length === 0) return [];
    const at = Math.floor(now);
    const rows = await this.db.query<{ allowed: boolean; counted: number; oldest: number | null }>(
      "SELECT allowed, counted, oldest FROM relay_limit_take($1::text[], $2::integer[], $3::bigint[], $4::text[], $5::bigint) ORDER BY ord",
      [keys.map(rowKey), keys.map((k) => k.limit), keys.map((k) => Math.ceil(k.windowMs)), keys.map((k) => k.mode), at],
    );
    return keys.map((k, i) => {
      const r = rows[i]!;
      return {
        allowed: r.allowed,
        limit: k.limit,
        remaining: Math.max(0, k.limit - r.counted),
        resetSec: r.oldest === null ? resetSec(k.windowMs) : resetSec(r.oldest + k.windowMs - at),
      };
    });
  }

  /** Drops keys with nothing left in their window; answers how many went. Any instance may run it. */
  async prune(now: number): Promise<number> {
    const [row] = await this.db.query<{ n: number }>(
      "WITH gone AS (DELETE FROM limit_counters WHERE last_at <= $1::bigint - window_ms RETURNING 1) SELECT count(*)::integer AS n FROM gone",
      [Math.floor(now)],
    );
    return row?.n ?? 0;
  }
}
