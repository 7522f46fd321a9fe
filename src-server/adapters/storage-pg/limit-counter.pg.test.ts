/**
 * Shared rate limits: the same decisions as the in-memory SlidingWindowLimiter, and never more
 * admissions than the limit when two instances take the same keys at once.
 */
import { describe, expect, it } from "vitest";
import { SlidingWindowLimiter } from "../../core/limits/sliding-window";
import { MemoryLimitCounter } from "../limits-memory/memory-limit-counter";
import { pgStoresPerTest } from "../../../tests/support/pg-stores";
import type { LimitTake } from "../../ports/limit-counter";

const pg = pgStoresPerTest();

/** A small deterministic generator (mulberry32): the sequence is the same on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("PgLimitCounter", () => {
  it("answers exactly as SlidingWindowLimiter over a random sequence of takes and peeks", async () => {
    const s = await pg.open();
    const rnd = random(27);
    const limiters = { ip: new SlidingWindowLimiter(5, 1_000), site: new SlidingWindowLimiter(12, 1_000), wallet: new SlidingWindowLimiter(3, 2_500) };
    let now = 1_780_000_000_000;
    let refused = 0;
    for (let step = 0; step < 400; step++) {
      now += Math.floor(rnd() * 120);
      const ip = `ip:${Math.floor(rnd() * 3)}`;
      const site = `site:${Math.floor(rnd() * 2)}`;
      const wallet = `w:${Math.floor(rnd() * 2)}`;
      const kind = rnd();
      let keys: LimitTake[];
      let expected;
      if (kind < 0.6) {
        // The middleware's shape: per IP, then the /48 site only if the IP was allowed, then the wallet.
        keys = [
          { key: ip, limit: 5, windowMs: 1_000, mode: "take" },
          { key: site, limit: 12, windowMs: 1_000, mode: "take-if-first-allowed" },
          { key: wallet, limit: 3, windowMs: 2_500, mode: "take" },
        ];
        const a = limiters.ip.take(ip, now);
        const b = a.allowed ? limiters.site.take(site, now) : limiters.site.peek(site, now);
        expected = [a, b, limiters.wallet.take(wallet, now)];
      } else if (kind < 0.8) {
        keys = [
          { key: ip, limit: 5, windowMs: 1_000, mode: "peek" },
          { key: wallet, limit: 3, windowMs: 2_500, mode: "peek" },
        ];
        expected = [limiters.ip.peek(ip, now), limiters.wallet.peek(wallet, now)];
      } else {
        keys = [{ key: site, limit: 12, windowMs: 1_000, mode: "take" }];
        expected = [limiters.site.take(site, now)];
      }
      expect(await s.limits.take(keys, now), `step ${step}`).toEqual(expected);
      refused += expected.filter((d) => !d.allowed).length;
    }
    // The sequence runs into every limit often, not only under them.
    expect(refused).toBeGreaterThan(40);
  });

  it("answers as MemoryLimitCounter (sql.js mode), one key under two limits and a take-if-first-allowed first key included", async () => {
    const s = await pg.open();
    const memory = new MemoryLimitCounter();
    const rnd = random(48);
    const modes: LimitTake["mode"][] = ["take", "peek", "take-if-first-allowed"];
    let now = 1_780_000_000_000;
    for (let step = 0; step < 300; step++) {
      now += Math.floor(rnd() * 200);
      const keys: LimitTake[] = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => ({
        key: `k${Math.floor(rnd() * 3)}`,
        limit: rnd() < 0.5 ? 2 : 4,
        windowMs: rnd() < 0.5 ? 1_000 : 1_500,
        mode: modes[Math.floor(rnd() * 3)]!,
      }));
      expect(await s.limits.take(keys, now), `step ${step}`).toEqual(await memory.take(keys, now));
    }
  });

  it("never admits more than the limit when two instances take the same keys at once", async () => {
    const a = await pg.open({ poolSize: 6 });
    const b = await pg.open({ url: pg.urlOf(a), poolSize: 6 });
    const now = 1_780_000_000_000;
    // Keys in opposite orders on the two instances: the sorted locking keeps them from deadlocking.
    const asks = Array.from({ length: 40 }, (_, i) =>
      (i % 2 ? b : a).limits.take(
        i % 2
          ? [
              { key: "shared-2", limit: 7, windowMs: 60_000, mode: "take" },
              { key: "shared-1", limit: 10, windowMs: 60_000, mode: "take" },
            ]
          : [
              { key: "shared-1", limit: 10, windowMs: 60_000, mode: "take" },
              { key: "shared-2", limit: 7, windowMs: 60_000, mode: "take" },
            ],
        now + i,
      ),
    );
    const answers = await Promise.all(asks);
    const shared1 = answers.map((d, i) => (i % 2 ? d[1]! : d[0]!));
    const shared2 = answers.map((d, i) => (i % 2 ? d[0]! : d[1]!));
    expect(shared1.filter((d) => d.allowed)).toHaveLength(10);
    expect(shared2.filter((d) => d.allowed)).toHaveLength(7);
    const [peek] = await a.limits.take([{ key: "shared-1", limit: 10, windowMs: 60_000, mode: "peek" }], now + 100);
    expect(peek).toMatchObject({ allowed: false, remaining: 0 });
  });

  it("takes a take-if-first-allowed key only when the first key was allowed", async () => {
    const s = await pg.open();
    const now = 1_780_000_000_000;
    const ask = (): Promise<unknown> =>
      s.limits.take(
        [
          { key: "ip", limit: 1, windowMs: 10_000, mode: "take" },
          { key: "site", limit: 5, windowMs: 10_000, mode: "take-if-first-allowed" },
        ],
        now,
      );
    await ask();
    await ask();
    await ask();
    const [site] = await s.limits.take([{ key: "site", limit: 5, windowMs: 10_000, mode: "peek" }], now);
    expect(site).toEqual({ allowed: true, limit: 5, remaining: 4, resetSec: 10 });
  });

  it("prunes keys with nothing left in their window, and keeps the rest", async () => {
    const s = await pg.open();
    const now = 1_780_000_000_000;
    await s.limits.take([{ key: "old", limit: 3, windowMs: 1_000, mode: "take" }], now);
    await s.limits.take([{ key: "recent", limit: 3, windowMs: 1_000, mode: "take" }], now + 900);
    await s.limits.take([{ key: "peeked-only", limit: 3, windowMs: 1_000, mode: "peek" }], now + 900);
    expect(await s.limits.prune(now + 1_000)).toBe(2);
    const [recent] = await s.limits.take([{ key: "recent", limit: 3, windowMs: 1_000, mode: "peek" }], now + 1_000);
    expect(recent!.remaining).toBe(2);
  });

  it("answers an empty request without a query", async () => {
    const s = await pg.open();
    expect(await s.limits.take([], 0)).toEqual([]);
  });
});
