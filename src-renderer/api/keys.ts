import type { AdminRange, RevertStatus } from "../../src-shared/api/admin";
import type { RelayFilters } from "./admin";
import type { Network } from "../../src-shared/networks";

/** Every query key the console uses, in one place, so invalidation can target a whole area. */
export const queryKeys = {
  all: ["relay"] as const,
  version: () => [...queryKeys.all, "version"] as const,
  appInfo: () => ["desktop", "app-info"] as const,
  /** Behind the operator token: dropped as a whole on sign-out. */
  admin: {
    all: () => [...queryKeys.all, "admin"] as const,
    health: () => [...queryKeys.admin.all(), "health"] as const,
    pools: (range: AdminRange) => [...queryKeys.admin.all(), "pools", range] as const,
    archivedPools: () => [...queryKeys.admin.all(), "pools", "archived"] as const,
    node: (network: Network, mint: string, index: number) => [...queryKeys.admin.all(), "pools", "node", network, mint, index] as const,
    relays: () => [...queryKeys.admin.all(), "relays"] as const,
    relayPage: (f: RelayFilters, before: string | null) => [...queryKeys.admin.relays(), "page", f, before] as const,
    relay: (id: string) => [...queryKeys.admin.relays(), "detail", id] as const,
    rejectedRelays: () => [...queryKeys.admin.relays(), "rejected"] as const,
    nullifiers: () => [...queryKeys.admin.all(), "nullifiers"] as const,
    nullifierSearch: (q: string) => [...queryKeys.admin.nullifiers(), "search", q] as const,
    spent: () => [...queryKeys.admin.nullifiers(), "spent"] as const,
    settings: () => [...queryKeys.admin.all(), "settings"] as const,
    money: (range: AdminRange) => [...queryKeys.admin.all(), "money", range] as const,
    reverts: (status: RevertStatus | "") => [...queryKeys.admin.all(), "reverts", status] as const,
    compliance: (address: string) => [...queryKeys.admin.all(), "compliance", address] as const,
  },
};
