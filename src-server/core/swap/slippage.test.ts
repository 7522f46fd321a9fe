import { describe, expect, it } from "vitest";
import { minOutAmount, pairKey, pairSlippage, slippageSeenBps, SLIPPAGE_CLASS_BPS, type SlippagePolicy } from "./slippage";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const USDT = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB";
const SOL = "So11111111111111111111111111111111111111112";
const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";

const policy: SlippagePolicy = {
  stablecoins: [USDC, USDT],
  defaultClass: "standard",
  pairs: { [pairKey(SOL, BONK)]: { bps: 300, class: "lowLiquidity" }, [pairKey(SOL, USDT)]: { bps: 75, class: "custom" } },
};

describe("slippage classes (the spec's guidance)", () => {
  it("are 10 / 50 / 100 / 300 bps", () => {
    expect(SLIPPAGE_CLASS_BPS).toEqual({ stable: 10, standard: 50, volatile: 100, lowLiquidity: 300 });
  });

  it("give a pair of two stablecoins 10 bps, in either direction", () => {
    expect(pairSlippage(policy, USDC, USDT)).toEqual({ bps: 10, class: "stable" });
    expect(pairSlippage(policy, USDT, USDC)).toEqual({ bps: 10, class: "stable" });
  });

  it("give other pairs the default class, and a configured pair its own setting in both directions", () => {
    expect(pairSlippage(policy, SOL, USDC)).toEqual({ bps: 50, class: "standard" });
    expect(pairSlippage({ ...policy, defaultClass: "volatile" }, SOL, USDC)).toEqual({ bps: 100, class: "volatile" });
    expect(pairSlippage(policy, BONK, SOL)).toEqual({ bps: 300, class: "lowLiquidity" });
    expect(pairSlippage(policy, USDT, SOL)).toEqual({ bps: 75, class: "custom" });
  });

  it("key a pair the same whatever the order", () => {
    expect(pairKey(SOL, USDC)).toBe(pairKey(USDC, SOL));
  });
});

describe("minOutAmount: floor(quoted · (10 000 − bps) / 10 000)", () => {
  it.each([
    [1_000_000n, 50, 995_000n],
    [1_000_000n, 0, 1_000_000n],
    [999n, 10, 998n],
    [17_057_460n, 100, 16_886_885n], // Jupiter's documented quote: otherAmountThreshold 16886885
    [5n, 10_000, 0n],
  ])("%s at %s bps is %s", (q, bps, min) => {
    expect(minOutAmount(q, bps)).toBe(min);
  });

  it("refuses a bps outside 0..10000", () => {
    expect(() => minOutAmount(1n, -1)).toThrow(RangeError);
    expect(() => minOutAmount(1n, 10_001)).toThrow(RangeError);
    expect(() => minOutAmount(1n, 1.5)).toThrow(RangeError);
  });
});

describe("slippageSeenBps", () => {
  it("is the shortfall against the quote in bps, two decimals, negative when execution beat the quote", () => {
    expect(slippageSeenBps(1_000_000n, 995_000n)).toBe(50);
    expect(slippageSeenBps(1_000_000n, 1_000_000n)).toBe(0);
    expect(slippageSeenBps(1_000_000n, 999_999n)).toBe(0.01);
    expect(slippageSeenBps(1_000_000n, 1_000_100n)).toBe(-1);
    expect(slippageSeenBps(3n, 1n)).toBe(6666.66);
  });
});
