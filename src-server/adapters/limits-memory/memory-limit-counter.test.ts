import { describe, expect, it } from "vitest";
import { SlidingWindowLimiter } from "../../core/limits/sliding-window";
import type { LimitTake } from "../../ports/limit-counter";
import { MemoryLimitCounter } from "./memory-limit-counter";

/** A small deterministic generator (mulberry32): the same sequence every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("MemoryLimitCounter", () => {
  it("answers every take and peek exactly as a SlidingWindowLimiter of the same limit and window", async () => {
    const shapes = [
      { limit: 3, windowMs: 10_000 },
      { limit: 6, windowMs: 10_000 },
      { limit: 1, windowMs: 2_500 },
      { limit: 5, windowMs: 60_000 },
    ];
    const counter = new MemoryLimitCounter();
    const reference = shapes.map((s) => new SlidingWindowLimiter(s.limit, s.windowMs));
    const next = random(27);
    let now = 1_000_000;
    for (let i = 0; i < 5000; i++) {
      now += Math.floor(next() * 700);
      const keys: LimitTake[] = [];
      const expected = [];
      for (let k = 0, n = 1 + Math.floor(next() * 3); k < n; k++) {
        const s = Math.floor(next() * shapes.length);
        const key = `${s}:k${Math.floor(next() * 4)}`;
        const mode = next() < 0.8 ? "take" : "peek";
        keys.push({ key, ...shapes[s]!, mode });
        expected.push(mode === "take" ? reference[s]!.take(key, now) : reference[s]!.peek(key, now));
      }
      expect(await counter.take(keys, now)).toEqual(expected);
    }
  });

  it("takes a take-if-first-allowed key only when the first key was allowed, else peeks it (the /48 rule)", async () => {
    const counter = new MemoryLimitCounter();
    const request = (ip: string): LimitTake[] => [
      { key: `ip:${ip}`, limit: 2, windowMs: 60_000, mode: "take" },
      { key: "site", limit: 4, windowMs: 60_000, mode: "take-if-first-allowed" },
    ];
    expect((await counter.take(request("a"), 0)).map((d) => d.remaining)).toEqual([1, 3]);
    expect((await counter.take(request("a"), 0)).map((d) => d.remaining)).toEqual([0, 2]);
    // The /64 is over its own limit: the site is only looked at, not spent.
    const refused = await counter.take(request("a"), 0);
    expect(refused.map((d) => d.allowed)).toEqual([false, true]);
    expect(refused[1]!.remaining).toBe(2);
    expect((await counter.take(request("b"), 0)).map((d) => d.remaining)).toEqual([1, 1]);
    expect((await counter.take(request("c"), 0)).map((d) => d.remaining)).toEqual([1, 0]);
    expect((await counter.take(request("d"), 0)).map((d) => d.allowed)).toEqual([true, false]);
  });

  it("keeps the counts of different keys apart when their limits are the same size", async () => {
    const counter = new MemoryLimitCounter();
    const take = (key: string) => counter.take([{ key, limit: 1, windowMs: 1000, mode: "take" }], 0);
    expect((await take("login:ip:a"))[0]!.allowed).toBe(true);
    expect((await take("relay:ip:a"))[0]!.allowed).toBe(true);
    expect((await take("login:ip:a"))[0]!.allowed).toBe(false);
  });
});
