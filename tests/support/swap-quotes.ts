import type { SwapQuote } from "../../src-server/core/swap/quote";

export const SOL_MINT = "So11111111111111111111111111111111111111112";
export const USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

/**
 * Jupiter's documented quote example (100 SOL-lamports-scaled to 17.05 USDC through
 * Meteora DLMM) as the relay holds it: amounts as bigints, priceImpactPct in percent.
 */
export function meteoraQuote(ammKey: string, raw: unknown): SwapQuote {
  return {
    venue: "jupiter",
    inputMint: SOL_MINT,
    outputMint: USDC_MINT,
    inAmount: 100_000_000n,
    outAmount: 17_057_460n,
    otherAmountThreshold: 16_886_885n,
    slippageBps: 100,
    priceImpactPct: 0.01,
    routePlan: [
      {
        swapInfo: {
          ammKey,
          label: "Meteora DLMM",
          inputMint: SOL_MINT,
          outputMint: USDC_MINT,
          inAmount: 100_000_000n,
          outAmount: 17_057_460n,
          feeAmount: 1285n,
          feeMint: USDC_MINT,
        },
        percent: 100,
      },
    ],
    raw,
  };
}

/** The documented example's route step as Jupiter's JSON carries it (amounts as decimal text). */
export function meteoraRouteJson(ammKey: string) {
  return {
    swapInfo: {
      ammKey,
      label: "Meteora DLMM",
      inputMint: SOL_MINT,
      outputMint: USDC_MINT,
      inAmount: "100000000",
      outAmount: "17057460",
      feeAmount: "1285",
      feeMint: USDC_MINT,
    },
    percent: 100,
  };
}
