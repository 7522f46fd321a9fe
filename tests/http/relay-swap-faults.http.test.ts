import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JupiterSwapApi } from "../../src-server/adapters/swap-jupiter/jupiter-api";
import { loadConfig } from "../../src-server/config/load";
import { startServer, type RunningServer } from "../../src-server/index";
import type { SwapVenue } from "../../src-server/ports/swap-venue";
import type { Network } from "../../src-shared/networks";
import { prepareWithdrawal, testRecipient, type PreparedWithdrawal } from "../support/proofs";
import { airdrop, USDC, WSOL } from "../support/sandbox";
import { get, newWallet, post } from "../support/wallet";

/**
 * relay_swap faults that need a hand inside the process: the pool moves
 * between the quote (taken when the request arrives) and the execution, or
 * the venue fails. The venue is wrapped in place, as relay-faults wraps the chain.
 */
let server: RunningServer;
let dir: string;
let token: string;
let drained: PreparedWithdrawal;
let moved: PreparedWithdrawal;
let broken: PreparedWithdrawal;

const cpOut = (a: bigint, rIn: bigint, rOut: bigint): bigint => (a * 997n * rOut) / (rIn * 1000n + a * 997n);
const RESERVES = { usdc: 1_000_000_000, wsol: 5_000_000_000 };
const TO_SWAP = 1_000_000n - (1_000_000n * 25n) / 10_000n; // depositSize − the default 25 bps fee

const setPool = (usdc: number, wsol: number) =>
  post(`${server.url}/sandbox/swap_pool`, { network: "mainnet", mintA: USDC, mintB: WSOL, reserveA: usdc, reserveB: wsol });
const relaySwap = (w: PreparedWithdrawal) => post(`${server.url}/relay_swap`, w.swapBody!, { "x-api-auth": token });
/** What a wallet proves for: the quote less the pair's 50 bps (otherAmountThreshold). */
const threshold = (quoted: bigint): bigint => (quoted * 9950n) / 10_000n;
/** The pool as the second test finds it: after the first test's swap landed. */
const AFTER_FIRST = {
  usdc: RESERVES.usdc + Number(TO_SWAP),
  wsol: RESERVES.wsol - Number(cpOut(TO_SWAP, BigInt(RESERVES.usdc), BigInt(RESERVES.wsol))),
};
const balance = async (owner: string, mint: string): Promise<bigint> =>
  BigInt(((await get(`${server.url}/sandbox/balance/mainnet/${owner}/${mint}`)).json as { amount: string }).amount);
const spent = async (w: PreparedWithdrawal): Promise<boolean> =>
  ((await post(`${server.url}/get_nullifier/${USDC}/32/mainnet`, { nullifierHash: w.body.nullifierHash })).json as { address: string | null }).address !== null;
const venue = (): SwapVenue => server.relay.swapVenues.get("mainnet")!;
const lastRecord = async () => (await server.relay.relayStore.recent(1))[0]!;
const OPERATOR = "relay-swap-faults-operator-token-01";

/** Runs `between` after the relay's quote is taken and before it is used. */
async function withHook<T>(between: () => Promise<void>, run: () => Promise<T>): Promise<T> {
  const v = venue();
  const real = v.quote.bind(v);
  v.quote = async (req) => {
    const q = await real(req);
    await between();
    return q;
  };
  try {
    return await run();
  } finally {
    v.quote = real;
  }
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "relay-swap-faults-"));
  server = await startServer(loadConfig({ RELAY_PORT: "0", RELAY_DATA_DIR: dir, RELAY_RATE_LIMITS: "off", RELAY_OPERATOR_TOKEN: OPERATOR }), { log: () => {} });
  const w = newWallet();
  await airdrop(server.url, w, 10_000_000, USDC);
  const t = Math.floor(Date.now() / 1000);
  token = ((await post(`${server.url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t })).json as { id: string }).id;
  // Protocol v2: each proof binds its minOut, the threshold of the quote the wallet saw.
  const swapTo = (reserves: { usdc: number; wsol: number }) => ({
    outputMint: WSOL,
    minOut: threshold(cpOut(TO_SWAP, BigInt(reserves.usdc), BigInt(reserves.wsol))),
  });
  drained = await prepareWithdrawal(server.url, w, USDC, { recipient: testRecipient("swap-drained"), amount: 1_000_000, swap: swapTo(RESERVES) });
  moved = await prepareWithdrawal(server.url, w, USDC, { recipient: testRecipient("swap-moved"), amount: 1_000_000, swap: swapTo(AFTER_FIRST) });
  broken = await prepareWithdrawal(server.url, w, USDC, { recipient: testRecipient("swap-broken"), amount: 1_000_000, swap: { outputMint: WSOL, minOut: 1 } });
  await setPool(RESERVES.usdc, RESERVES.wsol);
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("relay_swap: the pool moves between quote and execution", () => {
  it("answers 400 SlippageExceeded when the pool is drained after the quote, leaves the nullifier unspent, and records quote, execution and slippage", async () => {
    const quoted = cpOut(TO_SWAP, BigInt(RESERVES.usdc), BigInt(RESERVES.wsol));
    const drainedWsol = RESERVES.wsol / 2;
    const r = await withHook(
      async () => void (await setPool(RESERVES.usdc, drainedWsol)),
      () => relaySwap(drained),
    );
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status: 400, error: "SlippageExceeded" });
    expect(await spent(drained)).toBe(false);
    expect(await balance(drained.body.recipient, WSOL)).toBe(0n);
    expect(await balance(drained.body.recipient, USDC)).toBe(0n);

    const wouldBe = cpOut(TO_SWAP, BigInt(RESERVES.usdc), BigInt(drainedWsol));
    const rec = await lastRecord();
    expect(rec).toMatchObject({ kind: "swap", mint: USDC, outputMint: WSOL, status: "failed", error: "SlippageExceeded" });
    expect(rec.swap).toEqual({
      venue: "sandbox",
      quotedAt: expect.any(Number),
      inAmount: TO_SWAP,
      quotedOut: quoted,
      priceImpactPct: (100 * Number(TO_SWAP)) / (RESERVES.usdc + Number(TO_SWAP)),
      slippageBps: 50,
      minOut: threshold(quoted),
      executedOut: wouldBe,
      slippageSeenBps: Number(((quoted - wouldBe) * 1_000_000n) / quoted) / 100,
    });
    expect(rec.swap!.slippageSeenBps!).toBeGreaterThan(50);
    expect(rec.steps.map((s) => s.kind)).toEqual(["received", "verified", "submitted", "failed"]);

    // The user retries once the pool is back: the same request now lands.
    await setPool(RESERVES.usdc, RESERVES.wsol);
    const retry = await relaySwap(drained);
    expect(retry.status).toBe(200);
    expect(await balance(drained.body.recipient, WSOL)).toBe(quoted);
    expect(await lastRecord()).toMatchObject({ status: "confirmed", signature: (retry.json as { signature: string }).signature });
    expect((await lastRecord()).swap).toMatchObject({ quotedOut: quoted, executedOut: quoted, slippageSeenBps: 0 });
  });

  it("lands when the pool moved less than the pair's slippage, delivering less than quoted but at least the minimum", async () => {
    const before = AFTER_FIRST;
    await setPool(before.usdc, before.wsol);
    const quoted = cpOut(TO_SWAP, BigInt(before.usdc), BigInt(before.wsol));
    // Someone else's trade takes 0.2 % of the output reserve after the quote: within the 50 bps allowed.
    const r = await withHook(
      async () => void (await setPool(before.usdc, Math.floor(before.wsol * 0.998))),
      () => relaySwap(moved),
    );
    expect(r.status).toBe(200);
    const got = await balance(moved.body.recipient, WSOL);
    expect(got).toBe(cpOut(TO_SWAP, BigInt(before.usdc), BigInt(Math.floor(before.wsol * 0.998))));
    expect(got).toBeLessThan(quoted);
    expect(got).toBeGreaterThanOrEqual(threshold(quoted));
    expect(threshold(quoted)).toBe(BigInt(moved.swapBody!.minOut));
    const rec = (await lastRecord()).swap!;
    expect(rec.executedOut).toBe(got);
    expect(rec.slippageSeenBps).toBeGreaterThan(0);
    expect(rec.slippageSeenBps).toBeLessThanOrEqual(50);
  });
});

describe("relay_swap: the venue fails", () => {
  it("answers 400 SwapFailed when the venue gives no usable quote, before any proof work, spends nothing and stores nothing (a rejected relay)", async () => {
    const before = (await lastRecord()).id;
    const v = venue();
    const real = v.quote.bind(v);
    v.quote = async () => ({ ok: false, error: { kind: "Unavailable", detail: "venue down" } });
    try {
      const r = await relaySwap(broken);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ status: 400, error: "SwapFailed" });
    } finally {
      v.quote = real;
    }
    expect(await spent(broken)).toBe(false);
    expect((await lastRecord()).id).toBe(before);
    const rejected = (await get(`${server.url}/admin/relays/rejected?limit=1`, { authorization: `Bearer ${OPERATOR}` })).json as {
      items: { kind: string; error: string; detail: string }[];
    };
    expect(rejected.items).toEqual([expect.objectContaining({ kind: "swap", error: "SwapFailed", detail: "venue down" })]);
  });
});

describe("POST /jupiter on a network whose venue is Jupiter (a Jupiter-shaped server on 127.0.0.1)", () => {
  let jup: Server;
  let answer: (res: ServerResponse) => void;
  const json = (res: ServerResponse, status: number, body: unknown): void =>
    void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  const ask = { inputMint: WSOL, outputMint: USDC, amount: 100_000_000, slippageBps: 100, dexes: ["Meteora DLMM"], network: "devnet" };

  beforeAll(async () => {
    jup = createServer((_req, res) => answer(res));
    await new Promise<void>((resolve) => jup.listen(0, "127.0.0.1", resolve));
    const venues = server.relay.swapVenues as Map<Network, SwapVenue>;
    venues.set(
      "devnet",
      new JupiterSwapApi({
        baseUrl: `http://127.0.0.1:${(jup.address() as AddressInfo).port}/swap/v1`,
        apiKey: "k",
        timeoutMs: 300,
        restrictIntermediateTokens: true,
      }),
    );
  });
  afterAll(async () => {
    jup.closeAllConnections();
    await new Promise((resolve) => jup.close(resolve));
  });

  it("answers the spec's fields: amounts as text, priceImpactPct in percent (Jupiter's fraction × 100), routePlan as Jupiter routed", async () => {
    answer = (res) =>
      json(res, 200, {
        inputMint: WSOL,
        inAmount: "100000000",
        outputMint: USDC,
        outAmount: "17057460",
        otherAmountThreshold: "16886885",
        swapMode: "ExactIn",
        slippageBps: 100,
        priceImpactPct: "0.0001",
        routePlan: [
          {
            swapInfo: {
              ammKey: "HXpGFJGCEEFdV31tDmjDBaJMEB1fKLiAoKoWr3Fnonid",
              label: "Meteora DLMM",
              inputMint: WSOL,
              outputMint: USDC,
              inAmount: "100000000",
              outAmount: "17057460",
            },
            percent: null,
            bps: 10000,
          },
        ],
      });
    const r = await post(`${server.url}/jupiter`, ask);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      inputMint: WSOL,
      outputMint: USDC,
      inAmount: "100000000",
      outAmount: "17057460",
      otherAmountThreshold: "16886885",
      slippageBps: 100,
      priceImpactPct: 0.01,
      routePlan: [
        {
          swapInfo: {
            ammKey: "HXpGFJGCEEFdV31tDmjDBaJMEB1fKLiAoKoWr3Fnonid",
            label: "Meteora DLMM",
            inputMint: WSOL,
            outputMint: USDC,
            inAmount: "100000000",
            outAmount: "17057460",
          },
          percent: 100,
        },
      ],
    });
  });

  it.each<[string, number, string, (res: ServerResponse) => void]>([
    ["NO_ROUTES_FOUND", 400, "InsufficientLiquidity", (res) => json(res, 400, { error: "No routes found", errorCode: "NO_ROUTES_FOUND" })],
    ["TOKEN_NOT_TRADABLE", 400, "InsufficientLiquidity", (res) => json(res, 400, { error: "not tradable", errorCode: "TOKEN_NOT_TRADABLE" })],
    ["an unknown 400 code", 400, "InvalidRequest", (res) => json(res, 400, { error: "bad", errorCode: "NEW_CODE" })],
    ["a 500", 502, "SwapFailed", (res) => json(res, 500, { error: "boom" })],
    ["a 429", 502, "SwapFailed", (res) => json(res, 429, { message: "slow down" })],
    ["no answer (time-out)", 502, "SwapFailed", () => {}],
  ])("maps Jupiter's %s to %s %s", async (_name, status, error, a) => {
    answer = a;
    const r = await post(`${server.url}/jupiter`, ask);
    expect(r.status).toBe(status);
    expect(r.json).toMatchObject({ error });
  });
});
