/**
 * SolanaChain's relay_swap path against the local validator: the quote and
 * the swap instructions come over HTTP from the validator's Jupiter-compatible
 * API (src-localnet/rpc/jupiter.ts) through the real JupiterSwapApi client,
 * the swap runs in the cp-swap program, and the pool program verifies real
 * Groth16 proofs (the recorded fixtures of verifier-groth16/test-fixtures).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { associatedTokenAddress, decodePoolEventLogs, poolVaultAddress } from "../../../src-shared/pool-program";
import type { LocalValidator } from "../../../src-localnet/validator";
import { minOutAmount } from "../../core/swap/slippage";
import type { SwapQuote } from "../../core/swap/quote";
import type { WithdrawalSubmission } from "../../ports/chain";
import type { Signer } from "../keys/keypair-file";
import { JupiterSwapApi } from "../swap-jupiter/jupiter-api";
import { SolanaChain } from "./solana-chain";
import { FEE, MINT, NOTE, PROGRAM, RECIPIENTS, SOL, TEST_TIMING, recorder, startFixturePool, type FixturePool } from "./test-fixtures/localnet-pool";

const OUT = encodeBase58(Uint8Array.from({ length: 32 }, (_, i) => 0x30 + i));
const SLIPPAGE_BPS = 50;
const RESERVES = { in: 100n * SOL, out: 400_000_000_000n };
/** DESIGN §6, written out again so the test does not trust the code under test. */
const cpOut = (a: bigint, rIn: bigint, rOut: bigint): bigint => (a * 997n * rOut) / (rIn * 1000n + a * 997n);

let pool: FixturePool;
let validator: LocalValidator;
let chain: SolanaChain;
let jupiter: JupiterSwapApi;
let relayer: Signer;
const logs: string[] = [];

const balance = (account: string): Promise<bigint> => pool.balance(account);

function depositSizeOf(label: string): bigint {
  return NOTE(Number(/leaf (\d)/.exec(label)![1])).amount;
}

function withdrawal(label: string, quote: SwapQuote): WithdrawalSubmission {
  return { ...pool.withdrawal(label), swap: { outputMint: OUT, quote, minOutAmount: minOutAmount(quote.outAmount, SLIPPAGE_BPS) } };
}

async function quoteFor(label: string): Promise<SwapQuote> {
  const q = await jupiter.quote({ inputMint: MINT, outputMint: OUT, amount: depositSizeOf(label) - FEE, slippageBps: SLIPPAGE_BPS, dexes: [] });
  if (!q.ok) throw new Error(q.error.detail);
  return q.value;
}



const reserves = () => {
  const p = validator.swapPool(MINT, OUT)!;
  return p.mintA === MINT ? [p.reserveA, p.reserveB] : [p.reserveB, p.reserveA];
};

beforeAll(async () => {
  pool = await startFixturePool();
  ({ validator, relayer } = pool);
  await validator.createSwapPool(MINT, OUT, RESERVES.in, RESERVES.out);
  jupiter = new JupiterSwapApi({ baseUrl: validator.jupiterUrl, apiKey: null, timeoutMs: 5_000, restrictIntermediateTokens: true });
  chain = await SolanaChain.connect("devnet", pool.network({ allowLoss: true }), relayer, pool.hasher, (l) => logs.push(l), {
    rpc: pool.rpc,
    swapInstructions: jupiter,
    timing: TEST_TIMING,
  });
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

describe("SolanaChain relay_swap on the local validator (Jupiter API → cp-swap)", () => {
  it("quotes over Jupiter's HTTP API exactly the constant-product output", async () => {
    const q = await quoteFor("leaf 0, 1 SOL");
    const out = cpOut(1n * SOL - FEE, RESERVES.in, RESERVES.out);
    expect(q).toMatchObject({ venue: "jupiter", inputMint: MINT, outputMint: OUT, inAmount: SOL - FEE, outAmount: out, otherAmountThreshold: (out * 9950n) / 10_000n, slippageBps: 50 });
    expect(q.priceImpactPct).toBeCloseTo((100 * Number(SOL - FEE)) / Number(RESERVES.in + SOL - FEE), 9);
    expect(q.routePlan).toHaveLength(1);
    expect(q.routePlan[0]!.swapInfo).toMatchObject({ ammKey: validator.swapPool(MINT, OUT)!.pool, label: "localnet-cp", feeMint: MINT });
  });

  it("lands withdraw_swap + swap + assert_swap_out in one transaction: the recipient gets the CP output, the relayer the fee, the nullifier is spent", async () => {
    const label = "leaf 0, 1 SOL";
    const q = await quoteFor(label);
    const w = withdrawal(label, q);
    const expected = cpOut(w.depositSize - FEE, RESERVES.in, RESERVES.out);
    const vaultBefore = await balance(poolVaultAddress(PROGRAM, MINT));
    const { attempts, observer } = recorder();
    const r = await chain.submitWithdrawal(w, observer);
    expect(r).toEqual({ ok: true, signature: expect.any(String), outAmount: expected });
    if (!r.ok) return;
    expect(attempts.map((a) => a.verdict)).toEqual(["pending", "landed"]);
    expect(await balance(associatedTokenAddress(w.recipient, OUT))).toBe(expected);
    expect(await balance(associatedTokenAddress(w.recipient, MINT))).toBe(0n);
    expect(await balance(associatedTokenAddress(relayer.address, MINT))).toBe(FEE);
    expect(vaultBefore - (await balance(poolVaultAddress(PROGRAM, MINT)))).toBe(w.depositSize);
    expect(reserves()).toEqual([RESERVES.in + w.depositSize - FEE, RESERVES.out - expected]);
    expect(await chain.isNullifierSpent(MINT, w.nullifierHash)).toBe(true);
    const tx = await pool.rpc.getTransaction(r.signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
    expect(tx?.version).toBe(0);
    // The route's lookup table (from swap-instructions) is what keeps the transaction under 1232 bytes.
    expect(tx?.transaction.message.addressTableLookups.map((l) => l.accountKey.toBase58())).toEqual([validator.swapPool(MINT, OUT)!.lookupTable]);
    expect(decodePoolEventLogs(tx?.meta?.logMessages, PROGRAM).map((e) => e.name)).toEqual(["WithdrawEvent"]);
    expect(tx?.meta?.logMessages?.some((l) => l.startsWith(`Program log: swap ${w.depositSize - FEE} ${MINT} -> ${expected} ${OUT}`))).toBe(true);
    expect(logs.join("\n")).toContain(`paid ${expected} ${OUT}`);

    // Again: the nullifier is spent, refused by simulation.
    expect(await chain.submitWithdrawal(withdrawal(label, await quoteFor(label)), recorder().observer)).toMatchObject({ ok: false, rejection: "NullifierAlreadySpent" });
  });

  it("refuses SlippageExceeded, atomically, when the pool moves between quote and execution: the venue's own minimum, then assert_swap_out", async () => {
    const label = "leaf 5, 6 SOL";
    const recipient = encodeBase58(RECIPIENTS[label]!);
    // The recipient already holds some of the output mint: assert_swap_out must count only what the swap adds.
    await validator.mintTo(recipient, OUT, 1_000_000n);
    const [rIn, rOut] = reserves() as [bigint, bigint];
    const q = await quoteFor(label);
    const snapshot = async () => ({
      vault: await balance(poolVaultAddress(PROGRAM, MINT)),
      recipientOut: await balance(associatedTokenAddress(recipient, OUT)),
      relayerIn: await balance(associatedTokenAddress(relayer.address, MINT)),
      reserves: reserves(),
    });
    // The pool loses 5 % of its output reserve after the quote: 5 % less output, beyond the 0.5 % slippage.
    await validator.createSwapPool(MINT, OUT, rIn, (rOut * 95n) / 100n);
    const before = await snapshot();

    // 1. The venue's swap instruction enforces the quote's otherAmountThreshold (Jupiter's 6001 SlippageToleranceExceeded).
    const venueRefusal = recorder();
    const r1 = await chain.submitWithdrawal(withdrawal(label, q), venueRefusal.observer);
    expect(r1).toMatchObject({ ok: false, rejection: "SlippageExceeded" });
    expect(venueRefusal.attempts).toHaveLength(0);

    // 2. A route that does not enforce a minimum itself: assert_swap_out refuses (the recipient's prior balance does not count).
    const lax: SwapQuote = { ...q, raw: { ...(q.raw as object), otherAmountThreshold: "0" } };
    const r2 = await chain.submitWithdrawal(withdrawal(label, lax), recorder().observer);
    expect(r2).toMatchObject({ ok: false, rejection: "SlippageExceeded", detail: expect.stringContaining("SwapOutputTooLow") });

    expect(await chain.isNullifierSpent(MINT, withdrawal(label, q).nullifierHash)).toBe(false);
    expect(await snapshot()).toEqual(before);

    // The pool back where it was quoted: the same withdrawal lands, paying the quote on top of the recipient's balance.
    await validator.createSwapPool(MINT, OUT, rIn, rOut);
    const r3 = await chain.submitWithdrawal(withdrawal(label, q), recorder().observer);
    expect(r3).toEqual({ ok: true, signature: expect.any(String), outAmount: q.outAmount });
    expect(await balance(associatedTokenAddress(recipient, OUT))).toBe(1_000_000n + q.outAmount);
  });

  it("refuses SwapFailed without touching the chain when the quote is not a Jupiter quote of depositSize − fee, or the venue refuses", async () => {
    const label = "leaf 6, 7 SOL";
    const q = await quoteFor(label);
    const r1 = await chain.submitWithdrawal({ ...withdrawal(label, q), fee: FEE + 1n }, recorder().observer);
    expect(r1).toMatchObject({ ok: false, rejection: "SwapFailed" });
    const gone: SwapQuote = { ...q, raw: { ...(q.raw as object), routePlan: [{ swapInfo: { ammKey: encodeBase58(new Uint8Array(32).fill(9)) } }] } };
    const r2 = await chain.submitWithdrawal(withdrawal(label, gone), recorder().observer);
    expect(r2).toMatchObject({ ok: false, rejection: "SwapFailed", detail: expect.stringContaining("MARKET_NOT_FOUND") });
    expect(await chain.isNullifierSpent(MINT, withdrawal(label, q).nullifierHash)).toBe(false);
  });
});
