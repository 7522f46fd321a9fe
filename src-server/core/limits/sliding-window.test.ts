import { describe, expect, it } from "vitest";
import { SlidingWindowLimiter } from "./sliding-window";

describe("SlidingWindowLimiter", () => {
  it("allows `limit` requests in a window, refuses the next, and says when to retry", () => {
    const l = new SlidingWindowLimiter(3, 60_000);
    expect([0, 1000, 2000].map((t) => l.take("a", t).allowed)).toEqual([true, true, true]);
    const refused = l.take("a", 3000);
    expect(refused).toEqual({ allowed: false, limit: 3, remaining: 0, resetSec: 57 });
  });

  it("slides: a request is allowed again once the oldest leaves the window", () => {
    const l = new SlidingWindowLimiter(2, 60_000);
    l.take("a", 0);
    l.take("a", 30_000);
    expect(l.take("a", 59_999).allowed).toBe(false);
    expect(l.take("a", 60_000).allowed).toBe(true);
    expect(l.take("a", 60_001).allowed).toBe(false);
  });

  it("counts each key separately", () => {
    const l = new SlidingWindowLimiter(1, 1000);
    expect(l.take("a", 0).allowed).toBe(true);
    expect(l.take("b", 0).allowed).toBe(true);
    expect(l.take("a", 10).allowed).toBe(false);
  });

  it("forgets idle keys so memory stays bounded", () => {
    const l = new SlidingWindowLimiter(5, 1000);
    for (let i = 0; i < 100; i++) l.take(`k${i}`, 0);
    l.take("x", 5000);
    expect((l as unknown as { rings: Map<string, unknown> }).rings.size).toBe(1);
  });

  it("peek answers what take would, without counting", () => {
    const l = new SlidingWindowLimiter(2, 10_000);
    expect(l.peek("a", 0)).toMatchObject({ allowed: true, remaining: 2 });
    l.take("a", 0);
    l.take("a", 1000);
    expect(l.peek("a", 2000)).toEqual({ allowed: false, limit: 2, remaining: 0, resetSec: 8 });
    expect(l.peek("a", 10_000)).toMatchObject({ allowed: true, remaining: 1 });
    expect(l.take("a", 10_000).allowed).toBe(true);
    expect(l.peek("a", 10_000).allowed).toBe(false);
  });
});
