import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fractionToPercent } from "./decode";
import { meteoraQuote, meteoraRouteJson } from "../../../tests/support/swap-quotes";
import { JupiterSwapApi, routeMaxAccounts } from "./jupiter-api";

const SOL = "So11111111111111111111111111111111111111112";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const KEY = "test-api-key-0123456789";

/** Jupiter's documented quote example (developers.jup.ag, GET /swap/v1/quote). */
const QUOTE = {
  inputMint: SOL,
  inAmount: "100000000",
  outputMint: USDC,
  outAmount: "17057460",
  otherAmountThreshold: "16886885",
  swapMode: "ExactIn",
  slippageBps: 100,
  priceImpactPct: "0.0001",
  platformFee: { amount: "0", feeBps: 0 },
  routePlan: [meteoraRouteJson("HXpGFJGCEEFdV31tDmjDBaJMEB1fKLiAoKoWr3Fnonid")],
  contextSlot: 324307186,
  timeTaken: 0.012,
};

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
}
type Handler = (req: Seen, res: ServerResponse) => void;

let server: Server;
let base: string;
let handler: Handler;
const seen: Seen[] = [];
const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { "content-type": "application/json" }).end(typeof body === "string" ? body : JSON.stringify(body));
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      const u = new URL(req.url ?? "/", "http://x");
      const s: Seen = { method: req.method ?? "", path: u.pathname, query: u.searchParams, headers: req.headers, body };
      seen.push(s);
      handler(s, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/swap/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen.length = 0;
  handler = (_req, res) => json(res, 200, QUOTE);
});

const api = (over: Partial<ConstructorParameters<typeof JupiterSwapApi>[0]> = {}): JupiterSwapApi =>
  new JupiterSwapApi({ baseUrl: `${base}/`, apiKey: KEY, timeoutMs: 2000, restrictIntermediateTokens: true, ...over });
const ask = { inputMint: SOL, outputMint: USDC, amount: 100_000_000n, slippageBps: 100, dexes: [] as string[] };

describe("JupiterSwapApi.quote against a Jupiter-shaped server on 127.0.0.1", () => {
  it("asks GET {base}/quote with the spec's parameters and the API key header", async () => {
    await api().quote({ ...ask, dexes: ["Raydium", "Orca V2", "Meteora DLMM"] });
    const s = seen[0]!;
    expect(s.method).toBe("GET");
    expect(s.path).toBe("/swap/v1/quote");
    expect(Object.fromEntries(s.query)).toEqual({
      inputMint: SOL,
      outputMint: USDC,
      amount: "100000000",
      slippageBps: "100",
      swapMode: "ExactIn",
      restrictIntermediateTokens: "true",
      // Routes that fit a withdraw_swap transaction with its escrow (1,232 bytes).
      maxAccounts: "12",
      dexes: "Raydium,Orca V2,Meteora DLMM",
    });
    expect(s.headers["x-api-key"]).toBe(KEY);
  });

  it("asks for routes of up to 32 accounts on a network with the relay's lookup table (routeMaxAccounts), 12 without", async () => {
    await api({ maxAccounts: routeMaxAccounts(true) }).quote(ask);
    await api({ maxAccounts: routeMaxAccounts(false) }).quote(ask);
    expect(seen.map((s) => s.query.get("maxAccounts"))).toEqual(["32", "12"]);
  });

  it("leaves dexes out when empty (all venues), and the key header out when no key is configured", async () => {
    await api({ apiKey: null, restrictIntermediateTokens: false }).quote(ask);
    const s = seen[0]!;
    expect(s.query.has("dexes")).toBe(false);
    expect(s.query.get("restrictIntermediateTokens")).toBe("false");
    expect(s.headers["x-api-key"]).toBeUndefined();
  });

  it("maps the answer: string amounts to bigint, priceImpactPct from a fraction to percent, the raw quote kept", async () => {
    const r = await api().quote(ask);
    expect(r).toEqual({ ok: true, value: meteoraQuote(QUOTE.routePlan[0]!.swapInfo.ammKey, QUOTE) });
  });

  it("accepts percent null (taking bps when present) and absent feeAmount / feeMint", async () => {
    const step = (over: Record<string, unknown>, info: Record<string, unknown> = {}) => ({
      ...QUOTE.routePlan[0],
      swapInfo: { ...QUOTE.routePlan[0]!.swapInfo, ...info },
      ...over,
    });
    handler = (_req, res) =>
      json(res, 200, {
        ...QUOTE,
        routePlan: [step({ percent: null }, { feeAmount: undefined, feeMint: undefined }), step({ percent: null, bps: 2500 }), step({ percent: undefined })],
      });
    const r = await api().quote(ask);
    if (!r.ok) throw new Error(r.error.detail);
    expect(r.value.routePlan.map((s) => s.percent)).toEqual([null, 25, null]);
    expect(r.value.routePlan[0]!.swapInfo).toMatchObject({ feeAmount: null, feeMint: null });
    expect(r.value.routePlan[1]!.swapInfo).toMatchObject({ feeAmount: 1285n, feeMint: USDC });
  });

  it.each([
    ["NO_ROUTES_FOUND", "No routes found", "InsufficientLiquidity"],
    ["COULD_NOT_FIND_ANY_ROUTE", "Could not find any route", "InsufficientLiquidity"],
    ["ROUTE_PLAN_DOES_NOT_CONSUME_ALL_THE_AMOUNT", "Route plan does not consume all the amount", "InsufficientLiquidity"],
    ["TOKEN_NOT_TRADABLE", `The token ${USDC} is not tradable`, "InsufficientLiquidity"],
    ["CIRCULAR_ARBITRAGE_IS_DISABLED", "Circular arbitrage is disabled", "InvalidRequest"],
    ["SOMETHING_NEW", "A code this relay does not know", "InvalidRequest"],
  ])("maps a 400 { errorCode: %s } body", async (code, message, kind) => {
    handler = (_req, res) => json(res, 400, { error: message, errorCode: code });
    const r = await api().quote(ask);
    expect(r).toEqual({ ok: false, error: { kind, code, detail: `Jupiter answered 400 ${code}: ${message}` } });
  });

  it.each([
    [401, { message: "Invalid API key" }],
    [429, { message: "Too many requests" }],
    [500, "Internal Server Error"],
    [502, "<html>bad gateway</html>"],
  ])("answers Unavailable on HTTP %s", async (status, body) => {
    handler = (_req, res) => json(res, status, body);
    const r = await api().quote(ask);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.kind).toBe("Unavailable");
    expect(!r.ok && r.error.detail).toMatch(new RegExp(`^Jupiter answered ${status}`));
  });

  it.each<[string, unknown]>([
    ["a body that is not JSON", "{not json"],
    ["an amount as a number", { ...QUOTE, outAmount: 17057460 }],
    ["a negative amount", { ...QUOTE, outAmount: "-1" }],
    ["a priceImpactPct that is not a decimal", { ...QUOTE, priceImpactPct: "high" }],
    ["a routePlan that is not an array", { ...QUOTE, routePlan: {} }],
    ["a route step without swapInfo", { ...QUOTE, routePlan: [{ percent: 100 }] }],
    ["a quote for another amount", { ...QUOTE, inAmount: "1" }],
    ["a quote for other mints", { ...QUOTE, outputMint: SOL }],
    ["an ExactOut quote", { ...QUOTE, swapMode: "ExactOut" }],
  ])("answers Unavailable on %s", async (_name, body) => {
    handler = (_req, res) => json(res, 200, body);
    const r = await api().quote(ask);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.kind).toBe("Unavailable");
  });

  it("gives up after the time-out when the venue does not answer", async () => {
    handler = () => {}; // never answers
    const t0 = Date.now();
    const r = await api({ timeoutMs: 300 }).quote(ask);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(r).toEqual({ ok: false, error: { kind: "Unavailable", detail: expect.stringMatching(/no answer within 300 ms/) } });
  });

  it("answers Unavailable when nothing listens", async () => {
    const r = await api({ baseUrl: "http://127.0.0.1:9/swap/v1" }).quote(ask);
    expect(!r.ok && r.error.kind).toBe("Unavailable");
  });

  it("never shows the API key when the venue is logged or serialized", () => {
    const v = api();
    expect(JSON.stringify(v)).not.toContain(KEY);
    expect(inspect(v, { depth: 5 })).not.toContain(KEY);
  });
});

describe("JupiterSwapApi.swapInstructions", () => {
  const ix = (programId: string, data: number[]) => ({
    programId,
    accounts: [{ pubkey: "BQ72nSv9f3PRyRKCBnHLVrerrv37CYTHm5h3s9VSGQDV", isSigner: true, isWritable: true }],
    data: Buffer.from(data).toString("base64"),
  });

  it("posts the quote back verbatim with the user's key and decodes the instructions", async () => {
    const quote = await api().quote(ask);
    if (!quote.ok) throw new Error(quote.error.detail);
    handler = (_req, res) =>
      json(res, 200, {
        computeBudgetInstructions: [ix("ComputeBudget111111111111111111111111111111", [2, 192, 92, 0])],
        setupInstructions: [ix("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL", [])],
        swapInstruction: ix("JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4", [1, 2, 3]),
        cleanupInstruction: null,
        otherInstructions: [],
        addressLookupTableAddresses: ["GxS6FiQ3mNnAar9HGQ6mxP7t6FcwmHkU7peSeQDUHmpN"],
      });
    const r = await api().swapInstructions(quote.value, {
      userPublicKey: "BQ72nSv9f3PRyRKCBnHLVrerrv37CYTHm5h3s9VSGQDV",
      destinationTokenAccount: "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU",
    });
    const s = seen[1]!;
    expect(s.method).toBe("POST");
    expect(s.path).toBe("/swap/v1/swap-instructions");
    expect(s.headers["x-api-key"]).toBe(KEY);
    expect(JSON.parse(s.body)).toEqual({
      userPublicKey: "BQ72nSv9f3PRyRKCBnHLVrerrv37CYTHm5h3s9VSGQDV",
      destinationTokenAccount: "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU",
      quoteResponse: QUOTE,
    });
    if (!r.ok) throw new Error(r.error.detail);
    expect(r.value.swapInstruction.programId).toBe("JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4");
    expect(Array.from(r.value.swapInstruction.data)).toEqual([1, 2, 3]);
    expect(Array.from(r.value.computeBudgetInstructions[0]!.data)).toEqual([2, 192, 92, 0]);
    expect(r.value.cleanupInstruction).toBeNull();
    expect(r.value.tokenLedgerInstruction).toBeNull();
    expect(r.value.addressLookupTableAddresses).toEqual(["GxS6FiQ3mNnAar9HGQ6mxP7t6FcwmHkU7peSeQDUHmpN"]);
  });

  it("maps an error body and refuses a quote that did not come from Jupiter", async () => {
    const quote = await api().quote(ask);
    if (!quote.ok) throw new Error(quote.error.detail);
    handler = (_req, res) => json(res, 500, { error: "Failed to get swap instructions" });
    const r = await api().swapInstructions(quote.value, { userPublicKey: SOL });
    expect(!r.ok && r.error.kind).toBe("Unavailable");
    const notJupiter = await api().swapInstructions({ ...quote.value, venue: "sandbox", raw: undefined }, { userPublicKey: SOL });
    expect(!notJupiter.ok && notJupiter.error.kind).toBe("InvalidRequest");
  });

  it("answers Unavailable on a malformed instruction", async () => {
    const quote = await api().quote(ask);
    if (!quote.ok) throw new Error(quote.error.detail);
    handler = (_req, res) => json(res, 200, { swapInstruction: { programId: "x", accounts: [{}], data: "AA==" } });
    const r = await api().swapInstructions(quote.value, { userPublicKey: SOL });
    expect(!r.ok && r.error.detail).toMatch(/accounts\[0\]/);
  });
});

describe("fractionToPercent", () => {
  it.each<[unknown, number | null]>([
    ["0.0001", 0.01],
    ["0", 0],
    ["0.0221788557383956966426401317", 2.2178855738395695],
    ["1", 100],
    ["1e-7", 0.00001],
    ["-0.005", -0.5],
    [0.25, 25],
    ["abc", null],
    ["", null],
    [null, null],
  ])("%s -> %s", (v, pct) => {
    expect(fractionToPercent(v)).toBe(pct);
  });
});
