import type { SwapQuote as SwapQuoteAnswer } from "../../../src-shared/api/public";
import { decodeBody, type BodyProblem } from "../../../src-shared/api/request-fields";
import { quoteRequest } from "../../../src-shared/api/requests";
import type { Network } from "../../../src-shared/networks";
import { ok, type Result } from "../../../src-shared/result";

/** What a venue is asked: an exact-in swap of `amount` base units. */
export interface QuoteRequest {
  inputMint: string;
  outputMint: string;
  amount: bigint;
  slippageBps: number;
  /** Venue labels to route through; empty means all. */
  dexes: readonly string[];
}

/** One hop of a route, as Jupiter describes it; fee fields and percent are optional there. */
export interface RouteStep {
  swapInfo: {
    ammKey: string;
    label: string;
    inputMint: string;
    outputMint: string;
    inAmount: bigint;
    outAmount: bigint;
    feeAmount: bigint | null;
    feeMint: string | null;
  };
  percent: number | null;
}

export interface SwapQuote {
  venue: "sandbox" | "jupiter";
  inputMint: string;
  outputMint: string;
  inAmount: bigint;
  outAmount: bigint;
  /** outAmount less slippageBps: the least the swap may deliver. */
  otherAmountThreshold: bigint;
  slippageBps: number;
  /** Percent (1 = 1%), whatever the venue's own unit. */
  priceImpactPct: number;
  routePlan: RouteStep[];
  /** The venue's own quote, kept for execution (Jupiter's swap-instructions needs it back verbatim). */
  raw?: unknown;
}

/** POST /jupiter's body: the swap quote request plus an optional network (mainnet by default, as in a relay request). */
export interface QuoteRequestBody extends Omit<QuoteRequest, "slippageBps"> {
  network: Network;
  /** Null: the pair's configured slippage applies. */
  slippageBps: number | null;
}

/** The swap quote request, field by field, in the order src-shared/api/requests.ts declares; outputMint must differ from inputMint. */
export function parseQuoteRequest(body: unknown): Result<QuoteRequestBody, BodyProblem> {
  const r = decodeBody(quoteRequest, body, { outputMint: (d) => (d.outputMint?.text === d.inputMint?.text ? "outputMint: must differ from inputMint" : null) });
  if (!r.ok) return r;
  const v = r.value;
  return ok({
    network: v.network,
    inputMint: v.inputMint.text,
    outputMint: v.outputMint.text,
    amount: BigInt(v.amount),
    slippageBps: v.slippageBps,
    dexes: v.dexes ?? [],
  });
}

/** POST /jupiter's answer: amounts as text, priceImpactPct in percent, in the shape its contract (src-shared/api/public.ts) declares. */
export function quoteJson(q: SwapQuote): SwapQuoteAnswer {
  return {
    inputMint: q.inputMint,
    outputMint: q.outputMint,
    inAmount: q.inAmount.toString(),
    outAmount: q.outAmount.toString(),
    otherAmountThreshold: q.otherAmountThreshold.toString(),
    slippageBps: q.slippageBps,
    priceImpactPct: q.priceImpactPct,
    routePlan: q.routePlan.map((s) => ({
      swapInfo: {
        ammKey: s.swapInfo.ammKey,
        label: s.swapInfo.label,
        inputMint: s.swapInfo.inputMint,
        outputMint: s.swapInfo.outputMint,
        inAmount: s.swapInfo.inAmount.toString(),
        outAmount: s.swapInfo.outAmount.toString(),
        ...(s.swapInfo.feeAmount !== null ? { feeAmount: s.swapInfo.feeAmount.toString() } : {}),
        ...(s.swapInfo.feeMint !== null ? { feeMint: s.swapInfo.feeMint } : {}),
      },
      percent: s.percent,
    })),
  };
}
