import type { SwapQuote as SwapQuoteAnswer } from "../../../src-shared/api/public";
import { parsePublicKey } from "../../../src-shared/encoding/base58";
import { isNetwork, type Network } from "../../../src-shared/networks";
import { err, ok, type Result } from "../../../src-shared/result";
import type { RequestProblem } from "../relay/request";

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

const MAX_DEXES = 64;
const MAX_DEX_LABEL = 64;

const bad = (field: string, problem: string): { ok: false; error: RequestProblem } => err({ field, problem });

/** The swap quote request, field by field, in the spec's order. */
export function parseQuoteRequest(body: unknown): Result<QuoteRequestBody, RequestProblem> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return bad("body", "must be a JSON object");
  const b = body as Record<string, unknown>;
  const input = parsePublicKey(b.inputMint);
  if (!input.ok) return bad("inputMint", `${input.error} (a base58 mint address)`);
  const output = parsePublicKey(b.outputMint);
  if (!output.ok) return bad("outputMint", `${output.error} (a base58 mint address)`);
  if (b.inputMint === b.outputMint) return bad("outputMint", "must differ from inputMint");
  const amount = b.amount;
  if (typeof amount !== "number" || !Number.isSafeInteger(amount) || amount <= 0) {
    return bad("amount", "must be a positive integer number of base units, at most 2^53 - 1");
  }
  let slippageBps: number | null = null;
  if (b.slippageBps !== undefined) {
    const s = b.slippageBps;
    if (typeof s !== "number" || !Number.isInteger(s) || s < 0 || s > 10_000) return bad("slippageBps", "must be an integer from 0 to 10000 (basis points)");
    slippageBps = s;
  }
  let dexes: string[] = [];
  if (b.dexes !== undefined) {
    if (!Array.isArray(b.dexes) || b.dexes.length > MAX_DEXES)
      return bad("dexes", `must be an array of at most ${MAX_DEXES} exchange labels (empty means all)`);
    for (const [i, d] of b.dexes.entries()) {
      if (typeof d !== "string" || d.trim() === "" || d.length > MAX_DEX_LABEL || d.includes(",")) {
        return bad(`dexes[${i}]`, `must be a non-empty exchange label of at most ${MAX_DEX_LABEL} characters, without commas`);
      }
    }
    dexes = [...new Set(b.dexes as string[])];
  }
  const network = b.network === undefined ? "mainnet" : b.network;
  if (!isNetwork(network)) return bad("network", "must be mainnet or devnet");
  return ok({ network, inputMint: b.inputMint as string, outputMint: b.outputMint as string, amount: BigInt(amount), slippageBps, dexes });
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
