import { describe, expect, it } from "vitest";
import { meteoraQuote, meteoraRouteJson } from "../../../tests/support/swap-quotes";
import { parseQuoteRequest, quoteJson, type SwapQuote } from "./quote";

const SOL = "So11111111111111111111111111111111111111112";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const valid = { inputMint: SOL, outputMint: USDC, amount: 1_000_000, slippageBps: 50, dexes: [] as unknown[] };

describe("parseQuoteRequest", () => {
  it("reads the spec's request with network mainnet by default and the pair's slippage when none is given", () => {
    expect(parseQuoteRequest(valid)).toEqual({
      ok: true,
      value: { network: "mainnet", inputMint: SOL, outputMint: USDC, amount: 1_000_000n, slippageBps: 50, dexes: [] },
    });
    const { slippageBps: _s, dexes: _d, ...bare } = valid;
    expect(parseQuoteRequest({ ...bare, network: "devnet" })).toEqual({
      ok: true,
      value: { network: "devnet", inputMint: SOL, outputMint: USDC, amount: 1_000_000n, slippageBps: null, dexes: [] },
    });
  });

  it("keeps dexes, without duplicates", () => {
    const r = parseQuoteRequest({ ...valid, dexes: ["Raydium", "Orca V2", "Raydium"] });
    expect(r.ok && r.value.dexes).toEqual(["Raydium", "Orca V2"]);
  });

  it.each<[string, Record<string, unknown> | unknown, string]>([
    ["a non-object body", [1], "body"],
    ["a missing inputMint", { ...valid, inputMint: undefined }, "inputMint"],
    ["an inputMint that is not base58", { ...valid, inputMint: "0OIl" }, "inputMint"],
    ["a 31-byte outputMint", { ...valid, outputMint: "1111111111111111111111111111111" }, "outputMint"],
    ["the same mint twice", { ...valid, outputMint: SOL }, "outputMint"],
    ["amount as text", { ...valid, amount: "1000" }, "amount"],
    ["amount 0", { ...valid, amount: 0 }, "amount"],
    ["a fractional amount", { ...valid, amount: 1.5 }, "amount"],
    ["an amount above 2^53", { ...valid, amount: 2 ** 60 }, "amount"],
    ["slippageBps above 10000", { ...valid, slippageBps: 10_001 }, "slippageBps"],
    ["a negative slippageBps", { ...valid, slippageBps: -1 }, "slippageBps"],
    ["slippageBps as text", { ...valid, slippageBps: "50" }, "slippageBps"],
    ["dexes as a string", { ...valid, dexes: "Raydium" }, "dexes"],
    ["an empty dex label", { ...valid, dexes: ["Raydium", ""] }, "dexes[1]"],
    ["a dex label with a comma", { ...valid, dexes: ["Raydium,Orca"] }, "dexes[0]"],
    ["a numeric dex label", { ...valid, dexes: [7] }, "dexes[0]"],
    ["an unknown network", { ...valid, network: "testnet" }, "network"],
  ])("names the field of %s", (_name, body, field) => {
    const r = parseQuoteRequest(body);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.field).toBe(field);
  });
});

describe("quoteJson", () => {
  it("writes amounts as text, keeps priceImpactPct a number, and leaves out fee fields a venue did not give", () => {
    const base = meteoraQuote("A", { secret: "not on the wire" });
    const q: SwapQuote = {
      ...base,
      routePlan: [
        ...base.routePlan,
        { swapInfo: { ammKey: "B", label: "X", inputMint: SOL, outputMint: USDC, inAmount: 1n, outAmount: 2n, feeAmount: null, feeMint: null }, percent: null },
      ],
    };
    expect(quoteJson(q)).toEqual({
      inputMint: SOL,
      outputMint: USDC,
      inAmount: "100000000",
      outAmount: "17057460",
      otherAmountThreshold: "16886885",
      slippageBps: 100,
      priceImpactPct: 0.01,
      routePlan: [
        meteoraRouteJson("A"),
        { swapInfo: { ammKey: "B", label: "X", inputMint: SOL, outputMint: USDC, inAmount: "1", outAmount: "2" }, percent: null },
      ],
    });
  });
});
