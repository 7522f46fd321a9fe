/** A plain withdrawal: the withdraw instruction, landed by the engine, and how its outcome is reported. */
import { PublicKey, type TransactionInstruction, type VersionedTransactionResponse } from "@solana/web3.js";
import {
  NULLIFIER_ACCOUNT_SIZE,
  TOKEN_ACCOUNT_SIZE,
  associatedTokenAddress,
  poolTreeAddress,
  withdrawInstruction,
  type PoolErrorName,
  type WithdrawParams,
} from "../../../src-shared/pool-program";
import { insertedLeaves, leafTransactionOfResponse } from "../../../src-shared/pool-program/leaves";
import type { ChainRejection, SubmissionObserver, SubmitResult, WithdrawalSubmission } from "../../ports/chain";
import type { LandingOutcome } from "./landing-engine";
import { relayTableAddresses } from "../../../src-shared/solana/lookup-tables";
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
export function withdrawParams(programId: string, w: WithdrawalSubmission, relayer: string): WithdrawParams {
  return {
    programId,
    relayer,
    mint: w.mint,
    proof: w.proof,
    root: w.root,
    nullifierHash: w.nullifierHash,
    recipient: w.recipient,
    amount: w.depositSize,
    fee: w.fee,
    changeCommitment: w.changeCommitment,
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
  instructions.push(withdrawInstruction(withdrawParams(ctx.programId, w, relayer)));
  // The relayer pays the nullifier account's rent, and the recipient's token account when the program creates it.
  const createdAccountSizes = recipientAtaExists ? [NULLIFIER_ACCOUNT_SIZE] : [NULLIFIER_ACCOUNT_SIZE, TOKEN_ACCOUNT_SIZE];
  // The engine sends v0 transactions: the relay's own table names the pool's fixed accounts in a byte each (a smaller transaction).
  const addressLookupTables = ctx.lookupTables ? await ctx.lookupTables.forTransaction(relayTableAddresses(ctx.programId, [w.mint], relayer)) : undefined;
  const out = await ctx.engine.land({
    instructions,
    createdAccountSizes,
    feeBudget: { mint: w.mint, fee: w.fee },
    observer,
    label: `withdraw ${w.mint}`,
    ...(addressLookupTables ? { addressLookupTables } : {}),
  });
  const landed = out.kind === "landed" ? await readLanded(ctx, out.signature) : null;
  return withdrawResult(ctx, out, w, landed);
}

/** The landed transaction as getTransaction gives it (a few tries: a node may answer the status before the transaction); null when it cannot be read. */
export async function readLanded(ctx: SolanaContext, signature: string): Promise<VersionedTransactionResponse | null> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const tx = await ctx.rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: ctx.finality });
      if (tx?.meta) return tx;
    } catch (e) {
      ctx.log(`${ctx.network}: reading landed transaction ${signature} failed (${short(e)})`);
    }
    await new Promise((r) => setTimeout(r, 200 * (attempt + 1)));
  }
  return null;
}

/**
 * Where the withdrawal's change leaf went: the change leaf of this
 * nullifierHash in this pool's tree, its index from the WithdrawEvent (or
 * placed by another leaf of the transaction); null when the transaction
 * cannot be read or does not tell.
 */
export function changeLeafIndexOf(ctx: SolanaContext, w: WithdrawalSubmission, landed: VersionedTransactionResponse | null): number | null {
  if (!landed) return null;
  const tree = poolTreeAddress(ctx.programId, w.mint);
  let found;
  try {
    found = insertedLeaves(leafTransactionOfResponse(landed), ctx.programId);
  } catch (e) {
    ctx.log(`${ctx.network}: the landed withdrawal does not read (${short(e)}); its change leaf index is unknown`);
    return null;
  }
  if (found.problems.length > 0) ctx.log(`${ctx.network}: the landed withdrawal's logs disagree with its instructions: ${found.problems.join("; ")}`);
  const leaf = found.leaves.find((l) => l.kind === "change" && l.tree === tree && l.nullifierHash.every((b, i) => b === w.nullifierHash[i]));
  return leaf?.leafIndex ?? null;
}

/** A landing outcome as the relay reports a withdrawal (a landed one's cost is noted for the runway). */
export function withdrawResult(ctx: SolanaContext, out: LandingOutcome, w: WithdrawalSubmission, landed: VersionedTransactionResponse | null): SubmitResult {
  switch (out.kind) {
    case "landed": {
      ctx.noteCost(out.networkFeeLamports + out.rentLamports);
      const changeLeafIndex = changeLeafIndexOf(ctx, w, landed);
      ctx.log(
        `${ctx.network}: withdrawal ${out.signature} landed in slot ${out.slot} (${out.sizeBytes} bytes); change leaf ${changeLeafIndex ?? "unknown"}; network fee ${out.networkFeeLamports} lamports, rent ${out.rentLamports} lamports`,
      );
      return { ok: true, signature: out.signature, changeLeafIndex };
    }
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
    case "too-large":
    case "vetoed":
      return { ok: false, rejection: "Failed", detail: out.detail };
  }
}
