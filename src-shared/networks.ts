export const NETWORKS = ["mainnet", "devnet"] as const;
export type Network = (typeof NETWORKS)[number];

export const isNetwork = (v: unknown): v is Network => v === "mainnet" || v === "devnet";

/** The pool mints the sandbox opens on first start, so a new operator sees real trees. */
export const SANDBOX_DEFAULT_MINTS = [
  "So11111111111111111111111111111111111111112", // wrapped SOL
  "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", // USDC
] as const;
