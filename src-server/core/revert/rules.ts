import { err, ok, type Result } from "../../../src-shared/result";

/** A deposit's status as the chain knows it. `pending`: funds in the vault, commitment not (yet) inserted. */
export type DepositStatus = "pending" | "indexed" | "failed" | "reverted";

export interface RevertCandidate {
  depositor: string;
  status: DepositStatus;
  /** Unix seconds the deposit landed. */
  createdAt: number;
}

export interface RevertRules {
  /** A pending deposit becomes revertable this long after it landed (it may still be inserted before). */
  pendingRevertAfterSec: number;
}

export type RevertRefusal =
  | { error: "NotDepositor"; detail: string }
  | { error: "AlreadyIndexed"; detail: string }
  | { error: "DepositPending"; detail: string; retryAfterSec: number }
  | { error: "NullifierSpent"; detail: string };

/**
 * The spec's revert rules after the signature and the deposit's existence, in
 * its order: the wallet made the deposit (NotDepositor), the deposit is not
 * indexed (AlreadyIndexed: withdraw it instead), and its revert-nullifier is
 * unspent (NullifierSpent). A deposit still pending within the timeout is
 * refused as DepositPending: it may be inserted any moment.
 */
export function judgeRevert(
  d: RevertCandidate,
  wallet: string,
  revertNullifierSpent: boolean,
  nowSec: number,
  rules: RevertRules,
): Result<void, RevertRefusal> {
  if (d.depositor !== wallet) return err({ error: "NotDepositor", detail: "the wallet did not make this deposit" });
  if (d.status === "indexed") return err({ error: "AlreadyIndexed", detail: "the deposit is in the pool's tree; withdraw it with /relay instead" });
  if (d.status === "pending") {
    const revertableAt = d.createdAt + rules.pendingRevertAfterSec;
    if (nowSec < revertableAt) {
      return err({
        error: "DepositPending",
        detail: `the deposit may still be indexed; it can be reverted from ${revertableAt}`,
        retryAfterSec: revertableAt - nowSec,
      });
    }
  }
  if (revertNullifierSpent || d.status === "reverted") return err({ error: "NullifierSpent", detail: "this deposit was already reverted" });
  return ok(undefined);
}
