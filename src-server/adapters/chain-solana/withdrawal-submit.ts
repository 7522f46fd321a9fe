/** A plain withdrawal: the withdraw instruction, landed by the engine, and how its outcome is reported. */
import { PublicKey, type TransactionInstruction } from "@solana/web3.js";
import {
  NULLIFIER_ACCOUNT_SIZE,
  TOKEN_ACCOUNT_SIZE,
  associatedTokenAddress,
  withdrawInstruction,
  type PoolErrorName,
  type WithdrawParams,
} from "../../../src-shared/pool-program";
import type { ChainRejection, SubmissionObserver, SubmitResult, WithdrawalSubmission } from "../../ports/chain";
import type { LandingOutcome } from "./landing-engine";
import { createAtaIdempotent, poolError, refusalDetail, short, type SolanaContext } from "./solana-context";

/**
 * The pool program's refusals of a withdrawal as the relay reports them
 * (docs/pool-program.md "Program errors"). A proof made for other terms
 * (relayer, fee, output mint, minOut) fails InvalidProof; the v2 checks of
 * where funds go and of the swap's assertion (WrongTokenAccount,
 * SwapAssert*, RequiredBalanceTooLow, DuplicateWithdrawSwap) are the relay's
 * transaction or the recipient's accounts at fault, not the proof: Failed
 * (RelayFailed), like every other program error.
 */
export const WITHDRAW_REJECTIONS: Partial<Record<PoolErrorName, ChainRejection>> = {
  NullifierSpent: "NullifierAlreadySpent",
  UnknownRoot: "InvalidRoot",
  InvalidProof: "InvalidProof",
  SwapOutputTooLow: "SlippageExceeded",
};

/** The withdraw instruction's fields, the same for withdraw and withdraw_swap. */
export function withdrawParams(ctx: SolanaContext, w: WithdrawalSubmission, relayer: string): WithdrawParams {
  return {
    programId: ctx.programId,
    relayer,
    mint: w.mint,
    proof: w.proof,
    root: w.root,
    nullifierHash: w.nullifierHash,
    recipient: w.recipient,
    amount: w.depositSize,
    fee: w.fee,
  };
}

/** withdraw: depositSize − fee to the recipient's token account, the fee to the relayer's. */
export async function submitPlainWithdrawal(ctx: SolanaContext, w: WithdrawalSubmission, observer?: SubmissionObserver): Promise<SubmitResult> {
  const relayer = ctx.signer.address;
  const relayerAta = associatedTokenAddress(relayer, w.mint);
  const recipientAta = associatedTokenAddress(w.recipient, w.mint);
  let relayerAtaExists: boolean;
  let recipientAtaExists: boolean;
  try {
    const c = ctx.cfg.solana.commitment;
    const [a, b] = await Promise.all([ctx.rpc.getAccountInfo(new PublicKey(relayerAta), c), ctx.rpc.getAccountInfo(new PublicKey(recipientAta), c)]);
    relayerAtaExists = a !== null;
    recipientAtaExists = b !== null;
  } catch (e) {
    return { ok: false, rejection: "Failed", detail: `RPC unavailable before sending: ${short(e)}` };
  }
  const instructions: TransactionInstruction[] = [];
  // The relayer's own token account receives the fee. Its rent stays the relayer's (recoverable), so it is not charged to this relay.
  if (!relayerAtaExists) instructions.push(createAtaIdempotent(relayer, relayerAta, relayer, w.mint));
  instructions.push(withdrawInstruction(withdrawParams(ctx, w, relayer)));
  // The relayer pays the nullifier account's rent, and the recipient's token account when the program creates it.
  const createdAccountSizes = recipientAtaExists ? [NULLIFIER_ACCOUNT_SIZE] : [NULLIFIER_ACCOUNT_SIZE, TOKEN_ACCOUNT_SIZE];
  const out = await ctx.engine.land({ instructions, createdAccountSizes, feeBudget: { mint: w.mint, fee: w.fee }, observer, label: `withdraw ${w.mint}` });
  return withdrawResult(ctx, out);
}

/** A landing outcome as the relay reports a withdrawal (a landed one's cost is noted for the runway). */
export function withdrawResult(ctx: SolanaContext, out: LandingOutcome): SubmitResult {
  switch (out.kind) {
    case "landed":
      ctx.noteCost(out.networkFeeLamports + out.rentLamports);
      ctx.log(
        `${ctx.network}: withdrawal ${out.signature} landed in slot ${out.slot}; network fee ${out.networkFeeLamports} lamports, rent ${out.rentLamports} lamports`,
      );
      return { ok: true, signature: out.signature };
    case "refused": {
      const name = poolError(ctx, out);
      return { ok: false, rejection: (name && WITHDRAW_REJECTIONS[name]) ?? "Failed", detail: refusalDetail(out, name) };
    }
    case "unprofitable":
      return { ok: false, rejection: "Unprofitable", detail: out.detail };
    case "unknown":
      return { ok: false, rejection: "Unknown", detail: `${out.detail} (transaction ${out.signature})` };
    case "expired":
    case "not-sent":
    case "vetoed":
      return { ok: false, rejection: "Failed", detail: out.detail };
  }
}
