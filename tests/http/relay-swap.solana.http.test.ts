import { PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { swapEscrowAddress } from "../../src-shared/pool-program";
import { startSolanaHarness, type SolanaHarness } from "../support/localnet";
import { changeNoteAt, prepareWithdrawal, testRecipient, type PreparedWithdrawal } from "../support/proofs";
import { USDC, WSOL } from "../support/sandbox";
import { newWallet, post, type TestWallet } from "../support/wallet";

/**
 * /jupiter and /relay_swap on a network bound to `solana`: the relay's
 * Jupiter client talks to the local validator's Jupiter-compatible API
 * (src-localnet/rpc/jupiter.ts), which routes through the validator's
 * constant-product pools, and the withdrawal and the swap land in one
 * transaction (withdraw_swap + swap into the withdrawal's escrow +
 * assert_swap_out paying the recipient out of it). Each proof binds its
 * minOut, the threshold of the quote the wallet saw, and (protocol v3) its
 * change commitment: a swap of part of a note leaves the rest as a change
 * leaf, spent afterwards through /relay.
 */
let h: SolanaHarness;
let depositor: TestWallet;
let token: string;
let relayer: string;
let main: PreparedWithdrawal;
let slipped: PreparedWithdrawal;
let partial: PreparedWithdrawal;

const RESERVES = { usdc: 1_000_000_000n, wsol: 5_000_000_000n };
const FEE = (1_000_000n * 25n) / 10_000n; // the default 25 bps
const TO_SWAP = 1_000_000n - FEE;
/** The constant-product output, floor(amountIn·997·rOut / (rIn·1000 + amountIn·997)), written out again here so the test does not trust the code under test. */
const cpOut = (a: bigint, rIn: bigint, rOut: bigint): bigint => (a * 997n * rOut) / (rIn * 1000n + a * 997n);

/** What a wallet proves for: the quote less the pair's 50 bps (otherAmountThreshold). */
const threshold = (quoted: bigint): bigint => (quoted * 9950n) / 10_000n;
/** The pool as the second test finds it: after the first test's swap landed. */
const AFTER_FIRST = { usdc: RESERVES.usdc + TO_SWAP, wsol: RESERVES.wsol - cpOut(TO_SWAP, RESERVES.usdc, RESERVES.wsol) };
/** And as the third finds it: after the second's retry landed. */
const AFTER_SECOND = { usdc: AFTER_FIRST.usdc + TO_SWAP, wsol: AFTER_FIRST.wsol - cpOut(TO_SWAP, AFTER_FIRST.usdc, AFTER_FIRST.wsol) };
const swapBody = (w: PreparedWithdrawal): Record<string, unknown> => ({ ...w.swapBody! });
const relaySwap = (body: unknown) => post(`${h.url}/relay_swap`, body, { "x-api-auth": token });
const quote = (body: Record<string, unknown>) => post(`${h.url}/jupiter`, body);
const balance = (owner: string, mint: string) => h.chain.balance(owner, mint);
const nullifierOf = async (w: PreparedWithdrawal): Promise<{ address: string | null }> =>
  (await post(`${h.url}/get_nullifier/${USDC}/32/mainnet`, { nullifierHash: w.body.nullifierHash })).json as { address: string | null };
const nextIndex = async (): Promise<number> => ((await post(`${h.url}/get_merkle/${USDC}/32/mainnet`)).json as { json: { nextIndex: number } }).json.nextIndex;
const reserves = () => {
  const p = h.localnet.validator.swapPool(USDC, WSOL)!;
  return p.mintA === USDC ? [p.reserveA, p.reserveB] : [p.reserveB, p.reserveA];
};

beforeAll(async () => {
  h = await startSolanaHarness({ RELAY_RATE_LIMITS: "off" });
  relayer = h.localnet.relayer.publicKey.toBase58();
  depositor = newWallet();
  await h.chain.fund(depositor, 100_000_000, USDC);
  const t = Math.floor(Date.now() / 1000);
  token = ((await post(`${h.url}/login`, { wallet: depositor.address, signature: depositor.sign(String(t)), message: t })).json as { id: string }).id;
  const swapTo = (r: { usdc: bigint; wsol: bigint }) => ({ outputMint: WSOL, minOut: threshold(cpOut(TO_SWAP, r.usdc, r.wsol)) });
  main = await prepareWithdrawal(h.url, depositor, USDC, {
    recipient: testRecipient("solana-swap-main"),
    amount: 1_000_000,
    chain: h.chain,
    swap: swapTo(RESERVES),
  });
  slipped = await prepareWithdrawal(h.url, depositor, USDC, {
    recipient: testRecipient("solana-swap-slipped"),
    amount: 1_000_000,
    chain: h.chain,
    swap: swapTo(AFTER_FIRST),
  });
  // A note of 3,000,000 of which 1,000,000 is swapped: 2,000,000 stay in its change leaf.
  partial = await prepareWithdrawal(h.url, depositor, USDC, {
    recipient: testRecipient("solana-swap-partial"),
    amount: 3_000_000,
    withdraw: 1_000_000,
    chain: h.chain,
    swap: swapTo(AFTER_SECOND),
  });
  await h.createSwapPool(USDC, WSOL, RESERVES.usdc, RESERVES.wsol);
}, 240_000);
afterAll(async () => {
  await h?.stop();
});

describe("POST /jupiter on a solana network (the local Jupiter API)", () => {
  it("answers the spec's quote from the validator's constant-product pool, exactly", async () => {
    const calls = h.localnet.validator.jupiter.calls.quote;
    const r = await quote({ inputMint: USDC, outputMint: WSOL, amount: 10_000_000, slippageBps: 30, dexes: [], network: "mainnet" });
    expect(r.status).toBe(200);
    const out = cpOut(10_000_000n, RESERVES.usdc, RESERVES.wsol);
    const body = r.json as Record<string, unknown> & { priceImpactPct: number; routePlan: { swapInfo: Record<string, unknown>; percent: number }[] };
    expect(body).toMatchObject({
      inputMint: USDC,
      outputMint: WSOL,
      inAmount: "10000000",
      outAmount: out.toString(),
      otherAmountThreshold: ((out * 9970n) / 10_000n).toString(),
      slippageBps: 30,
    });
    expect(body.priceImpactPct).toBeCloseTo((100 * 10_000_000) / (1_000_000_000 + 10_000_000), 9);
    expect(body.routePlan).toEqual([
      {
        swapInfo: {
          ammKey: h.localnet.validator.swapPool(USDC, WSOL)!.pool,
          label: "localnet-cp",
          inputMint: USDC,
          outputMint: WSOL,
          inAmount: "10000000",
          outAmount: out.toString(),
          feeAmount: "30000",
          feeMint: USDC,
        },
        percent: 100,
      },
    ]);
    expect(h.localnet.validator.jupiter.calls.quote).toBe(calls + 1);
  });

  it("answers 400 InsufficientLiquidity for a pair without a pool", async () => {
    const r = await quote({ inputMint: USDC, outputMint: newWallet().address, amount: 1000, slippageBps: 50, dexes: [] });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: "InsufficientLiquidity" });
  });
});

describe("POST /relay_swap on a solana network", () => {
  it("pays the recipient the quoted output in the output mint and the relayer the fee in the input mint, in one transaction", async () => {
    const q = (await quote({ inputMint: USDC, outputMint: WSOL, amount: Number(TO_SWAP), slippageBps: 50, dexes: [] })).json as {
      outAmount: string;
      otherAmountThreshold: string;
    };
    expect(q.outAmount).toBe(cpOut(TO_SWAP, RESERVES.usdc, RESERVES.wsol).toString());
    const recipient = main.body.recipient;
    const before = { relayerUsdc: await balance(relayer, USDC), vault: await h.chain.vaultBalance(USDC), reserves: reserves() };

    const treeBefore = await nextIndex();
    const r = await relaySwap(swapBody(main));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ status: 200, signature: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/), changeLeafIndex: treeBefore });
    // The route paid the withdrawal's escrow, which assert_swap_out emptied into the recipient's account and closed.
    const escrow = swapEscrowAddress(h.localnet.programId, USDC, Uint8Array.from(main.body.nullifierHash));
    const tx = await h.localnet.connection.getTransaction((r.json as { signature: string }).signature, {
      commitment: "confirmed",
      maxSupportedTransactionVersion: 0,
    });
    expect(tx!.transaction.message.staticAccountKeys.map((k) => k.toBase58())).toContain(escrow);
    expect(await h.localnet.connection.getAccountInfo(new PublicKey(escrow), "confirmed")).toBeNull();

    const received = await balance(recipient, WSOL);
    expect(received).toBe(BigInt(q.outAmount)); // nothing traded in between: exactly the quote
    expect(received).toBeGreaterThanOrEqual(BigInt(main.swapBody!.minOut));
    expect(await balance(recipient, USDC)).toBe(0n);
    expect((await balance(relayer, USDC)) - before.relayerUsdc).toBe(FEE);
    expect(before.vault - (await h.chain.vaultBalance(USDC))).toBe(1_000_000n);
    expect(reserves()).toEqual([before.reserves[0]! + TO_SWAP, before.reserves[1]! - received]);
    expect((await nullifierOf(main)).address).not.toBeNull();
    expect(h.localnet.validator.jupiter.calls.swapInstructions).toBeGreaterThan(0);

    const again = await relaySwap(swapBody(main));
    expect(again.status).toBe(400);
    expect(again.json).toMatchObject({ status: 400, error: "NullifierAlreadySpent" });
  });

  it("answers 400 SlippageExceeded with nothing spent when the pool moves between the quote and the execution; the retry lands", async () => {
    const [rIn, rOut] = reserves() as [bigint, bigint];
    expect([rIn, rOut]).toEqual([AFTER_FIRST.usdc, AFTER_FIRST.wsol]);
    const recipient = slipped.body.recipient;
    const before = { vault: await h.chain.vaultBalance(USDC), relayerUsdc: await balance(relayer, USDC) };
    // After the relay's quote, before its transaction: half the WSOL reserve leaves the pool.
    h.localnet.validator.jupiter.beforeNextSwapInstructions(() => h.createSwapPool(USDC, WSOL, rIn, rOut / 2n));
    const r = await relaySwap(swapBody(slipped));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status: 400, error: "SlippageExceeded" });
    expect((await nullifierOf(slipped)).address).toBeNull();
    expect(await balance(recipient, WSOL)).toBe(0n);
    expect(await balance(recipient, USDC)).toBe(0n);
    expect(await h.chain.vaultBalance(USDC)).toBe(before.vault);
    expect(await balance(relayer, USDC)).toBe(before.relayerUsdc);
    expect(reserves()).toEqual([rIn, rOut / 2n]);

    // The pool back: the same request lands, paying what the pool now quotes.
    await h.createSwapPool(USDC, WSOL, rIn, rOut);
    const retry = await relaySwap(swapBody(slipped));
    expect(retry.status).toBe(200);
    expect(await balance(recipient, WSOL)).toBe(cpOut(TO_SWAP, rIn, rOut));
  });

  it("swaps part of a note: the rest becomes a change leaf, which /relay then withdraws through the same chain", async () => {
    const recipient = partial.body.recipient;
    const treeBefore = await nextIndex();
    const r = await relaySwap(swapBody(partial));
    expect(r.status).toBe(200);
    const { changeLeafIndex } = r.json as { changeLeafIndex: number };
    expect(changeLeafIndex).toBe(treeBefore);
    expect(await balance(recipient, WSOL)).toBe(cpOut(TO_SWAP, AFTER_SECOND.usdc, AFTER_SECOND.wsol));
    expect(partial.change.amount).toBe(2_000_000n);

    // The change leaf is in the relay's tree at the index it answered: the change note is spent through /relay.
    const rest = await prepareWithdrawal(h.url, depositor, USDC, {
      recipient: testRecipient("solana-swap-partial-rest"),
      spend: changeNoteAt(partial, changeLeafIndex),
      chain: h.chain,
    });
    expect(rest.body.depositSize).toBe(2_000_000);
    const vault = await h.chain.vaultBalance(USDC);
    const paid = await post(`${h.url}/relay`, rest.body, { "x-api-auth": token });
    expect(paid.status).toBe(200);
    expect(paid.json).toMatchObject({ status: 200, changeLeafIndex: changeLeafIndex + 1 });
    expect(await balance(rest.body.recipient, USDC)).toBe(2_000_000n - BigInt(rest.body.fee));
    expect(vault - (await h.chain.vaultBalance(USDC))).toBe(2_000_000n);
  });
});
