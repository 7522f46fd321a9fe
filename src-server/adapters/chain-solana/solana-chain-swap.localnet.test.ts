/**
 * SolanaChain's relay_swap path against the local validator: the quote and
 * the swap instructions come over HTTP from the validator's Jupiter-compatible
 * API (src-localnet/rpc/jupiter.ts) through the real JupiterSwapApi client,
 * the swap runs in the cp-swap program and pays into the withdrawal's swap
 * escrow (protocol v3), and the pool program verifies real Groth16 proofs
 * (proved for the pool by tests/support/localnet-pool.ts).
 */
import { PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { SYSVAR_INSTRUCTIONS_ID, associatedTokenAddress, decodePoolInstruction, poolVaultAddress, swapEscrowAddress } from "../../../src-shared/pool-program";
import { poolEventsOfResponse } from "../../../src-shared/pool-program/leaves";
import type { LocalValidator } from "../../../src-localnet/validator";
import type { SwapQuote } from "../../core/swap/quote";
import type { WithdrawalSubmission } from "../../ports/chain";
import type { Signer } from "../../../src-shared/node/keypair-file";
import { JupiterSwapApi } from "../swap-jupiter/jupiter-api";
import { SolanaChain, type SwapInstructionsSource } from "./solana-chain";
import { FEE, MINT, OUTPUT_MINT as OUT, PROGRAM, SOL, recipientOf, recorder, startFixturePool, type FixturePool } from "../../../tests/support/localnet-pool";
import { CP_SWAP, localJupiter, swapChain } from "../../../tests/support/localnet-swap";

/** The swap withdrawals: the whole of note 1 with minOut 1, of note 2 with minOut 2^62 (more than any pool pays), half of note 3 with minOut 1. */
const REACHABLE = { note: 1, minOut: 1n, label: "note 1, swap" };
const UNREACHABLE = { note: 2, minOut: 1n << 62n, label: "note 2, swap unreachable" };
const PARTIAL = { note: 3, minOut: 1n, amount: 2n * SOL, label: "note 3, half swapped" };
type Case = { note: number; minOut: bigint; amount?: bigint; label: string };
const SLIPPAGE_BPS = 50;
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

const depositSizeOf = (c: Case): bigint => c.amount ?? pool.notes[c.note]!.amount;
const proved = new Map<string, WithdrawalSubmission>();

/** The case's proof (made once) with its swap leg: the proof's own output mint and minOut. */
async function withdrawal(c: Case, quote: SwapQuote): Promise<WithdrawalSubmission> {
  let w = proved.get(c.label);
  if (!w) {
    const p = await pool.prove(pool.notes[c.note]!, recipientOf(c.label), {
      swap: { outputMint: OUT, minOut: c.minOut },
      ...(c.amount ? { amount: c.amount } : {}),
    });
    proved.set(c.label, (w = p.submission));
  }
  return { ...w, swap: { outputMint: OUT, quote, minOut: c.minOut } };
}

async function quoteFor(c: Case): Promise<SwapQuote> {
  const q = await jupiter.quote({ inputMint: MINT, outputMint: OUT, amount: depositSizeOf(c) - FEE, slippageBps: SLIPPAGE_BPS, dexes: [] });
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
  jupiter = localJupiter(pool);
  chain = await swapChain(pool, { swapInstructions: jupiter, log: (l) => logs.push(l) });
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
    const w = await withdrawal(UNREACHABLE, q);
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
    const r = await chain.submitWithdrawal(await withdrawal(UNREACHABLE, inflated), observer);
    expect(r).toMatchObject({ ok: false, rejection: "SlippageExceeded", detail: expect.stringContaining("simulation refused") });
    expect(attempts).toHaveLength(0);
    expect(await chain.isNullifierSpent(MINT, w.nullifierHash)).toBe(false);
    expect(await balance(poolVaultAddress(PROGRAM, MINT))).toBe(vaultBefore);
    expect(reserves()).toEqual([RESERVES.in, RESERVES.out]);
  });

  it("refuses SwapFailed without touching the chain when the quote is not a Jupiter quote of depositSize − fee, or the venue refuses", async () => {
    const q = await quoteFor(REACHABLE);
    const r1 = await chain.submitWithdrawal({ ...(await withdrawal(REACHABLE, q)), fee: FEE + 1n }, recorder().observer);
    expect(r1).toMatchObject({ ok: false, rejection: "SwapFailed" });
    const gone: SwapQuote = { ...q, raw: { ...(q.raw as object), routePlan: [{ swapInfo: { ammKey: encodeBase58(new Uint8Array(32).fill(9)) } }] } };
    const r2 = await chain.submitWithdrawal(await withdrawal(REACHABLE, gone), recorder().observer);
    expect(r2).toMatchObject({ ok: false, rejection: "SwapFailed", detail: expect.stringContaining("MARKET_NOT_FOUND") });
    expect(await chain.isNullifierSpent(MINT, (await withdrawal(REACHABLE, q)).nullifierHash)).toBe(false);
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
      const c = await swapChain(pool, { swapInstructions: tampered, swapPrograms: [CP_SWAP] });
      const lamports = await pool.rpc.getBalance(new PublicKey(relayer.address));
      const { attempts, observer } = recorder();
      expect(await c.submitWithdrawal(await withdrawal(REACHABLE, q), observer)).toMatchObject({
        ok: false,
        rejection: "SwapFailed",
        detail: expect.stringContaining(text),
      });
      expect(attempts).toHaveLength(0);
      expect(await chain.isNullifierSpent(MINT, (await withdrawal(REACHABLE, q)).nullifierHash)).toBe(false);
      expect(await pool.rpc.getBalance(new PublicKey(relayer.address))).toBe(lamports);
    }
  });

  it("refuses SlippageExceeded, atomically, when the pool moves between quote and execution; then lands withdraw_swap + swap into the escrow + assert_swap_out in one transaction: the recipient gets the CP output (≥ minOut) on top of what they held, the relayer the fee and the escrow's rent back", async () => {
    const c = REACHABLE;
    const recipient = recipientOf(c.label);
    const escrow = swapEscrowAddress(PROGRAM, MINT, (await withdrawal(c, await quoteFor(c))).nullifierHash);
    // The recipient already holds some of the output mint: only what the escrow received is paid on top.
    await validator.mintTo(recipient, OUT, 1_000_000n);
    const [rIn, rOut] = reserves() as [bigint, bigint];
    const q = await quoteFor(c);
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
    const r1 = await chain.submitWithdrawal(await withdrawal(c, q), venueRefusal.observer);
    expect(r1).toMatchObject({ ok: false, rejection: "SlippageExceeded" });
    expect(venueRefusal.attempts).toHaveLength(0);
    expect(await chain.isNullifierSpent(MINT, (await withdrawal(c, q)).nullifierHash)).toBe(false);
    expect(await snapshot()).toEqual(before);

    // The pool back where it was quoted: the same withdrawal lands, paying the quote on top of the recipient's balance.
    await validator.createSwapPool(MINT, OUT, rIn, rOut);
    const w = await withdrawal(c, q);
    const vaultBefore = await balance(poolVaultAddress(PROGRAM, MINT));
    const lamportsBefore = await pool.rpc.getBalance(new PublicKey(relayer.address));
    // The relay creates its own input token account first when missing (the relayer keeps that account).
    const relayerAtaRent = (await pool.rpc.getAccountInfo(new PublicKey(associatedTokenAddress(relayer.address, MINT))))
      ? 0
      : await pool.rpc.getMinimumBalanceForRentExemption(165);
    const { attempts, observer } = recorder();
    const r = await chain.submitWithdrawal(w, observer);
    expect(r).toEqual({ ok: true, signature: expect.any(String), changeLeafIndex: 7, outAmount: q.outAmount });
    if (!r.ok) return;
    expect(q.outAmount).toBeGreaterThanOrEqual(w.swap!.minOut);
    expect(attempts.map((a) => a.verdict)).toEqual(["pending", "landed"]);
    expect(await balance(associatedTokenAddress(recipient, OUT))).toBe(1_000_000n + q.outAmount);
    expect(await balance(associatedTokenAddress(recipient, MINT))).toBe(0n);
    expect(await balance(associatedTokenAddress(relayer.address, MINT))).toBe(FEE);
    expect(vaultBefore - (await balance(poolVaultAddress(PROGRAM, MINT)))).toBe(w.depositSize);
    expect(reserves()).toEqual([rIn + w.depositSize - FEE, rOut - q.outAmount]);
    expect(await chain.isNullifierSpent(MINT, w.nullifierHash)).toBe(true);
    // The escrow is closed within the transaction: the relayer paid the network fee and the nullifier's rent (and its own token account's), nothing for the escrow.
    expect(await pool.rpc.getAccountInfo(new PublicKey(escrow))).toBeNull();
    const nullifierRent = await pool.rpc.getMinimumBalanceForRentExemption(81);
    expect(lamportsBefore - (await pool.rpc.getBalance(new PublicKey(relayer.address)))).toBe(attempts[1]!.networkFeeLamports + nullifierRent + relayerAtaRent);

    const tx = await pool.rpc.getTransaction(r.signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
    expect(tx?.version).toBe(0);
    // The route's lookup table (from swap-instructions) is what keeps the transaction under 1232 bytes; the escrow cannot be in it.
    expect(tx?.transaction.message.addressTableLookups.map((l) => l.accountKey.toBase58())).toEqual([validator.swapPool(MINT, OUT)!.lookupTable]);
    expect(tx!.transaction.message.staticAccountKeys.map((k) => k.toBase58())).toContain(escrow);
    const size = Number(/\((\d+) bytes\)/.exec(logs.find((l) => l.includes(`withdrawal ${r.signature} landed`)) ?? "")?.[1]);
    expect(size).toBeLessThanOrEqual(1232);
    console.log(`withdraw_swap + cp-swap + assert_swap_out with the escrow: ${size} bytes, ${tx?.meta?.computeUnitsConsumed} compute units`);
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
    expect(poolIxs[1]).toEqual({ ok: true, value: { name: "assert_swap_out", minOut: w.swap!.minOut, nullifierHash: w.nullifierHash } });
    // The venue paid the escrow, the escrow paid the recipient.
    const swapIx = tx!.transaction.message.compiledInstructions.find((i) => keys[i.programIdIndex] === CP_SWAP)!;
    expect(swapIx.accountKeyIndexes.map((k) => keys[k])).toContain(escrow);
    expect(swapIx.accountKeyIndexes.map((k) => keys[k])).not.toContain(associatedTokenAddress(recipient, OUT));
    expect(poolEventsOfResponse(tx!, PROGRAM).map((e) => e.name)).toEqual(["WithdrawEvent"]);
    expect(tx?.meta?.logMessages?.some((l) => l.startsWith(`Program log: swap ${w.depositSize - FEE} ${MINT} -> ${q.outAmount} ${OUT}`))).toBe(true);
    expect(logs.join("\n")).toContain(`paid ${q.outAmount} ${OUT}`);

    // Again: the nullifier is spent, refused by simulation.
    expect(await chain.submitWithdrawal(await withdrawal(c, await quoteFor(c)), recorder().observer)).toMatchObject({
      ok: false,
      rejection: "NullifierAlreadySpent",
    });
  });

  it("swaps part of a note: the change leaf holds the rest, and the recipient's output account is created by the program", async () => {
    const c = PARTIAL;
    const recipient = recipientOf(c.label);
    expect(await pool.rpc.getAccountInfo(new PublicKey(associatedTokenAddress(recipient, OUT)))).toBeNull();
    const q = await quoteFor(c);
    const w = await withdrawal(c, q);
    const r = await chain.submitWithdrawal(w, recorder().observer);
    expect(r).toMatchObject({ ok: true, changeLeafIndex: 8, outAmount: q.outAmount });
    if (!r.ok) return;
    // The relayer's input account exists now: the transaction is withdraw_swap, the route and assert_swap_out alone.
    const size = Number(/\((\d+) bytes\)/.exec(logs.find((l) => l.includes(`withdrawal ${r.signature} landed`)) ?? "")?.[1]);
    expect(size).toBeLessThanOrEqual(1232);
    console.log(`withdraw_swap (recipient's output account created by the program) + cp-swap + assert_swap_out: ${size} bytes`);
    expect(await balance(associatedTokenAddress(recipient, OUT))).toBe(q.outAmount);
    const leaves = await pool.leafEvents();
    expect(leaves.map((l) => l.kind)).toEqual([...Array(7).fill("deposit"), "change", "change"]);
    expect(leaves[8]!.commitment).toEqual(w.changeCommitment);
  });
});
