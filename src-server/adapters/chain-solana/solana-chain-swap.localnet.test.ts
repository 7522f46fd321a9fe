/**
 * SolanaChain's relay_swap path against the local validator: the quote and
 * the swap instructions come over HTTP from the validator's Jupiter-compatible
 * API (src-localnet/rpc/jupiter.ts) through the real JupiterSwapApi client,
 * the swap runs in the cp-swap program, and the pool program verifies real
 * Groth16 proofs (the recorded fixtures in tests/support/groth16).
 */
import { PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { SYSVAR_INSTRUCTIONS_ID, associatedTokenAddress, decodePoolEventLogs, decodePoolInstruction, poolVaultAddress } from "../../../src-shared/pool-program";
import type { LocalValidator } from "../../../src-localnet/validator";
import type { SwapQuote } from "../../core/swap/quote";
import type { WithdrawalSubmission } from "../../ports/chain";
import type { Signer } from "../keys/keypair-file";
import { JupiterSwapApi } from "../swap-jupiter/jupiter-api";
import { SolanaChain, type SwapInstructionsSource } from "./solana-chain";
import { JUPITER_V6_PROGRAM_ID } from "./swap-guard";
import {
  FEE,
  MINT,
  NOTE,
  OUTPUT_MINT,
  PROGRAM,
  RECIPIENTS,
  SOL,
  TEST_TIMING,
  recorder,
  startFixturePool,
  type FixturePool,
} from "../../../tests/support/localnet-pool";

/** The output mint the recorded withdraw_swap proofs are bound to. */
const OUT = OUTPUT_MINT;
/** The recorded withdraw_swap proofs: minOut 1, and minOut 2^62 (more than any pool pays). */
const REACHABLE = "leaf 1, 2 SOL, swap min 1";
const UNREACHABLE = "leaf 2, 3 SOL, swap unreachable";
const SLIPPAGE_BPS = 50;
/** The validator's cp-swap program (src-localnet/programs/cp-swap-client.ts): the venue's program here. */
const CP_SWAP = "CpSwap11111111111111111111111111111111111111";
const RESERVES = { in: 100n * SOL, out: 400_000_000_000n };
/** The constant-product output, floor(amountIn·997·rOut / (rIn·1000 + amountIn·997)), written out again so the test does not trust the code under test. */
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

/** The recorded proof with its swap leg: the proof's own output mint and minOut. */
function withdrawal(label: string, quote: SwapQuote): WithdrawalSubmission {
  return { ...pool.withdrawal(label), swap: { outputMint: OUT, quote, minOut: pool.minOut(label) } };
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
    swapPrograms: [JUPITER_V6_PROGRAM_ID, CP_SWAP],
    timing: TEST_TIMING,
  });
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

describe("SolanaChain relay_swap on the local validator (Jupiter API → cp-swap)", () => {
  it("quotes over Jupiter's HTTP API exactly the constant-product output", async () => {
    const q = await quoteFor(REACHABLE);
    const amount = depositSizeOf(REACHABLE) - FEE;
    const out = cpOut(amount, RESERVES.in, RESERVES.out);
    expect(q).toMatchObject({
      venue: "jupiter",
      inputMint: MINT,
      outputMint: OUT,
      inAmount: amount,
      outAmount: out,
      otherAmountThreshold: (out * 9950n) / 10_000n,
      slippageBps: 50,
    });
    expect(q.priceImpactPct).toBeCloseTo((100 * Number(amount)) / Number(RESERVES.in + amount), 9);
    expect(q.routePlan).toHaveLength(1);
    expect(q.routePlan[0]!.swapInfo).toMatchObject({ ammKey: validator.swapPool(MINT, OUT)!.pool, label: "localnet-cp", feeMint: MINT });
  });

  it("an unreachable minOut (2^62): SlippageExceeded, nothing withdrawn, whether the quote already shows it or the venue, asked for at least minOut, refuses in simulation", async () => {
    const q = await quoteFor(UNREACHABLE);
    const w = withdrawal(UNREACHABLE, q);
    expect(w.swap!.minOut).toBe(1n << 62n);
    const vaultBefore = await balance(poolVaultAddress(PROGRAM, MINT));
    const { attempts, observer } = recorder();
    expect(await chain.submitWithdrawal(w, observer)).toMatchObject({
      ok: false,
      rejection: "SlippageExceeded",
      outAmount: q.outAmount,
      detail: expect.stringContaining("less than minOut"),
    });
    // A quote claiming more than the pool pays: the swap instruction carries minOut as its minimum, and the venue refuses it.
    const inflated: SwapQuote = { ...q, outAmount: w.swap!.minOut };
    const r = await chain.submitWithdrawal(withdrawal(UNREACHABLE, inflated), observer);
    expect(r).toMatchObject({ ok: false, rejection: "SlippageExceeded", detail: expect.stringContaining("simulation refused") });
    expect(attempts).toHaveLength(0);
    expect(await chain.isNullifierSpent(MINT, w.nullifierHash)).toBe(false);
    expect(await balance(poolVaultAddress(PROGRAM, MINT))).toBe(vaultBefore);
    expect(reserves()).toEqual([RESERVES.in, RESERVES.out]);
  });

  it("refuses SwapFailed without touching the chain when the quote is not a Jupiter quote of depositSize − fee, or the venue refuses", async () => {
    const q = await quoteFor(REACHABLE);
    const r1 = await chain.submitWithdrawal({ ...withdrawal(REACHABLE, q), fee: FEE + 1n }, recorder().observer);
    expect(r1).toMatchObject({ ok: false, rejection: "SwapFailed" });
    const gone: SwapQuote = { ...q, raw: { ...(q.raw as object), routePlan: [{ swapInfo: { ammKey: encodeBase58(new Uint8Array(32).fill(9)) } }] } };
    const r2 = await chain.submitWithdrawal(withdrawal(REACHABLE, gone), recorder().observer);
    expect(r2).toMatchObject({ ok: false, rejection: "SwapFailed", detail: expect.stringContaining("MARKET_NOT_FOUND") });
    expect(await chain.isNullifierSpent(MINT, withdrawal(REACHABLE, q).nullifierHash)).toBe(false);
  });

  it("refuses SwapFailed, with nothing sent, a route with an instruction of a foreign program, a System transfer out of the relayer, or a token transfer of more than depositSize − fee from the relayer's input account", async () => {
    const q = await quoteFor(REACHABLE);
    const toSwap = depositSizeOf(REACHABLE) - FEE;
    const relayerIn = associatedTokenAddress(relayer.address, MINT);
    const thief = encodeBase58(new Uint8Array(32).fill(0x77));
    const u64le = (n: bigint) => {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setBigUint64(0, n, true);
      return b;
    };
    const drain = {
      programId: "11111111111111111111111111111111",
      accounts: [
        { pubkey: relayer.address, isSigner: true, isWritable: true },
        { pubkey: thief, isSigner: false, isWritable: true },
      ],
      data: Uint8Array.from([2, 0, 0, 0, ...u64le(SOL)]),
    };
    const overdraw = {
      programId: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
      accounts: [
        { pubkey: relayerIn, isSigner: false, isWritable: true },
        { pubkey: thief, isSigner: false, isWritable: true },
        { pubkey: relayer.address, isSigner: true, isWritable: false },
      ],
      data: Uint8Array.from([3, ...u64le(toSwap + 1n)]),
    };
    // Any program not on the list, e.g. the pool program itself (a second withdrawal signed by the relayer).
    const foreign = { programId: PROGRAM, accounts: [{ pubkey: relayer.address, isSigner: true, isWritable: true }], data: Uint8Array.from([0]) };
    for (const [extra, text] of [
      [foreign, `program ${PROGRAM} is not allowlisted`],
      [drain, "a System instruction other than a transfer into the relayer's wrapped-SOL account"],
      [overdraw, "more than the swap input"],
    ] as const) {
      const tampered: SwapInstructionsSource = {
        swapInstructions: async (quote, req) => {
          const r = await jupiter.swapInstructions(quote, req);
          return r.ok ? { ok: true, value: { ...r.value, setupInstructions: [...r.value.setupInstructions, extra] } } : r;
        },
      };
      const c = await SolanaChain.connect("devnet", pool.network({ allowLoss: true }), relayer, pool.hasher, () => {}, {
        rpc: pool.rpc,
        swapInstructions: tampered,
        swapPrograms: [CP_SWAP],
        timing: TEST_TIMING,
      });
      const lamports = await pool.rpc.getBalance(new PublicKey(relayer.address));
      const { attempts, observer } = recorder();
      expect(await c.submitWithdrawal(withdrawal(REACHABLE, q), observer)).toMatchObject({
        ok: false,
        rejection: "SwapFailed",
        detail: expect.stringContaining(text),
      });
      expect(attempts).toHaveLength(0);
      expect(await chain.isNullifierSpent(MINT, withdrawal(REACHABLE, q).nullifierHash)).toBe(false);
      expect(await pool.rpc.getBalance(new PublicKey(relayer.address))).toBe(lamports);
    }
  });

  it("refuses SlippageExceeded, atomically, when the pool moves between quote and execution; then lands withdraw_swap + swap + assert_swap_out in one transaction: the recipient gets the CP output (≥ minOut) on top of what they held, the relayer the fee", async () => {
    const label = REACHABLE;
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

    // The venue's swap instruction enforces the quote's otherAmountThreshold (Jupiter's 6001 SlippageToleranceExceeded).
    const venueRefusal = recorder();
    const r1 = await chain.submitWithdrawal(withdrawal(label, q), venueRefusal.observer);
    expect(r1).toMatchObject({ ok: false, rejection: "SlippageExceeded" });
    expect(venueRefusal.attempts).toHaveLength(0);
    expect(await chain.isNullifierSpent(MINT, withdrawal(label, q).nullifierHash)).toBe(false);
    expect(await snapshot()).toEqual(before);

    // The pool back where it was quoted: the same withdrawal lands, paying the quote on top of the recipient's balance.
    await validator.createSwapPool(MINT, OUT, rIn, rOut);
    const w = withdrawal(label, q);
    const vaultBefore = await balance(poolVaultAddress(PROGRAM, MINT));
    const { attempts, observer } = recorder();
    const r = await chain.submitWithdrawal(w, observer);
    expect(r).toEqual({ ok: true, signature: expect.any(String), outAmount: q.outAmount });
    if (!r.ok) return;
    expect(q.outAmount).toBeGreaterThanOrEqual(w.swap!.minOut);
    expect(attempts.map((a) => a.verdict)).toEqual(["pending", "landed"]);
    expect(await balance(associatedTokenAddress(recipient, OUT))).toBe(1_000_000n + q.outAmount);
    expect(await balance(associatedTokenAddress(recipient, MINT))).toBe(0n);
    expect(await balance(associatedTokenAddress(relayer.address, MINT))).toBe(FEE);
    expect(vaultBefore - (await balance(poolVaultAddress(PROGRAM, MINT)))).toBe(w.depositSize);
    expect(reserves()).toEqual([rIn + w.depositSize - FEE, rOut - q.outAmount]);
    expect(await chain.isNullifierSpent(MINT, w.nullifierHash)).toBe(true);
    const tx = await pool.rpc.getTransaction(r.signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
    expect(tx?.version).toBe(0);
    // The route's lookup table (from swap-instructions) is what keeps the transaction under 1232 bytes.
    expect(tx?.transaction.message.addressTableLookups.map((l) => l.accountKey.toBase58())).toEqual([validator.swapPool(MINT, OUT)!.lookupTable]);
    const keys = tx!.transaction.message
      .getAccountKeys({ accountKeysFromLookups: tx!.meta!.loadedAddresses ?? null })
      .keySegments()
      .flat()
      .map((k) => k.toBase58());
    expect(keys).toContain(SYSVAR_INSTRUCTIONS_ID);
    const poolIxs = tx!.transaction.message.compiledInstructions
      .filter((i) => keys[i.programIdIndex] === PROGRAM)
      .map((i) => decodePoolInstruction(Uint8Array.from(i.data)));
    expect(poolIxs.map((d) => d.ok && d.value.name)).toEqual(["withdraw_swap", "assert_swap_out"]);
    expect(poolIxs[1]).toEqual({ ok: true, value: { name: "assert_swap_out", requiredBalance: 1_000_000n + w.swap!.minOut } });
    expect(decodePoolEventLogs(tx?.meta?.logMessages, PROGRAM).map((e) => e.name)).toEqual(["WithdrawEvent"]);
    expect(tx?.meta?.logMessages?.some((l) => l.startsWith(`Program log: swap ${w.depositSize - FEE} ${MINT} -> ${q.outAmount} ${OUT}`))).toBe(true);
    expect(logs.join("\n")).toContain(`paid ${q.outAmount} ${OUT}`);

    // Again: the nullifier is spent, refused by simulation.
    expect(await chain.submitWithdrawal(withdrawal(label, await quoteFor(label)), recorder().observer)).toMatchObject({
      ok: false,
      rejection: "NullifierAlreadySpent",
    });
  });
});
