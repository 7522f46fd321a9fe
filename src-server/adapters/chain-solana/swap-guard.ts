/**
 * What a swap venue's instructions may do with the relayer's signature
 * (docs/security.md "Swap venue"). The relayer signs Jupiter's setup, swap and
 * cleanup instructions as the user of the swap, so a route is checked twice:
 *
 *  - statically (checkRoute): every instruction's program is allowlisted (the
 *    aggregator's, configured; SPL Token, Associated Token, Compute Budget,
 *    System), and the instructions of the known programs only wrap, sync,
 *    close the relayer's wSOL account back to it, create the token accounts of
 *    the relayer or the recipient for the input or output mint, or move at most
 *    depositSize − fee out of the relayer's input account; and
 *    the route pays into the withdrawal's swap escrow (protocol v3: an
 *    aggregator instruction writes it), the only account assert_swap_out pays
 *    the recipient from;
 *  - after simulation (checkBalances, checkLamports): the relayer's token
 *    accounts the route touches do not decrease, its input account ends at
 *    least +fee (it receives depositSize and spends depositSize − fee), and its
 *    SOL drops by at most the transaction fee and the rent of the accounts it
 *    pays for (a lamport transfer the aggregator's own program makes counts).
 */
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  COMPUTE_BUDGET_PROGRAM_ID,
  NATIVE_MINT,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  decodeTokenAccount,
} from "../../../src-shared/pool-program";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import type { JupiterInstruction } from "../swap-jupiter/decode";

/** Jupiter v6's aggregator program: the default `jupiter.programIds`. */
export const JUPITER_V6_PROGRAM_ID = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4";

export interface RouteContext {
  relayer: string;
  /** The withdrawal's recipient: its token accounts may be created (paid by the relayer). */
  recipient: string;
  /** The pool's mint (swapped from) and the output mint: the only mints a route may create token accounts of. */
  inputMint: string;
  outputMint: string;
  /** The relayer's token account of the input mint (withdraw_swap pays depositSize into it). */
  inputAccount: string;
  /** The withdrawal's swap escrow: the route's destinationTokenAccount. */
  escrow: string;
  /** depositSize − fee: the most the route may take from the relayer. */
  maxInput: bigint;
  /** The aggregator's program ids (config `jupiter.programIds`). */
  venuePrograms: ReadonlySet<string>;
}

const u32 = (d: Uint8Array, at: number) => new DataView(d.buffer, d.byteOffset, d.byteLength).getUint32(at, true);
const u64 = (d: Uint8Array, at: number) => new DataView(d.buffer, d.byteOffset, d.byteLength).getBigUint64(at, true);

/** Null when every instruction is allowed; else why the route is refused. */
export function checkRoute(ixs: readonly JupiterInstruction[], ctx: RouteContext): string | null {
  const wsol = associatedTokenAddress(ctx.relayer, NATIVE_MINT);
  let taken = 0n;
  for (const [i, ix] of ixs.entries()) {
    const at = `the route's instruction ${i} (${ix.programId})`;
    const d = ix.data;
    const acc = (n: number) => ix.accounts[n]?.pubkey;
    if (ctx.venuePrograms.has(ix.programId)) continue;
    switch (ix.programId) {
      case COMPUTE_BUDGET_PROGRAM_ID:
        // RequestHeapFrame, SetLoadedAccountsDataSizeLimit; the price and the limit are the landing engine's.
        if (d.length >= 1 && (d[0] === 1 || d[0] === 4)) continue;
        return `${at}: only a heap frame or a loaded-data limit may be requested (the compute price and limit are the relay's)`;
      case SYSTEM_PROGRAM_ID: {
        if (d.length === 12 && u32(d, 0) === 2 && acc(0) === ctx.relayer && acc(1) === wsol) {
          taken += u64(d, 4);
          if (taken > ctx.maxInput) return `${at}: wraps more than the swap input ${ctx.maxInput}`;
          continue;
        }
        return `${at}: a System instruction other than a transfer into the relayer's wrapped-SOL account`;
      }
      case ASSOCIATED_TOKEN_PROGRAM_ID: {
        if (!(d.length === 0 || (d.length === 1 && (d[0] === 0 || d[0] === 1)))) return `${at}: an Associated Token instruction other than a create`;
        // Accounts: payer, the new account, its owner, its mint, System, the token program. The relayer pays
        // the rent, so only the four accounts this swap needs: (relayer or recipient) x (input or output mint).
        const owner = acc(2);
        const mint = acc(3);
        if (owner !== ctx.relayer && owner !== ctx.recipient)
          return `${at}: creates a token account for ${owner ?? "(none)"}, neither the relayer nor the recipient`;
        if (mint !== ctx.inputMint && mint !== ctx.outputMint)
          return `${at}: creates a token account of mint ${mint ?? "(none)"}, neither the input nor the output mint`;
        continue;
      }
      case TOKEN_PROGRAM_ID: {
        const tag = d[0];
        if ((tag === 3 && d.length === 9) || (tag === 12 && d.length === 10)) {
          if (acc(0) !== ctx.inputAccount) return `${at}: a token transfer from ${acc(0)}, not from the relayer's input account ${ctx.inputAccount}`;
          taken += u64(d, 1);
          if (taken > ctx.maxInput) return `${at}: moves ${taken} from the relayer's input account, more than the swap input ${ctx.maxInput}`;
          continue;
        }
        if (tag === 17 && d.length === 1) continue;
        if (tag === 9 && d.length === 1 && acc(0) === wsol && acc(1) === ctx.relayer) continue;
        return `${at}: SPL Token instruction ${tag ?? "(empty)"} is not a transfer of the swap input, syncNative or the close of the relayer's wSOL account to the relayer`;
      }
      default:
        return `${at}: program ${ix.programId} is not allowlisted for swaps`;
    }
  }
  // Only the venue can fill the escrow: a route that pays elsewhere would fail assert_swap_out after the relayer paid for the attempt.
  if (!ixs.some((ix) => ctx.venuePrograms.has(ix.programId) && ix.accounts.some((a) => a.pubkey === ctx.escrow && a.isWritable)))
    return `the route does not pay into the swap escrow ${ctx.escrow} (no aggregator instruction writes it)`;
  return null;
}

/** The relayer's balance (null when `data` is not an SPL token account the relayer owns). */
export function relayerTokenAmount(owner: string | null, data: Uint8Array | null, relayer: string): bigint | null {
  if (owner !== TOKEN_PROGRAM_ID || !data) return null;
  const t = decodeTokenAccount(data);
  if (!t.ok || encodeBase58(t.value.owner) !== relayer) return null;
  return t.value.amount;
}

/**
 * Null when the simulated balances are what the swap should leave: the input
 * account at least `fee` above where it was (a concurrent withdrawal's fee may
 * land meanwhile, never less), and no other relayer token account lower.
 */
export function checkBalances(
  inputAccount: string,
  fee: bigint,
  before: ReadonlyMap<string, bigint>,
  after: ReadonlyMap<string, bigint | null>,
): string | null {
  const pre = (a: string) => before.get(a) ?? 0n;
  const post = (a: string) => after.get(a) ?? 0n;
  const inDelta = post(inputAccount) - pre(inputAccount);
  if (inDelta < fee) return `the simulation leaves the relayer's input account ${inputAccount} at ${inDelta >= 0n ? "+" : ""}${inDelta}, not +${fee} (the fee)`;
  for (const a of before.keys()) {
    if (a === inputAccount) continue;
    if (post(a) < pre(a)) return `the simulation takes ${pre(a) - post(a)} from the relayer's token account ${a}`;
  }
  return null;
}

/**
 * Null when the simulation leaves the relayer's SOL at most `allowedLoss` lower (the
 * transaction fee and the rent of the accounts it legitimately pays for); an account the
 * simulation no longer holds counts as 0 lamports.
 */
export function checkLamports(relayer: string, before: bigint, after: bigint | null, allowedLoss: bigint): string | null {
  const loss = before - (after ?? 0n);
  if (loss > allowedLoss) return `the simulation takes ${loss} lamports from the relayer ${relayer}, more than the fee and rent it pays for (${allowedLoss})`;
  return null;
}
