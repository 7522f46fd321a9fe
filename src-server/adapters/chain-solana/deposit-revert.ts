/** Deposits read from their transaction and receipt, and the revert instruction that pays one back to its depositor. */
import { PublicKey } from "@solana/web3.js";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { encodeBase58, parseSignature } from "../../../src-shared/encoding/base58";
import {
  NULLIFIER_ACCOUNT_SIZE,
  decodeDepositReceipt,
  depositReceiptAddress,
  publicKeyBytes,
  revertInstruction,
  revertMarkerAddress,
  revertNullifierOfReceipt,
  type PoolErrorName,
} from "../../../src-shared/pool-program";
import { poolEventsOfResponse } from "../../../src-shared/pool-program/leaves";
import { judgeRevert } from "../../core/revert/rules";
import type { DepositRecord, RevertRejection, RevertResult, RevertSubmission } from "../../ports/chain";
import { poolError, programAccountExists, refusalDetail, type SolanaContext } from "./solana-context";

/** A deposit as read from its transaction and receipt. */
interface LoadedDeposit {
  record: DepositRecord;
  nonce: bigint;
  receipt: string;
}

/**
 * The deposit event our program logged in this transaction, the mint whose
 * receipt PDA (["deposit", mint, depositor, nonce]) is among the
 * transaction's accounts, and the receipt's current status.
 */
export async function loadDeposit(ctx: SolanaContext, signature: string): Promise<LoadedDeposit | null> {
  if (!parseSignature(signature).ok) return null;
  const tx = await ctx.rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: ctx.finality });
  if (!tx || !tx.meta || tx.meta.err) return null;
  const event = poolEventsOfResponse(tx, ctx.programId).find((e) => e.name === "DepositEvent" || e.name === "DepositFailedEvent");
  if (!event || (event.name !== "DepositEvent" && event.name !== "DepositFailedEvent")) return null;
  const depositor = encodeBase58(event.depositor);
  const keys = tx.transaction.message
    .getAccountKeys({ accountKeysFromLookups: tx.meta.loadedAddresses ?? null })
    .keySegments()
    .flat()
    .map((k) => k.toBase58());
  const keySet = new Set(keys);
  let mint: string | null = null;
  let receipt: string | null = null;
  for (const k of keys) {
    const r = depositReceiptAddress(ctx.programId, k, depositor, event.nonce);
    if (keySet.has(r)) {
      mint = k;
      receipt = r;
      break;
    }
  }
  if (!mint || !receipt) return null;
  const info = await ctx.rpc.getAccountInfo(new PublicKey(receipt), ctx.cfg.solana.commitment);
  const decoded = info && info.owner.equals(ctx.programKey) ? decodeDepositReceipt(new Uint8Array(info.data)) : null;
  const record: DepositRecord =
    decoded && decoded.ok
      ? { signature, mint, amount: decoded.value.amount, depositor, status: decoded.value.status, createdAt: Number(decoded.value.createdAt) }
      : {
          signature,
          mint,
          amount: event.amount,
          depositor,
          status: event.name === "DepositEvent" ? "indexed" : "failed",
          createdAt: tx.blockTime ?? ctx.nowSec(),
        };
  return { record, nonce: event.nonce, receipt };
}

/** The revert rules re-checked here, then the revert instruction (the relayer must be the pool's authority). */
export async function revertDeposit(ctx: SolanaContext, hasher: FieldHasher, r: RevertSubmission): Promise<RevertResult> {
  const d = await loadDeposit(ctx, r.depositSignature);
  if (!d) return { ok: false, rejection: "DepositNotFound", detail: "no deposit of this pool program with this signature" };
  const { mint, depositor } = d.record;
  const revertNullifier = revertNullifierOfReceipt(hasher, publicKeyBytes(d.receipt));
  const spent = await programAccountExists(ctx, revertMarkerAddress(ctx.programId, mint, revertNullifier));
  const verdict = judgeRevert(d.record, r.depositor, spent, ctx.nowSec(), { pendingRevertAfterSec: 0 });
  if (!verdict.ok) return { ok: false, rejection: verdict.error.error, detail: verdict.error.detail };
  const ix = revertInstruction({ programId: ctx.programId, authority: ctx.signer.address, mint, depositor, nonce: d.nonce, revertNullifier });
  const out = await ctx.engine.land({
    instructions: [ix],
    createdAccountSizes: [NULLIFIER_ACCOUNT_SIZE],
    feeBudget: null,
    // No relay fee bounds a revert's price: the configured budget does (docs/solana.md, "Fee policy").
    priorityBudgetLamports: ctx.cfg.solana.revertPriorityLamports,
    label: `revert ${r.depositSignature}`,
  });
  switch (out.kind) {
    case "landed":
      ctx.log(
        `${ctx.network}: revert ${out.signature} of deposit ${r.depositSignature} landed; network fee ${out.networkFeeLamports} lamports, rent ${out.rentLamports} lamports`,
      );
      return { ok: true, signature: out.signature, amount: d.record.amount, mint };
    case "refused": {
      const name = poolError(ctx, out);
      const map: Partial<Record<PoolErrorName, RevertRejection>> = { NullifierSpent: "NullifierSpent", NotRevertable: "AlreadyIndexed" };
      const detail = name === "NotAuthority" ? `the relayer ${ctx.signer.address} is not the pool's authority, so it cannot revert` : refusalDetail(out, name);
      return { ok: false, rejection: (name && map[name]) ?? "Failed", detail };
    }
    case "unknown":
      return { ok: false, rejection: "Unknown", detail: `${out.detail} (transaction ${out.signature})` };
    case "unprofitable":
    case "expired":
    case "not-sent":
    case "too-large":
    case "vetoed":
      return { ok: false, rejection: "Failed", detail: out.detail };
  }
}
