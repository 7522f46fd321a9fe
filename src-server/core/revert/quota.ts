/** Reverts of one depositor are counted over a rolling day. */
export const REVERT_QUOTA_WINDOW_MS = 24 * 3600 * 1000;

/**
 * Reverts cost the relayer a transaction fee and the revert-nullifier's rent,
 * so each depositor gets at most `perDay` of them in any 24 hours
 * (docs/security.md, "Reverts per depositor"). `counted`: the times (Unix ms)
 * of that depositor's reverts that paid out or are being sent, within the window.
 * Refused: when the oldest of them leaves the window, in whole seconds.
 */
export function judgeRevertQuota(counted: readonly number[], nowMs: number, perDay: number): { ok: true } | { ok: false; retryAfterSec: number } {
  const inWindow = counted.filter((t) => t > nowMs - REVERT_QUOTA_WINDOW_MS).sort((a, b) => a - b);
  if (inWindow.length < perDay) return { ok: true };
  const freesAt = inWindow[inWindow.length - perDay]! + REVERT_QUOTA_WINDOW_MS;
  return { ok: false, retryAfterSec: Math.max(1, Math.ceil((freesAt - nowMs) / 1000)) };
}
