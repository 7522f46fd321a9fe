export const NETWORKS = ["mainnet", "devnet"] as const;
export type Network = (typeof NETWORKS)[number];

export const isNetwork = (v: unknown): v is Network => v === "mainnet" || v === "devnet";
