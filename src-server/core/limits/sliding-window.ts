export interface LimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest counted request leaves the window. */
  resetSec: number;
}

/**
 * An exact sliding-window log per key: at most `limit` requests in any
 * `windowMs`. Each key keeps at most `limit` timestamps in a ring, so memory
 * is bounded by limit × active keys; idle keys are swept.
 */
export class SlidingWindowLimiter {
  private readonly rings = new Map<string, { times: Float64Array; head: number; count: number }>();
  private lastSweep = 0;
  hits = 0;
  refusals = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** What `take` would answer now, without counting anything. */
  peek(key: string, now: number): LimitDecision {
    const ring = this.rings.get(key);
    if (!ring) return { allowed: true, limit: this.limit, remaining: this.limit, resetSec: Math.max(1, Math.ceil(this.windowMs / 1000)) };
    let head = ring.head;
    let count = ring.count;
    while (count > 0 && ring.times[head]! <= now - this.windowMs) {
      head = (head + 1) % this.limit;
      count--;
    }
    const resetSec = count > 0 ? Math.max(1, Math.ceil((ring.times[head]! + this.windowMs - now) / 1000)) : Math.max(1, Math.ceil(this.windowMs / 1000));
    return { allowed: count < this.limit, limit: this.limit, remaining: Math.max(0, this.limit - count), resetSec };
  }

  take(key: string, now: number): LimitDecision {
    this.sweep(now);
    let ring = this.rings.get(key);
    if (!ring) this.rings.set(key, (ring = { times: new Float64Array(this.limit), head: 0, count: 0 }));
    // Drop timestamps that left the window (oldest sit at head).
    while (ring.count > 0 && ring.times[ring.head]! <= now - this.windowMs) {
      ring.head = (ring.head + 1) % this.limit;
      ring.count--;
    }
    this.hits++;
    if (ring.count >= this.limit) {
      this.refusals++;
      const oldest = ring.times[ring.head]!;
      return { allowed: false, limit: this.limit, remaining: 0, resetSec: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)) };
    }
    ring.times[(ring.head + ring.count) % this.limit] = now;
    ring.count++;
    const oldest = ring.times[ring.head]!;
    return { allowed: true, limit: this.limit, remaining: this.limit - ring.count, resetSec: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)) };
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [key, ring] of this.rings) {
      const newest = ring.times[(ring.head + ring.count - 1 + this.limit) % this.limit]!;
      if (ring.count === 0 || newest <= now - this.windowMs) this.rings.delete(key);
    }
  }
}
