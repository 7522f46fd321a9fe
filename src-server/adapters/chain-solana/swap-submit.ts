/**
 * relay_swap (docs/solana.md "Swaps"), protocol v3: one transaction of
 *   [create the relayer's input token account if missing]
 *   withdraw_swap (creates the swap escrow, PDA ["swap_escrow", mint, nullifierHash],
 *     and the recipient's output token account when missing; pays depositSize to the
 *     relayer's input token account; the fee stays there; inserts the change leaf;
 *     the proof binds the relayer, the fee, the output mint and minOut),
 *   Jupiter's setup, swap (user = relayer, destination = the escrow,
 *     depositSize − fee in, its minimum no lower than minOut) and cleanup instructions,
 *   assert_swap_out { minOut, nullifierHash } (the escrow holds at least minOut: its whole
 *     balance goes to the recipient's output token account, then the escrow is closed,
 *     rent back to the relayer),
 * on the relay's own address lookup tables (solana.lookupTables: the pool's
 * fixed accounts) and the route's. The program itself requires that
 * assert_swap_out (Instructions sysvar) with minOut ≥ the proof's, so minOut
 * holds whatever this code reads. Landed: outAmount is the recipient's output
 * balance delta in that transaction.
 */
import { AddressLookupTableAccount, PublicKey, TransactionInstruction, type TransactionError, type VersionedTransactionResponse } from "@solana/web3.js";
import { Buffer } from "buffer";
import {
  NULLIFIER_ACCOUNT_SIZE,
  TOKEN_ACCOUNT_SIZE,
  assertSwapOutInstruction,
  associatedTokenAddress,
  decodeTokenAccount,
  swapEscrowAddress,
  withdrawSwapInstruction,
} from "../../../src-shared/pool-program";
import { err, ok, type Result } from "../../../src-shared/result";
import type { SwapQuote } from "../../core/swap/quote";
import type { SubmissionObserver, SubmitResult, SwapLeg, WithdrawalSubmission } from "../../ports/chain";
import type { SwapVenueError } from "../../ports/swap-venue";
import type { JupiterInstruction, SwapInstructions } from "../swap-jupiter/decode";
import type { SwapInstructionsRequest } from "../swap-jupiter/jupiter-api";
import type { LandingOutcome, LandingRequest } from "./landing-engine";
import { relayTableAddresses } from "../../../src-shared/solana/lookup-tables";
import { createAtaIdempotent, refusalDetail, short, type SolanaContext } from "./solana-context";
import { LAMPORTS_PER_SIGNATURE } from "./fee-policy";
import { checkBalances, checkLamports, checkRoute, relayerTokenAmount } from "./swap-guard";
import { readLanded, withdrawParams, withdrawResult } from "./withdrawal-submit";

/** Where a swap leg's instructions come from: Jupiter's POST /swap-instructions (JupiterSwapApi). */
export interface SwapInstructionsSource {
  swapInstructions(quote: SwapQuote, req: SwapInstructionsRequest): Promise<Result<SwapInstructions, SwapVenueError>>;
}

/** The venue that builds a swap's instructions (null: swaps are refused) and the programs its routes may call. */
export interface SwapSetup {
  source: SwapInstructionsSource | null;
  programs: ReadonlySet<string>;
}

/** Jupiter's aggregator program: its custom error 6001 is SlippageToleranceExceeded (so is the local cp-swap venue's). */
const VENUE_SLIPPAGE_ERROR = 6001;

type SimulationCheck = NonNullable<LandingRequest["simulationCheck"]>;
type Refused = Extract<SubmitResult, { ok: false }>;
const refused = (rejection: Refused["rejection"], detail: string): Result<never, Refused> => err({ ok: false, rejection, detail });
const rpcDown = (e: unknown) => refused("Failed", `RPC unavailable before sending: ${short(e)}`);

/**
 * The quote Jupiter's swap-instructions is asked with: the route's own
 * minimum (otherAmountThreshold), raised to the proof's minOut when it is
 * lower, so the venue refuses (SlippageToleranceExceeded) before
 * assert_swap_out has to.
 */
export function atLeast(quote: SwapQuote, minOut: bigint): SwapQuote {
  const raw = typeof quote.raw === "object" && quote.raw !== null ? (quote.raw as Record<string, unknown>) : null;
  // Jupiter builds the swap from the raw quote it is sent back: its threshold is the one that counts.
  const rawThreshold =
    raw && typeof raw.otherAmountThreshold === "string" && /^[0-9]{1,20}$/.test(raw.otherAmountThreshold) ? BigInt(raw.otherAmountThreshold) : null;
  if (quote.otherAmountThreshold >= minOut && (raw === null || (rawThreshold !== null && rawThreshold >= minOut))) return quote;
  const threshold = quote.otherAmountThreshold > minOut ? quote.otherAmountThreshold : minOut;
  return { ...quote, otherAmountThreshold: threshold, raw: raw ? { ...raw, otherAmountThreshold: threshold.toString() } : quote.raw };
}

/** The accounts one swap withdrawal touches, and what it knows of them before sending. */
interface SwapAccounts {
  relayer: string;
  /** The relayer's token account of the pool's mint: receives depositSize, keeps the fee, pays the swap. */
  relayerAta: string;
  relayerAtaExists: boolean;
  /** This withdrawal's swap escrow (PDA ["swap_escrow", mint, nullifierHash]): the route pays into it. */
  escrow: string;
  /** The recipient's token account of the output mint (withdraw_swap creates it when missing). */
  recipientOut: string;
  recipientOutExists: boolean;
  balanceBefore: bigint;
}

export async function submitSwapWithdrawal(
  ctx: SolanaContext,
  setup: SwapSetup,
  w: WithdrawalSubmission,
  swap: SwapLeg,
  observer?: SubmissionObserver,
): Promise<SubmitResult> {
  if (!setup.source) return { ok: false, rejection: "SwapFailed", detail: `no swap venue is configured for ${ctx.network}` };
  const toSwap = w.depositSize - w.fee;
  const leg = checkLeg(w, swap, toSwap);
  if (leg) return leg;
  const accounts = await readAccounts(ctx, w, swap.outputMint);
  if (!accounts.ok) return accounts.error;
  const route = await fetchRoute(setup.source, swap, accounts.value);
  if (!route.ok) return route.error;
  // The relayer signs the route: only allowlisted programs, and nothing that moves its funds beyond the swap input.
  const routeIxs = [...route.value.setupInstructions, route.value.swapInstruction, ...(route.value.cleanupInstruction ? [route.value.cleanupInstruction] : [])];
  const why = checkRoute(routeIxs, {
    relayer: accounts.value.relayer,
    recipient: w.recipient,
    inputMint: w.mint,
    outputMint: swap.outputMint,
    inputAccount: accounts.value.relayerAta,
    escrow: accounts.value.escrow,
    maxInput: toSwap,
    venuePrograms: setup.programs,
  });
  if (why) {
    ctx.log(`${ctx.network}: swap route refused: ${why}`);
    return { ok: false, rejection: "SwapFailed", detail: `swap route refused: ${why}` };
  }
  const simulationCheck = await relayerBalancesCheck(ctx, accounts.value, w, swap.outputMint, routeIxs);
  if (!simulationCheck.ok) return simulationCheck.error;
  // The relay's own tables first: an address both hold is looked up there, the route's tables take the rest.
  const relayTables = ctx.lookupTables ? await ctx.lookupTables.forTransaction(relayTableAddresses(ctx.programId, [w.mint], accounts.value.relayer)) : [];
  const ours = new Set(relayTables.map((t) => t.key.toBase58()));
  let lookupTables: AddressLookupTableAccount[];
  try {
    const routeTables = await Promise.all(route.value.addressLookupTableAddresses.filter((a) => !ours.has(a)).map((a) => lookupTable(ctx, a)));
    lookupTables = [...relayTables, ...routeTables];
  } catch (e) {
    return { ok: false, rejection: "SwapFailed", detail: `the route's address lookup tables: ${short(e)}` };
  }

  const tx = swapInstructions(ctx, w, swap, accounts.value, routeIxs);
  const landed = await ctx.engine.land({
    instructions: tx.instructions,
    createdAccountSizes: accounts.value.recipientOutExists ? [NULLIFIER_ACCOUNT_SIZE] : [NULLIFIER_ACCOUNT_SIZE, TOKEN_ACCOUNT_SIZE],
    feeBudget: { mint: w.mint, fee: w.fee },
    observer,
    label: `withdraw_swap ${w.mint} -> ${swap.outputMint}`,
    addressLookupTables: lookupTables,
    simulationCheck: simulationCheck.value,
  });
  const swapRefusal = swapRefused(landed, tx, swap);
  if (swapRefusal) return swapRefusal;
  const read = landed.kind === "landed" ? await readLanded(ctx, landed.signature) : null;
  const result = withdrawResult(ctx, landed, w, read);
  if (!result.ok || landed.kind !== "landed") return result;
  const { recipientOut, balanceBefore } = accounts.value;
  const outAmount = await outputDelta(ctx, read, recipientOut, balanceBefore);
  if (outAmount !== null)
    ctx.log(
      `${ctx.network}: swap of ${toSwap} ${w.mint} paid ${outAmount} ${swap.outputMint} to ${w.recipient} (quoted ${swap.quote.outAmount}, minimum ${swap.minOut})`,
    );
  return outAmount === null ? result : { ...result, outAmount };
}

/** A quote that is not this withdrawal's Jupiter quote, or cannot pay minOut: refused before anything is built or sent. */
function checkLeg(w: WithdrawalSubmission, swap: SwapLeg, toSwap: bigint): SubmitResult | null {
  if (swap.quote.venue !== "jupiter" || swap.quote.inputMint !== w.mint || swap.quote.outputMint !== swap.outputMint || swap.quote.inAmount !== toSwap) {
    return {
      ok: false,
      rejection: "SwapFailed",
      detail: `the quote (${swap.quote.venue}, ${swap.quote.inAmount} ${swap.quote.inputMint} -> ${swap.quote.outputMint}) is not a Jupiter quote of ${toSwap} ${w.mint} -> ${swap.outputMint}`,
    };
  }
  // The proof's minimum is out of the quote's reach: the swap cannot deliver it.
  if (swap.quote.outAmount < swap.minOut) {
    return {
      ok: false,
      rejection: "SlippageExceeded",
      detail: `the quote pays ${swap.quote.outAmount} ${swap.outputMint}, less than minOut ${swap.minOut}`,
      outAmount: swap.quote.outAmount,
    };
  }
  return null;
}

async function readAccounts(ctx: SolanaContext, w: WithdrawalSubmission, outputMint: string): Promise<Result<SwapAccounts, Refused>> {
  const relayer = ctx.signer.address;
  const relayerAta = associatedTokenAddress(relayer, w.mint);
  const recipientOut = associatedTokenAddress(w.recipient, outputMint);
  const c = ctx.cfg.solana.commitment;
  try {
    const [a, b] = await Promise.all([ctx.rpc.getAccountInfo(new PublicKey(relayerAta), c), ctx.rpc.getAccountInfo(new PublicKey(recipientOut), c)]);
    const decoded = b ? decodeTokenAccount(new Uint8Array(b.data)) : null;
    return ok({
      relayer,
      relayerAta,
      relayerAtaExists: a !== null,
      escrow: swapEscrowAddress(ctx.programId, w.mint, w.nullifierHash),
      recipientOut,
      recipientOutExists: b !== null,
      balanceBefore: decoded && decoded.ok ? decoded.value.amount : 0n,
    });
  } catch (e) {
    return rpcDown(e);
  }
}

async function fetchRoute(source: SwapInstructionsSource, swap: SwapLeg, accounts: SwapAccounts): Promise<Result<SwapInstructions, Refused>> {
  try {
    const r = await source.swapInstructions(atLeast(swap.quote, swap.minOut), {
      userPublicKey: accounts.relayer,
      destinationTokenAccount: accounts.escrow,
      wrapAndUnwrapSol: false,
    });
    // The quote was good when taken: any failure to build its swap now is SwapFailed (the user may ask again).
    return r.ok ? ok(r.value) : refused("SwapFailed", `swap instructions: ${r.error.detail}`);
  } catch (e) {
    return refused("SwapFailed", `swap instructions: ${short(e)}`);
  }
}

/**
 * The relayer's token accounts the route may write and its own SOL, as they are now: the
 * simulation must leave the token accounts no lower (the input account +fee), and the SOL
 * lower by at most the base fee (the simulation runs at price 0) and the rent of what this
 * withdrawal creates with it: the nullifier account and whichever of the four token
 * accounts the route may create ((relayer or recipient) x (input or output mint)) do not
 * exist yet. The swap escrow's rent comes back when assert_swap_out closes it.
 */
async function relayerBalancesCheck(
  ctx: SolanaContext,
  accounts: SwapAccounts,
  w: WithdrawalSubmission,
  outputMint: string,
  routeIxs: JupiterInstruction[],
): Promise<Result<SimulationCheck, Refused>> {
  const { relayer, relayerAta } = accounts;
  const watched = [...new Set([relayerAta, ...routeIxs.flatMap((ix) => ix.accounts.filter((a) => a.isWritable).map((a) => a.pubkey))])];
  const payable = [...new Set([relayerAta, associatedTokenAddress(relayer, outputMint), associatedTokenAddress(w.recipient, w.mint), accounts.recipientOut])];
  const before = new Map<string, bigint>();
  let lamportsBefore: bigint;
  let allowedLoss: bigint;
  try {
    const c = ctx.cfg.solana.commitment;
    const [infos, payer, existing, tokenRent, nullifierRent] = await Promise.all([
      Promise.all(watched.map((a) => ctx.rpc.getAccountInfo(new PublicKey(a), c))),
      ctx.rpc.getAccountInfo(new PublicKey(relayer), c),
      Promise.all(payable.map((a) => ctx.rpc.getAccountInfo(new PublicKey(a), c))),
      ctx.engine.rentExempt(TOKEN_ACCOUNT_SIZE),
      ctx.engine.rentExempt(NULLIFIER_ACCOUNT_SIZE),
    ]);
    infos.forEach((info, i) => {
      const amount = info ? relayerTokenAmount(info.owner.toBase58(), new Uint8Array(info.data), relayer) : null;
      if (amount !== null || watched[i] === relayerAta) before.set(watched[i]!, amount ?? 0n);
    });
    lamportsBefore = BigInt(payer?.lamports ?? 0);
    const missing = existing.filter((e) => e === null).length;
    allowedLoss = BigInt(LAMPORTS_PER_SIGNATURE + nullifierRent + tokenRent * missing);
  } catch (e) {
    return rpcDown(e);
  }
  const tokenAccounts = [...before.keys()];
  return ok({
    // The relayer's own account last: its lamports after the simulation.
    addresses: [...tokenAccounts, relayer],
    check: (after) => {
      const amounts = new Map(tokenAccounts.map((a, i) => [a, after[i] ? relayerTokenAmount(after[i]!.owner, after[i]!.data, relayer) : null] as const));
      const payerAfter = after[tokenAccounts.length];
      const why =
        checkBalances(relayerAta, w.fee, before, amounts) ??
        checkLamports(relayer, lamportsBefore, payerAfter ? BigInt(payerAfter.lamports) : null, allowedLoss);
      if (why) ctx.log(`${ctx.network}: swap refused after simulation: ${why}`);
      return why;
    },
  });
}

/** The swap transaction's instructions, and where the venue's and assert_swap_out sit in the landed transaction. */
interface SwapTransaction {
  instructions: TransactionInstruction[];
  venue: ReadonlySet<number>;
  assertAt: number;
}

function swapInstructions(ctx: SolanaContext, w: WithdrawalSubmission, swap: SwapLeg, accounts: SwapAccounts, routeIxs: JupiterInstruction[]): SwapTransaction {
  const { relayer, relayerAta } = accounts;
  const out = swap.outputMint;
  const instructions: TransactionInstruction[] = [];
  if (!accounts.relayerAtaExists) instructions.push(createAtaIdempotent(relayer, relayerAta, relayer, w.mint));
  instructions.push(withdrawSwapInstruction({ ...withdrawParams(ctx.programId, w, relayer), outputMint: out, minOut: swap.minOut, escrow: accounts.escrow }));
  // Indexes in the landed transaction: the engine puts its two compute-budget instructions first.
  const venue = new Set<number>();
  for (const ix of routeIxs) {
    venue.add(instructions.length + 2);
    instructions.push(toInstruction(ix));
  }
  // assert_swap_out pays the recipient out of the escrow, at least the proof's minOut (withdraw_swap refuses a lower one).
  const assertAt = instructions.length + 2;
  instructions.push(
    assertSwapOutInstruction({
      programId: ctx.programId,
      relayer,
      mint: w.mint,
      recipient: w.recipient,
      outputMint: out,
      minOut: swap.minOut,
      nullifierHash: w.nullifierHash,
      escrow: accounts.escrow,
    }),
  );
  return { instructions, venue, assertAt };
}

/** A refusal the swap explains (vetoed after simulation, assert_swap_out, the venue's instruction); null for the rest (withdrawResult). */
function swapRefused(landed: LandingOutcome, tx: SwapTransaction, swap: SwapLeg): SubmitResult | null {
  if (landed.kind === "vetoed") return { ok: false, rejection: "SwapFailed", detail: `swap refused after simulation (nothing sent): ${landed.detail}` };
  // The route's accounts beyond what its lookup tables hold make the transaction too large: the route's fault, nothing sent.
  if (landed.kind === "too-large") return { ok: false, rejection: "SwapFailed", detail: `the swap's route does not fit in one transaction: ${landed.detail}` };
  if (landed.kind !== "refused") return null;
  const failed = failedInstruction(landed.err);
  if (failed && failed.index === tx.assertAt) {
    return {
      ok: false,
      rejection: "SlippageExceeded",
      detail: `${refusalDetail(landed, "SwapOutputTooLow")}: the swap escrow would hold less than ${swap.minOut} ${swap.outputMint}`,
    };
  }
  if (failed && tx.venue.has(failed.index)) {
    const slippage = typeof failed.error === "object" && failed.error !== null && "Custom" in failed.error && failed.error.Custom === VENUE_SLIPPAGE_ERROR;
    const where = landed.stage === "simulation" ? "simulation refused the transaction" : `transaction ${landed.signature} failed on chain`;
    return slippage
      ? { ok: false, rejection: "SlippageExceeded", detail: `${where}: the swap would pay less than the quote's minimum (${JSON.stringify(failed.error)})` }
      : { ok: false, rejection: "SwapFailed", detail: `${where}: the swap instruction failed (${JSON.stringify(failed.error)})` };
  }
  return null;
}

/** An address lookup table as the v0 message needs it. */
async function lookupTable(ctx: SolanaContext, address: string): Promise<AddressLookupTableAccount> {
  const key = new PublicKey(address);
  const info = await ctx.rpc.getAccountInfo(key, ctx.cfg.solana.commitment);
  if (!info) throw new Error(`lookup table ${address} does not exist`);
  return new AddressLookupTableAccount({ key, state: AddressLookupTableAccount.deserialize(new Uint8Array(info.data)) });
}

/** The recipient's output balance change in the landed transaction (pre/postTokenBalances), else the balance now less the balance before. */
async function outputDelta(ctx: SolanaContext, tx: VersionedTransactionResponse | null, account: string, before: bigint): Promise<bigint | null> {
  try {
    if (tx?.meta) {
      const keys = tx.transaction.message
        .getAccountKeys({ accountKeysFromLookups: tx.meta.loadedAddresses ?? null })
        .keySegments()
        .flat()
        .map((k) => k.toBase58());
      const index = keys.indexOf(account);
      const amount = (list: typeof tx.meta.postTokenBalances) => BigInt(list?.find((b) => b.accountIndex === index)?.uiTokenAmount.amount ?? "0");
      if (index >= 0 && tx.meta.postTokenBalances) return amount(tx.meta.postTokenBalances) - amount(tx.meta.preTokenBalances);
    }
  } catch (e) {
    ctx.log(`${ctx.network}: reading the swap transaction's token balances failed (${short(e)}); reading the balance instead`);
  }
  try {
    const info = await ctx.rpc.getAccountInfo(new PublicKey(account), ctx.cfg.solana.commitment);
    const decoded = info ? decodeTokenAccount(new Uint8Array(info.data)) : null;
    return decoded && decoded.ok ? decoded.value.amount - before : null;
  } catch {
    return null;
  }
}

/** A Jupiter instruction as web3.js wants it. */
function toInstruction(ix: JupiterInstruction): TransactionInstruction {
  return new TransactionInstruction({
    programId: new PublicKey(ix.programId),
    keys: ix.accounts.map((a) => ({ pubkey: new PublicKey(a.pubkey), isSigner: a.isSigner, isWritable: a.isWritable })),
    data: Buffer.from(ix.data),
  });
}

/** `{ InstructionError: [index, error] }`: which instruction failed, and how. */
function failedInstruction(err: TransactionError | string): { index: number; error: unknown } | null {
  if (typeof err !== "object" || err === null || !("InstructionError" in err)) return null;
  const ie = (err as { InstructionError: unknown }).InstructionError;
  if (!Array.isArray(ie) || typeof ie[0] !== "number") return null;
  return { index: ie[0], error: ie[1] };
}
