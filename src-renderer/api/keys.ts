import type { Network } from "./types";

/** Every query key the console uses, in one place, so invalidation can target a whole area. */
export const queryKeys = {
  all: ["relay"] as const,
  health: () => [...queryKeys.all, "health"] as const,
  healthDetail: () => [...queryKeys.health(), "detail"] as const,
  version: () => [...queryKeys.all, "version"] as const,
  pools: () => [...queryKeys.all, "pools"] as const,
  merkle: (network: Network, mint: string) => [...queryKeys.pools(), "merkle", network, mint] as const,
  appInfo: () => ["desktop", "app-info"] as const,
};
