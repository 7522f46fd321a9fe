import { err, ok, type Result } from "../../../src-shared/result";
import { cpSwap } from "../../../src-shared/swap/constant-product";
import type { QuoteRequest, SwapQuote } from "../../core/swap/quote";
import { minOutAmount } from "../../core/swap/slippage";
import type { SwapVenue, SwapVenueError } from "../../ports/swap-venue";
import type { SandboxSwapPools } from "./pools";

export const SANDBOX_CP_LABEL = "sandbox-cp";

/**
 * Quotes from the sandbox's constant-product pools: exact and deterministic
 * (src-shared/swap/constant-product.ts), one route step for the pair's pool, so a test can check a
 * quote to the unit and the relay_swap that follows it.
 */
export class SandboxSwapVenue implements SwapVenue {
  readonly kind = "sandbox" as const;

  constructor(private readonly pools: SandboxSwapPools) {}

  async quote(req: QuoteRequest): Promise<Result<SwapQuote, SwapVenueError>> {
    if (req.dexes.length > 0 && !req.dexes.includes(SANDBOX_CP_LABEL)) {
      return err({ kind: "InsufficientLiquidity", detail: `no route through ${req.dexes.join(", ")}: the sandbox has only "${SANDBOX_CP_LABEL}" pools` });
    }
    const pool = this.pools.reserves(req.inputMint, req.outputMint);
    if (!pool) return err({ kind: "InsufficientLiquidity", detail: `no swap pool for ${req.inputMint} -> ${req.outputMint} on ${this.pools.network}` });
    const swap = cpSwap(req.amount, pool.reserveIn, pool.reserveOut);
    if (!swap.ok) return err({ kind: "InsufficientLiquidity", detail: swap.error.detail });
    const s = swap.value;
    return ok({
      venue: "sandbox",
      inputMint: req.inputMint,
      outputMint: req.outputMint,
      inAmount: s.amountIn,
      outAmount: s.amountOut,
      otherAmountThreshold: minOutAmount(s.amountOut, req.slippageBps),
      slippageBps: req.slippageBps,
      priceImpactPct: s.priceImpactPct,
      routePlan: [
        {
          swapInfo: {
            ammKey: pool.ammKey,
            label: SANDBOX_CP_LABEL,
            inputMint: req.inputMint,
            outputMint: req.outputMint,
            inAmount: s.amountIn,
            outAmount: s.amountOut,
            feeAmount: s.feeAmount,
            feeMint: req.inputMint,
          },
          percent: 100,
        },
      ],
    });
  }
}
