import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { AdminFaultRequest, AdminFeeRequest, AdminOverrideRequest, AdminPauseRequest, AdminRange, RevertStatus } from "../../src-shared/api/admin";
import {
  fetchAdminHealth,
  fetchArchivedPools,
  fetchCompliance,
  fetchMoney,
  fetchPools,
  fetchRelay,
  fetchRelays,
  fetchRejectedRelays,
  fetchReverts,
  fetchSettings,
  fetchSpentNullifiers,
  fetchTreeNode,
  searchNullifier,
  setFault,
  setFee,
  setOverride,
  setPause,
  type RelayFilters,
} from "./admin";
import { useApi } from "./context";
import { queryKeys } from "./keys";
import type { Network } from "../../src-shared/networks";

/** How often each dashboard refreshes while it is open. */
export const REFRESH_MS = { health: 5_000, relays: 3_000, pools: 10_000, money: 15_000, settings: 10_000, support: 5_000 } as const;

export function useAdminHealth() {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.admin.health(), queryFn: ({ signal }) => fetchAdminHealth(api, { signal }), refetchInterval: REFRESH_MS.health });
}

/** Pools set aside at a protocol upgrade; they change only at an upgrade, so read once. */
export function useArchivedPools() {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.admin.archivedPools(), queryFn: ({ signal }) => fetchArchivedPools(api, { signal }), staleTime: Infinity });
}

export function usePools(range: AdminRange) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.admin.pools(range),
    queryFn: ({ signal }) => fetchPools(api, range, { signal }),
    refetchInterval: REFRESH_MS.pools,
    placeholderData: keepPreviousData,
  });
}

export function useTreeNode(network: Network, mint: string, index: number) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.admin.node(network, mint, index),
    queryFn: ({ signal }) => fetchTreeNode(api, network, mint, index, { signal }),
    refetchInterval: REFRESH_MS.pools,
    placeholderData: keepPreviousData,
  });
}

/** Relays refused before their proof verified (kept in the relay's memory only). */
export function useRejectedRelays() {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.admin.rejectedRelays(),
    queryFn: ({ signal }) => fetchRejectedRelays(api, { signal }),
    refetchInterval: REFRESH_MS.relays,
  });
}

export function useRelays(filters: RelayFilters, before: string | null) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.admin.relayPage(filters, before),
    queryFn: ({ signal }) => fetchRelays(api, filters, before, Date.now(), { signal }),
    // Live: the newest page follows new relays; older pages stay put.
    refetchInterval: before === null ? REFRESH_MS.relays : false,
    placeholderData: keepPreviousData,
  });
}

export function useRelay(id: string) {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.admin.relay(id), queryFn: ({ signal }) => fetchRelay(api, id, { signal }), refetchInterval: REFRESH_MS.relays });
}

export function useNullifierSearch(q: string) {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.admin.nullifierSearch(q), queryFn: ({ signal }) => searchNullifier(api, q, { signal }), enabled: q !== "" });
}

export function useSpentNullifiers() {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.admin.spent(), queryFn: ({ signal }) => fetchSpentNullifiers(api, { signal }), refetchInterval: REFRESH_MS.support });
}

export function useSettings() {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.admin.settings(), queryFn: ({ signal }) => fetchSettings(api, { signal }), refetchInterval: REFRESH_MS.settings });
}

export function useMoney(range: AdminRange) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.admin.money(range),
    queryFn: ({ signal }) => fetchMoney(api, range, { signal }),
    refetchInterval: REFRESH_MS.money,
    placeholderData: keepPreviousData,
  });
}

export function useReverts(status: RevertStatus | "") {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.admin.reverts(status),
    queryFn: ({ signal }) => fetchReverts(api, status, { signal }),
    refetchInterval: REFRESH_MS.support,
  });
}

export function useCompliance(address: string) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.admin.compliance(address),
    queryFn: ({ signal }) => fetchCompliance(api, address, { signal }),
    refetchInterval: REFRESH_MS.support,
    placeholderData: keepPreviousData,
  });
}

/** Switches change what several dashboards show: refresh all of the admin area after one. */
function useAdminMutation<T, R>(run: (api: ReturnType<typeof useApi>, arg: T) => Promise<R>) {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (arg: T) => run(api, arg),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.admin.all() }),
  });
}

export const useSetFee = () => useAdminMutation((api, req: AdminFeeRequest) => setFee(api, req));
export const useSetPause = () => useAdminMutation((api, req: AdminPauseRequest) => setPause(api, req));
export const useSetFault = () => useAdminMutation((api, f: AdminFaultRequest) => setFault(api, f));
export const useSetOverride = () => useAdminMutation((api, req: AdminOverrideRequest) => setOverride(api, req));
