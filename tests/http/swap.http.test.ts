import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PROGRAM_ID } from "../../src-server/config/schema";
import { parsePublicKey } from "../../src-shared/encoding/base58";
import { vaultAddress } from "../../src-shared/solana/pda";
import { changeNoteAt, prepareWithdrawal, testRecipient, type PreparedWithdrawal, type RelayBody } from "../support/proofs";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { airdrop, USDC, WSOL } from "../support/sandbox";
import { get, newWallet, post, type TestWallet } from "../support/wallet";

const USDT = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB";
const THIN = "4k3Dyjzvzp8eMZWUXbBCjEvwSkkk59S5iCNLY3QrkX6R"; // a mint with a shallow pool against USDC
const NOPOOL = "mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So"; // a mint with no pool at all
const key = (s: string): Uint8Array => {
  const r = parsePublicKey(s);
  if (!r.ok) throw new Error(s);
  return r.value;
};
const USDC_VAULT = vaultAddress(key(DEFAULT_PROGRAM_ID), key(USDC));
/** The constant-product output, floor(amountIn·997·rOut / (rIn·1000 + amountIn·997)), written out again here so the test does not trust the code under test. */
const cpOut = (a: bigint, rIn: bigint, rOut: bigint): bigint => (a * 997n * rOut) / (rIn * 1000n + a * 997n);

let relay: RelayProcess;
let depositor: TestWallet;
let token: string;
let relayer: string;
/** A swap proof into WSOL bound to the quote's otherAmountThreshold; one into THIN (a shallow pool) bound to minOut 1 000 000; one into WSOL asking more than the pool delivers. */
let valid: PreparedWithdrawal;
let spare: PreparedWithdrawal;
let greedy: PreparedWithdrawal;

/** The /relay_swap request a swap proof was made for, with fields replaced. */
const swapBody = (w: PreparedWithdrawal, over: Record<string, unknown> = {}): Record<string, unknown> => ({ ...w.swapBody!, ...over });
const relaySwap = (body: unknown, auth: string | null = token) => post(`${relay.url}/relay_swap`, body, auth ? { "x-api-auth": auth } : {});
const quote = (body: Record<string, unknown>) => post(`${relay.url}/jupiter`, body);
const balance = async (owner: string, mint: string, network = "mainnet"): Promise<bigint> =>
  BigInt(((await get(`${relay.url}/sandbox/balance/${network}/${owner}/${mint}`)).json as { amount: string }).amount);
const swapPool = (mintA: string, mintB: string, reserveA: number, reserveB: number, network = "mainnet") =>
  post(`${relay.url}/sandbox/swap_pool`, { network, mintA, mintB, reserveA, reserveB });
const nullifierOf = async (w: PreparedWithdrawal): Promise<unknown> =>
  (await post(`${relay.url}/get_nullifier/${USDC}/32/mainnet`, { nullifierHash: w.body.nullifierHash })).json;
const ammKeyOf = async (inputMint: string, outputMint: string): Promise<string> => {
  const r = await quote({ inputMint, outputMint, amount: 100, slippageBps: 50, dexes: [] });
  return (r.json as { routePlan: { swapInfo: { ammKey: string } }[] }).routePlan[0]!.swapInfo.ammKey;
};

beforeAll(async () => {
  relay = await startRelay({ RELAY_RATE_LIMITS: "off" });
  relayer = /relayer: ([1-9A-HJ-NP-Za-km-z]{32,44})/.exec(relay.output())![1]!;
  depositor = newWallet();
  await airdrop(relay.url, depositor, 100_000_000, USDC);
  const t = Math.floor(Date.now() / 1000);
  token = ((await post(`${relay.url}/login`, { wallet: depositor.address, signature: depositor.sign(String(t)), message: t })).json as { id: string }).id;
  for (const [a, b, ra, rb] of [
    [USDC, WSOL, 1_000_000_000, 5_000_000_000],
    [USDC, USDT, 2_000_000_000, 2_000_000_000],
    [USDC, THIN, 500_000, 1_000_000],
  ] as const) {
    expect((await swapPool(a, b, ra, rb)).json).toEqual({ ok: true });
  }
  // Protocol v2: each proof is bound to its output mint and minOut (the quote's otherAmountThreshold by default).
  valid = await prepareWithdrawal(relay.url, depositor, USDC, { recipient: testRecipient("swap-main"), amount: 1_000_000, swap: { outputMint: WSOL } });
  spare = await prepareWithdrawal(relay.url, depositor, USDC, {
    recipient: testRecipient("swap-spare"),
    amount: 1_000_000,
    swap: { outputMint: THIN, minOut: 1_000_000 },
  });
  const q = (await quote({ inputMint: USDC, outputMint: WSOL, amount: 997_500, slippageBps: 50, dexes: [] })).json as { outAmount: string };
  greedy = await prepareWithdrawal(relay.url, depositor, USDC, {
    recipient: testRecipient("swap-greedy"),
    amount: 1_000_000,
    swap: { outputMint: WSOL, minOut: BigInt(q.outAmount) * 2n },
  });
});
afterAll(async () => {
  await relay?.stop();
  relay?.cleanup();
});

describe("POST /sandbox/swap_pool (constant-product pools, 0.3% fee)", () => {
  it("creates a pool whose reserves are the pool account's balances, and resets them when set again", async () => {
    const a = newWallet().address;
    expect(await swapPool(a, USDC, 7000, 9000)).toMatchObject({ status: 200, json: { ok: true } });
    const amm = await ammKeyOf(USDC, a);
    expect([await balance(amm, a), await balance(amm, USDC)]).toEqual([7000n, 9000n]);
    await swapPool(USDC, a, 100, 200);
    expect([await balance(amm, a), await balance(amm, USDC)]).toEqual([200n, 100n]);
    expect(await ammKeyOf(a, USDC)).toBe(amm);
  });

  it.each<[string, Record<string, unknown>, number, string, string]>([
    ["an unknown network", { network: "testnet" }, 400, "InvalidNetwork", ""],
    ["a bad mintA", { mintA: "nope" }, 400, "InvalidMint", "mintA"],
    ["a bad mintB", { mintB: 5 }, 400, "InvalidMint", "mintB"],
    ["the same mint twice", { mintB: USDC }, 400, "InvalidMint", "mintB"],
    ["a zero reserveA", { reserveA: 0 }, 400, "InvalidRequest", "reserveA"],
    ["a fractional reserveB", { reserveB: 1.5 }, 400, "InvalidRequest", "reserveB"],
    ["a reserve as text", { reserveB: "100" }, 400, "InvalidRequest", "reserveB"],
  ])("refuses %s", async (_name, over, status, error, field) => {
    const r = await post(`${relay.url}/sandbox/swap_pool`, {
      network: "mainnet",
      mintA: USDC,
      mintB: newWallet().address,
      reserveA: 10,
      reserveB: 10,
      ...over,
    });
    expect(r.status).toBe(status);
    expect(r.json).toMatchObject({ error });
    expect((r.json as { message: string }).message.startsWith(field)).toBe(true);
  });
});

describe("POST /jupiter (spec swap quote, sandbox venue)", () => {
  it("answers every field of the spec's response from the constant-product pool, exactly", async () => {
    const r = await quote({ inputMint: USDC, outputMint: WSOL, amount: 10_000_000, slippageBps: 30, dexes: [] });
    expect(r.status).toBe(200);
    const out = cpOut(10_000_000n, 1_000_000_000n, 5_000_000_000n);
    expect(r.json).toEqual({
      inputMint: USDC,
      outputMint: WSOL,
      inAmount: "10000000",
      outAmount: out.toString(),
      otherAmountThreshold: ((out * 9970n) / 10_000n).toString(),
      slippageBps: 30,
      priceImpactPct: (100 * 10_000_000) / (1_000_000_000 + 10_000_000),
      routePlan: [
        {
          swapInfo: {
            ammKey: await ammKeyOf(WSOL, USDC),
            label: "sandbox-cp",
            inputMint: USDC,
            outputMint: WSOL,
            inAmount: "10000000",
            outAmount: out.toString(),
            feeAmount: "30000",
            feeMint: USDC,
          },
          percent: 100,
        },
      ],
    });
  });

  it("quotes the reverse direction against the same pool, and changes no reserve", async () => {
    const amm = await ammKeyOf(USDC, WSOL);
    const r = await quote({ inputMint: WSOL, outputMint: USDC, amount: 1_000_000, slippageBps: 50, dexes: [] });
    expect((r.json as { outAmount: string }).outAmount).toBe(cpOut(1_000_000n, 5_000_000_000n, 1_000_000_000n).toString());
    expect([await balance(amm, USDC), await balance(amm, WSOL)]).toEqual([1_000_000_000n, 5_000_000_000n]);
  });

  it("applies the pair's slippage when slippageBps is left out: 10 bps for two stablecoins, 50 for a standard pair", async () => {
    const stable = (await quote({ inputMint: USDT, outputMint: USDC, amount: 1_000_000 })).json as {
      slippageBps: number;
      outAmount: string;
      otherAmountThreshold: string;
    };
    expect(stable.slippageBps).toBe(10);
    expect(BigInt(stable.otherAmountThreshold)).toBe((BigInt(stable.outAmount) * 9990n) / 10_000n);
    expect(((await quote({ inputMint: USDC, outputMint: WSOL, amount: 1_000_000 })).json as { slippageBps: number }).slippageBps).toBe(50);
  });

  it("treats an empty or absent dexes as all venues, routes through sandbox-cp when named, and finds no route through others", async () => {
    for (const dexes of [[], ["sandbox-cp"], ["Raydium", "sandbox-cp"], undefined]) {
      expect((await quote({ inputMint: USDC, outputMint: WSOL, amount: 1000, slippageBps: 50, ...(dexes ? { dexes } : {}) })).status).toBe(200);
    }
    const r = await quote({ inputMint: USDC, outputMint: WSOL, amount: 1000, slippageBps: 50, dexes: ["Raydium", "Orca V2"] });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: "InsufficientLiquidity" });
  });

  it("answers 400 InsufficientLiquidity for a pair without a pool and for an output above half the output reserve", async () => {
    for (const body of [
      { inputMint: USDC, outputMint: NOPOOL, amount: 1000, slippageBps: 50, dexes: [] },
      { inputMint: USDC, outputMint: THIN, amount: 997_500, slippageBps: 50, dexes: [] },
    ]) {
      const r = await quote(body);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ error: "InsufficientLiquidity" });
    }
    // Just under half the reserve is still quoted.
    expect((await quote({ inputMint: USDC, outputMint: THIN, amount: 250_000, slippageBps: 50, dexes: [] })).status).toBe(200);
  });

  it("quotes from the named network's own pools (devnet has its own ledger), mainnet by default", async () => {
    const body = { inputMint: USDC, outputMint: WSOL, amount: 1000, slippageBps: 50, dexes: [] };
    expect((await quote({ ...body, network: "devnet" })).json).toMatchObject({ error: "InsufficientLiquidity" });
    await swapPool(USDC, WSOL, 1_000_000, 1_000_000, "devnet");
    const dev = (await quote({ ...body, network: "devnet" })).json as { outAmount: string };
    expect(dev.outAmount).toBe(cpOut(1000n, 1_000_000n, 1_000_000n).toString());
    expect(((await quote(body)).json as { outAmount: string }).outAmount).toBe(cpOut(1000n, 1_000_000_000n, 5_000_000_000n).toString());
  });

  it.each<[string, unknown, string]>([
    ["a body that is not an object", [1, 2], "body"],
    ["no inputMint", { outputMint: WSOL, amount: 1, slippageBps: 50, dexes: [] }, "inputMint"],
    ["an inputMint that is not a key", { inputMint: "USDC", outputMint: WSOL, amount: 1, slippageBps: 50, dexes: [] }, "inputMint"],
    ["no outputMint", { inputMint: USDC, amount: 1, slippageBps: 50, dexes: [] }, "outputMint"],
    ["the same mint twice", { inputMint: USDC, outputMint: USDC, amount: 1, slippageBps: 50, dexes: [] }, "outputMint"],
    ["no amount", { inputMint: USDC, outputMint: WSOL, slippageBps: 50, dexes: [] }, "amount"],
    ["amount as text", { inputMint: USDC, outputMint: WSOL, amount: "1000", slippageBps: 50, dexes: [] }, "amount"],
    ["a negative amount", { inputMint: USDC, outputMint: WSOL, amount: -5, slippageBps: 50, dexes: [] }, "amount"],
    ["an amount above 2^53", { inputMint: USDC, outputMint: WSOL, amount: 2 ** 60, slippageBps: 50, dexes: [] }, "amount"],
    ["slippageBps above 10000", { inputMint: USDC, outputMint: WSOL, amount: 1, slippageBps: 20_000, dexes: [] }, "slippageBps"],
    ["a fractional slippageBps", { inputMint: USDC, outputMint: WSOL, amount: 1, slippageBps: 0.5, dexes: [] }, "slippageBps"],
    ["dexes as a string", { inputMint: USDC, outputMint: WSOL, amount: 1, slippageBps: 50, dexes: "Raydium" }, "dexes"],
    ["a dex that is not a string", { inputMint: USDC, outputMint: WSOL, amount: 1, slippageBps: 50, dexes: [1] }, "dexes[0]"],
    ["an unknown network", { inputMint: USDC, outputMint: WSOL, amount: 1, slippageBps: 50, dexes: [], network: "testnet" }, "network"],
  ])("answers 400 InvalidRequest naming the field for %s", async (_name, body, field) => {
    const r = await post(`${relay.url}/jupiter`, body);
    expect(r.status).toBe(400);
    expect((r.json as { error: string }).error).toBe("InvalidRequest");
    expect((r.json as { message: string }).message.startsWith(`${field}:`)).toBe(true);
  });

  it("answers malformed JSON with 400 InvalidRequest", async () => {
    const r = await post(`${relay.url}/jupiter`, "{nope");
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: "InvalidRequest" });
  });
});

describe("POST /relay_swap: refusals change nothing", () => {
  const snapshot = async () => {
    const amm = await ammKeyOf(USDC, THIN);
    return {
      vault: await balance(USDC_VAULT, USDC),
      recipientUsdc: await balance(spare.body.recipient, USDC),
      recipientThin: await balance(spare.body.recipient, THIN),
      recipientNoPool: await balance(spare.body.recipient, NOPOOL),
      relayerUsdc: await balance(relayer, USDC),
      thinReserves: [await balance(amm, USDC), await balance(amm, THIN)],
      nullifier: await nullifierOf(spare),
    };
  };

  it("answers 400 InsufficientLiquidity for a pair without a pool and for an output above half the reserve, leaving balances, reserves and the nullifier as they were", async () => {
    const before = await snapshot();
    expect(before.nullifier).toEqual({ address: null, json: null });
    for (const output of [NOPOOL, THIN]) {
      const r = await relaySwap(swapBody(spare, { output_mint: output }));
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ status: 400, error: "InsufficientLiquidity" });
    }
    expect(await snapshot()).toEqual(before);
  });

  it.each<[string, string, (b: RelayBody) => void]>([
    ["a tampered proof", "InvalidProof", (b) => (b.proof[5] = b.proof[5]! ^ 1)],
    ["a root the pool never had", "InvalidRoot", (b) => (b.root = new Array(32).fill(1))],
  ])("refuses %s with the /relay error %s", async (_name, error, f) => {
    const b = structuredClone(valid);
    f(b.body);
    const { mint: _mint, ...rest } = b.body;
    const r = await relaySwap({ ...swapBody(valid), ...rest });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status: 400, error });
    expect(await nullifierOf(valid)).toEqual({ address: null, json: null });
  });

  it.each<[string, (minOut: bigint) => Record<string, unknown>]>([
    ["another output mint (a pool exists)", () => ({ output_mint: USDT })],
    ["a lower minOut", (m) => ({ minOut: (m - 1n).toString() })],
    ["a higher minOut", (m) => ({ minOut: (m + 1n).toString() })],
    ["another fee", () => ({ fee: 2_501 })],
    // Protocol v3: the change leaf is bound as the seventh public input.
    ["another changeCommitment", () => ({ changeCommitment: [...new Array(31).fill(0), 7] })],
  ])("refuses the swap proof with %s under it: 400 InvalidProof naming protocol v3, nothing spent (the proof binds the terms)", async (_name, over) => {
    const body = swapBody(valid, over(BigInt(valid.swapBody!.minOut)));
    const before = await balance(valid.body.recipient, WSOL);
    const r = await relaySwap(body);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status: 400, error: "InvalidProof", message: expect.stringContaining("does not verify under protocol v3") });
    expect(await balance(valid.body.recipient, WSOL)).toBe(before);
    expect(await nullifierOf(valid)).toEqual({ address: null, json: null });
  });

  it("answers 400 SlippageExceeded before sending anything when the venue cannot deliver the proof's minOut, and the note stays withdrawable", async () => {
    const amm = await ammKeyOf(USDC, WSOL);
    const before = {
      reserves: [await balance(amm, USDC), await balance(amm, WSOL)],
      vault: await balance(USDC_VAULT, USDC),
      recipient: await balance(greedy.body.recipient, WSOL),
    };
    const r = await relaySwap(swapBody(greedy));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status: 400, error: "SlippageExceeded", message: expect.stringMatching(/below minOut/) });
    expect({
      reserves: [await balance(amm, USDC), await balance(amm, WSOL)],
      vault: await balance(USDC_VAULT, USDC),
      recipient: await balance(greedy.body.recipient, WSOL),
    }).toEqual(before);
    expect(await nullifierOf(greedy)).toEqual({ address: null, json: null });
  });

  it("answers 401 Unauthorized without a token", async () => {
    const r = await relaySwap(swapBody(spare), null);
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ status: 401, error: "Unauthorized" });
  });

  it.each<[string, (b: Record<string, unknown>) => void, string]>([
    ["no output_mint", (b) => delete b.output_mint, "output_mint"],
    ["an output_mint that is not a key", (b) => (b.output_mint = "SOL"), "output_mint"],
    ["output_mint equal to input_mint", (b) => (b.output_mint = USDC), "output_mint"],
    ["mint instead of input_mint", (b) => ((b.mint = b.input_mint), delete b.input_mint), "input_mint"],
    ["a bad input_mint", (b) => (b.input_mint = "x"), "input_mint"],
    ["depth 31", (b) => (b.depth = 31), "depth"],
    ["no minOut", (b) => delete b.minOut, "minOut"],
    ["minOut zero", (b) => (b.minOut = 0), "minOut"],
    ["a negative minOut", (b) => (b.minOut = "-5"), "minOut"],
    ["a malformed minOut", (b) => (b.minOut = "1e6"), "minOut"],
    ["a fee above depositSize", (b) => (b.fee = 1_000_001), "fee"],
    ["a relayer that is not this relay's", (b) => (b.relayer = USDT), "relayer"],
    ["a depositSize of 0", (b) => (b.depositSize = 0), "depositSize"],
    ["no changeCommitment (a v2 client)", (b) => delete b.changeCommitment, "changeCommitment"],
    ["a zero changeCommitment", (b) => (b.changeCommitment = new Array(32).fill(0)), "changeCommitment"],
    ["a 31-byte changeCommitment", (b) => (b.changeCommitment = (b.changeCommitment as number[]).slice(1)), "changeCommitment"],
    ["a changeCommitment not below the field modulus", (b) => (b.changeCommitment = new Array(32).fill(0xff)), "changeCommitment"],
    ["a changeCommitment as a number", (b) => (b.changeCommitment = 5), "changeCommitment"],
  ])("answers 400 InvalidRequest naming the field for %s", async (_name, f, field) => {
    const b = swapBody(spare);
    f(b);
    const r = await relaySwap(b);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status: 400, error: "InvalidRequest" });
    expect((r.json as { message: string }).message.startsWith(`${field}:`)).toBe(true);
  });

  it("lets the refused withdrawal through once the pool has liquidity: the user can retry", async () => {
    await swapPool(USDC, THIN, 1_000_000_000, 2_000_000_000);
    const r = await relaySwap(swapBody(spare));
    expect(r.status).toBe(200);
    const received = await balance(spare.body.recipient, THIN);
    expect(received).toBe(cpOut(997_500n, 1_000_000_000n, 2_000_000_000n));
    expect(received).toBeGreaterThanOrEqual(1_000_000n);
  });
});

describe("POST /relay_swap: a valid withdrawal with a swap", () => {
  it("credits the recipient the quoted output (within slippage), pays the fee in the input mint, moves the vault into the pool, spends the nullifier", async () => {
    const fee = (1_000_000n * 25n) / 10_000n;
    const amm = await ammKeyOf(USDC, WSOL);
    const q = (await quote({ inputMint: USDC, outputMint: WSOL, amount: Number(1_000_000n - fee), slippageBps: 50, dexes: [] })).json as {
      outAmount: string;
      otherAmountThreshold: string;
    };
    const before = {
      recipientWsol: await balance(valid.body.recipient, WSOL),
      recipientUsdc: await balance(valid.body.recipient, USDC),
      relayerUsdc: await balance(relayer, USDC),
      vault: await balance(USDC_VAULT, USDC),
      reserves: [await balance(amm, USDC), await balance(amm, WSOL)],
    };

    expect(BigInt(valid.swapBody!.minOut)).toBe(BigInt(q.otherAmountThreshold));
    const r = await relaySwap(swapBody(valid));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ status: 200, signature: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/), changeLeafIndex: expect.any(Number) });
    // The swap's withdrawal inserted its change leaf too, and the relay's tree has it.
    const { changeLeafIndex } = r.json as { changeLeafIndex: number };
    const node = await post(`${relay.url}/get_node/${USDC}/32/${2 ** 32 + changeLeafIndex}/mainnet`);
    expect((node.json as { json: { value: number[] } }).json.value).toEqual(valid.swapBody!.changeCommitment);

    const received = (await balance(valid.body.recipient, WSOL)) - before.recipientWsol;
    expect(received).toBeGreaterThanOrEqual(BigInt(q.otherAmountThreshold));
    expect(received).toBe(BigInt(q.outAmount)); // nothing traded in between: exactly the quote
    expect(await balance(valid.body.recipient, USDC)).toBe(before.recipientUsdc);
    expect((await balance(relayer, USDC)) - before.relayerUsdc).toBe(fee);
    expect(before.vault - (await balance(USDC_VAULT, USDC))).toBe(1_000_000n);
    expect([await balance(amm, USDC), await balance(amm, WSOL)]).toEqual([before.reserves[0]! + 1_000_000n - fee, before.reserves[1]! - received]);
    expect((await nullifierOf(valid)) as { json: unknown }).toMatchObject({ json: { spent: true } });

    const again = await relaySwap(swapBody(valid));
    expect(again.status).toBe(400);
    expect(again.json).toMatchObject({ status: 400, error: "NullifierAlreadySpent" });
  });
});

describe("POST /relay_swap: protocol v3 swaps a part of a note, the rest withdrawn later from its change note", () => {
  it("swaps 700,000 of a 2,000,000 note into USDT (at least minOut, the fee on the part), then pays the rest in USDC through /relay", async () => {
    const recipient = testRecipient("swap-v3-partial");
    const fees = (await get(`${relay.url}/fees`)).json as { default: { bps: number } };
    const feeOf = (x: bigint): bigint => (x * BigInt(fees.default.bps)) / 10_000n;
    const amm = await ammKeyOf(USDC, USDT);
    const reserves = [await balance(amm, USDC), await balance(amm, USDT)] as const;
    const part = await prepareWithdrawal(relay.url, depositor, USDC, { recipient, amount: 2_000_000, withdraw: 700_000, swap: { outputMint: USDT } });
    const expectedOut = cpOut(700_000n - feeOf(700_000n), reserves[0], reserves[1]);
    const vault = await balance(USDC_VAULT, USDC);

    const r = await relaySwap(part.swapBody);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const { changeLeafIndex } = r.json as { changeLeafIndex: number };
    const got = await balance(recipient, USDT);
    expect(got).toBe(expectedOut);
    expect(got >= BigInt(part.swapBody!.minOut)).toBe(true);
    expect(vault - (await balance(USDC_VAULT, USDC))).toBe(700_000n);
    expect(part.change.amount).toBe(1_300_000n);

    const rest = await prepareWithdrawal(relay.url, depositor, USDC, { recipient, spend: changeNoteAt(part, changeLeafIndex) });
    expect(rest.body.depositSize).toBe(1_300_000);
    const plain = await post(`${relay.url}/relay`, rest.body, { "x-api-auth": token });
    expect(plain.status, JSON.stringify(plain.json)).toBe(200);
    expect(await balance(recipient, USDC)).toBe(1_300_000n - feeOf(1_300_000n));
    expect(vault - (await balance(USDC_VAULT, USDC))).toBe(2_000_000n);
    expect(await balance(recipient, USDT)).toBe(got);
  }, 120_000);
});

describe("rate limits of /jupiter and /relay_swap", () => {
  it("answer 429: /jupiter as { error }, /relay_swap in the relay result shape", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "swap-limits-"));
    const cfg = path.join(dir, "config.json");
    writeFileSync(cfg, JSON.stringify({ rateLimits: { perEndpoint: { jupiter: 2, relay_swap: 1 } } }));
    const limited = await startRelay({ RELAY_CONFIG: cfg });
    try {
      const body = { inputMint: USDC, outputMint: WSOL, amount: 1, slippageBps: 50, dexes: [] };
      for (let i = 0; i < 2; i++) expect((await post(`${limited.url}/jupiter`, body)).status).toBe(400);
      const q = await post(`${limited.url}/jupiter`, body);
      expect(q.status).toBe(429);
      expect(q.json).toEqual({ error: "RateLimited" });
      expect((await post(`${limited.url}/relay_swap`, {})).status).toBe(400);
      const r = await post(`${limited.url}/relay_swap`, {});
      expect(r.status).toBe(429);
      expect(r.json).toEqual({ status: 429, error: "RateLimited" });
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await limited.stop();
      limited.cleanup();
    }
  });
});
