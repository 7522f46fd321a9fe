import { describe, expect, it } from "vitest";
import { judgeRevertQuota, REVERT_QUOTA_WINDOW_MS } from "./quota";

const HOUR = 3600_000;

describe("judgeRevertQuota", () => {
  it("allows fewer than perDay reverts in the last 24 h and refuses the next one until the oldest leaves the window", () => {
    const now = 100 * REVERT_QUOTA_WINDOW_MS;
    expect(judgeRevertQuota([], now, 3)).toEqual({ ok: true });
    expect(judgeRevertQuota([now - 2 * HOUR, now - HOUR], now, 3)).toEqual({ ok: true });
    expect(judgeRevertQuota([now - 3 * HOUR, now - 2 * HOUR, now - HOUR], now, 3)).toEqual({ ok: false, retryAfterSec: 21 * 3600 });
  });

  it("does not count reverts older than 24 h", () => {
    const now = 100 * REVERT_QUOTA_WINDOW_MS;
    expect(judgeRevertQuota([now - 25 * HOUR, now - 24 * HOUR, now - HOUR], now, 2)).toEqual({ ok: true });
  });

  it("with more than perDay counted (a lowered setting), waits until only perDay − 1 remain", () => {
    const now = 100 * REVERT_QUOTA_WINDOW_MS;
    expect(judgeRevertQuota([now - 4 * HOUR, now - 3 * HOUR, now - 2 * HOUR], now, 1)).toEqual({ ok: false, retryAfterSec: 22 * 3600 });
  });
});
