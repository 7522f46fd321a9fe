import type { Result } from "../../src-shared/result";
import type { QuoteRequest, SwapQuote } from "../core/swap/quote";

/**
 * Why a venue gave no quote. `InsufficientLiquidity`: no route, or not enough
 * depth for the amount. `InvalidRequest`: the venue refused the request itself
 * (e.g. a circular route). `Unavailable`: no usable answer (time-out, network,
 * 5xx, rate limit, rejected API key, malformed body).
 */
export type SwapVenueErrorKind = "InsufficientLiquidity" | "InvalidRequest" | "Unavailable";

export interface SwapVenueError {
  kind: SwapVenueErrorKind;
  detail: string;
  /** The venue's own code, when it sent one (Jupiter's `errorCode`). */
  code?: string;
}

/**
 * Where a network's swaps are priced (a /jupiter request's `network`): the
 * sandbox's constant-product pools, or Jupiter for a Solana network.
 * Executing a swap is the chain's job (ChainBackend.submitWithdrawal with a
 * swap leg), so that the withdrawal and the swap land in one transaction.
 */
export interface SwapVenue {
  readonly kind: "sandbox" | "jupiter";
  /** An exact-in quote; priceImpactPct in percent, amounts bigint. */
  quote(req: QuoteRequest): Promise<Result<SwapQuote, SwapVenueError>>;
}
