import type { Network } from "../../src-shared/networks";
import { err, type Result } from "../../src-shared/result";
import type { QuoteRequestBody, SwapQuote } from "../core/swap/quote";
import { pairSlippage, type PairSlippage, type SlippagePolicy } from "../core/swap/slippage";
import type { SwapVenue, SwapVenueError } from "../ports/swap-venue";
import type { SwapRouting } from "./relay-service";

export type QuoteFailure = SwapVenueError | { kind: "NetworkDisabled"; detail: string };

/**
 * Each network's swap venue (the sandbox pools for a sandbox
 * network, Jupiter for a Solana one) and each pair's slippage, for /jupiter
 * and relay_swap alike.
 */
export class SwapRoutingService implements SwapRouting {
  constructor(
    private readonly venues: ReadonlyMap<Network, SwapVenue>,
    private readonly policy: SlippagePolicy,
  ) {}

  venueFor(network: Network): SwapVenue | null {
    return this.venues.get(network) ?? null;
  }

  slippageFor(_network: Network, inputMint: string, outputMint: string): PairSlippage {
    return pairSlippage(this.policy, inputMint, outputMint);
  }

  /** POST /jupiter: the client's slippageBps, or the pair's when it sent none. */
  async quote(req: QuoteRequestBody): Promise<Result<SwapQuote, QuoteFailure>> {
    const venue = this.venueFor(req.network);
    if (!venue) return err({ kind: "NetworkDisabled", detail: `network: ${req.network} is not enabled on this relay` });
    const slippageBps = req.slippageBps ?? this.slippageFor(req.network, req.inputMint, req.outputMint).bps;
    return venue.quote({ inputMint: req.inputMint, outputMint: req.outputMint, amount: req.amount, slippageBps, dexes: req.dexes });
  }
}
