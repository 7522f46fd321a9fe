import type { Network } from "../../api/types";

export interface KnownPool {
  mint: string;
  symbol: string;
  name: string;
}

/** The pools the sandbox opens by default, on each network. */
export const DEFAULT_POOLS: readonly KnownPool[] = [
  { mint: "So11111111111111111111111111111111111111112", symbol: "SOL", name: "Wrapped SOL" },
  { mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", symbol: "USDC", name: "USD Coin" },
];

export const POOL_NETWORKS: readonly Network[] = ["mainnet", "devnet"];
