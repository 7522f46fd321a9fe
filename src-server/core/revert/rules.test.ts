import { describe, expect, it } from "vitest";
import { judgeRevert, type RevertCandidate } from "./rules";

const rules = { pendingRevertAfterSec: 600 };
const now = 1_700_000_000;
const d = (over: Partial<RevertCandidate> = {}): RevertCandidate => ({ depositor: "alice", status: "failed", createdAt: now - 10, ...over });
const errorOf = (r: ReturnType<typeof judgeRevert>): string | null => (r.ok ? null : r.error.error);

describe("judgeRevert (spec order after the signature and DepositNotFound)", () => {
  it("allows the depositor to revert a failed deposit whose revert-nullifier is unspent", () => {
    expect(judgeRevert(d(), "alice", false, now, rules)).toEqual({ ok: true, value: undefined });
  });

  it("refuses another wallet with NotDepositor, before any state check", () => {
    expect(errorOf(judgeRevert(d(), "bob", false, now, rules))).toBe("NotDepositor");
    expect(errorOf(judgeRevert(d({ status: "indexed" }), "bob", true, now, rules))).toBe("NotDepositor");
  });

  it("refuses an indexed deposit with AlreadyIndexed, even when the nullifier is spent", () => {
    expect(errorOf(judgeRevert(d({ status: "indexed" }), "alice", false, now, rules))).toBe("AlreadyIndexed");
    expect(errorOf(judgeRevert(d({ status: "indexed" }), "alice", true, now, rules))).toBe("AlreadyIndexed");
  });

  it("refuses a second revert with NullifierSpent (spent nullifier, or a deposit marked reverted)", () => {
    expect(errorOf(judgeRevert(d(), "alice", true, now, rules))).toBe("NullifierSpent");
    expect(errorOf(judgeRevert(d({ status: "reverted" }), "alice", false, now, rules))).toBe("NullifierSpent");
    expect(errorOf(judgeRevert(d({ status: "reverted" }), "alice", true, now, rules))).toBe("NullifierSpent");
  });

  it("holds a pending deposit until the timeout, then lets it be reverted", () => {
    const young = judgeRevert(d({ status: "pending", createdAt: now - 599 }), "alice", false, now, rules);
    expect(young).toMatchObject({ ok: false, error: { error: "DepositPending", retryAfterSec: 1 } });
    expect(judgeRevert(d({ status: "pending", createdAt: now - 600 }), "alice", false, now, rules).ok).toBe(true);
    expect(errorOf(judgeRevert(d({ status: "pending", createdAt: now - 600 }), "alice", true, now, rules))).toBe("NullifierSpent");
  });
});
