import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSolanaHarness, type SolanaHarness } from "../support/localnet";
import { prepareWithdrawal, testRecipient, type PreparedWithdrawal } from "../support/proofs";
import { USDC, WSOL } from "../support/sandbox";
import { newWallet, post, type TestWallet } from "../support/wallet";

/**
 * /jupiter and /relay_swap on a network bound to `solana`: the relay's
 * Jupiter client talks to the local validator's Jupiter-compatible API
 * (src-localnet/rpc/jupiter.ts), which routes through the validator's
 * constant-product pools, and the withdrawal and the swap land in one
 * transaction (withdraw_swap + swap + assert_swap_out). Protocol v2: each proof
 * binds its minOut, the threshold of the quote the wallet saw.
 */
let h: SolanaHarness;
let depositor: TestWallet;
let token: string;
let relayer: string;
let main: PreparedWithdrawal;
let slipped: PreparedWithdrawal;

const RESERVES = { usdc: 1_000_000_000n, wsol: 5_000_000_000n };
const FEE = (1_000_000n * 25n) / 10_000n; // the default 25 bps
const TO_SWAP = 1_000_000n - FEE;
/** The constant-product output, floor(amountIn·997·rOut / (rIn·1000 + amountIn·997)), written out again here so the test does not trust the code under test. */
const cpOut = (a: bigint, rIn: bigint, rOut: bigint): bigint => (a * 997n * rOut) / (rIn * 1000n + a * 997n);

/** What a wallet proves for: the quote less the pair's 50 bps (otherAmountThreshold). */
const threshold = (quoted: bigint): bigint => (quoted * 9950n) / 10_000n;
/** The pool as the second test finds it: after the first test's swap landed. */
const AFTER_FIRST = { usdc: RESERVES.usdc + TO_SWAP, wsol: RESERVES.wsol - cpOut(TO_SWAP, RESERVES.usdc, RESERVES.wsol) };
const swapBody = (w: PreparedWithdrawal): Record<string, unknown> => ({ ...w.swapBody! });
const relaySwap = (body: unknown) => post(`${h.url}/relay_swap`, body, { "x-api-auth": token });
const quote = (body: Record<string, unknown>) => post(`${h.url}/jupiter`, body);
const balance = (owner: string, mint: string) => h.chain.balance(owner, mint);
const nullifierOf = async (w: PreparedWithdrawal): Promise<{ address: string | null }> =>
  (await post(`${h.url}/get_nullifier/${USDC}/32/mainnet`, { nullifierHash: w.body.nullifierHash })).json as { address: string | null };
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
  await h.createSwapPool(USDC, WSOL, RESERVES.usdc, RESERVES.wsol);
}, 180_000);
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

    const r = await relaySwap(swapBody(main));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ status: 200, signature: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/) });

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
});
