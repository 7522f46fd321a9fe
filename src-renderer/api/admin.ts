import {
  adminAnswers,
  adminCompliance,
  adminFees,
  adminHealth,
  adminMoney,
  adminNullifierSearch,
  adminRejectedRelays,
  adminRelayDetail,
  adminRelayLog,
  adminRelayPage,
  adminSettings,
  adminTreeNode,
  feeRequestBody,
  type AdminFaultRequest,
  type AdminFeeRequest,
  type AdminOverrideRequest,
  type AdminPauseRequest,
  type AdminRange,
  type RelayStatus,
  type RevertStatus,
} from "../../src-shared/api/admin";
import type { Network } from "../../src-shared/networks";
import { decodeAnswer, type ApiClient } from "./client";

/**
 * One function per /admin endpoint. Each answer is decoded with its wire contract
 * (src-shared/api/admin.ts), so a relay of another version shows an error naming
 * the field instead of a broken page.
 */

const query = (params: Record<string, string | number | null | undefined>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
};

type Opt = { signal?: AbortSignal };

export const fetchPools = async (api: ApiClient, range: AdminRange, o: Opt = {}) =>
  decodeAnswer(await api.getJson(`/admin/pools${query({ range })}`, o), adminAnswers.pools, "pools");

export const fetchTreeNode = async (api: ApiClient, network: Network, mint: string, index: number, o: Opt = {}) =>
  decodeAnswer(await api.getJson(`/admin/pools/${network}/${encodeURIComponent(mint)}/nodes/${index}`, o), adminTreeNode, "tree node");

export interface RelayFilters {
  network?: Network | "";
  mint?: string;
  status?: RelayStatus | "";
  /** Received within the last this many ms; 0 = any time. */
  withinMs?: number;
}

export const fetchRelays = async (api: ApiClient, f: RelayFilters, before: string | null, now: number, o: Opt = {}) =>
  decodeAnswer(
    await api.getJson(
      `/admin/relays${query({ network: f.network, mint: f.mint, status: f.status, from: f.withinMs ? now - f.withinMs : null, before, limit: 50 })}`,
      o,
    ),
    adminRelayPage,
    "relays",
  );

export const fetchRejectedRelays = async (api: ApiClient, o: Opt = {}) =>
  decodeAnswer(await api.getJson("/admin/relays/rejected", o), adminRejectedRelays, "rejected relays");

export const fetchRelay = async (api: ApiClient, id: string, o: Opt = {}) =>
  decodeAnswer(await api.getJson(`/admin/relays/${encodeURIComponent(id)}`, o), adminRelayDetail, "relay");

export const fetchRelayLog = async (api: ApiClient, id: string, o: Opt = {}) =>
  decodeAnswer(await api.getJson(`/admin/relays/${encodeURIComponent(id)}/log`, o), adminRelayLog, "log");

export const searchNullifier = async (api: ApiClient, q: string, o: Opt = {}) =>
  decodeAnswer(await api.getJson(`/admin/nullifiers/search${query({ q })}`, o), adminNullifierSearch, "nullifier search");

export const fetchSpentNullifiers = async (api: ApiClient, o: Opt = {}) =>
  decodeAnswer(await api.getJson(`/admin/nullifiers/spent${query({ limit: 100 })}`, o), adminAnswers.spentNullifiers, "spent nullifiers");

export const fetchAdminHealth = async (api: ApiClient, o: Opt = {}) => decodeAnswer(await api.getJson("/admin/health", o), adminHealth, "health");

export const fetchSettings = async (api: ApiClient, o: Opt = {}) => decodeAnswer(await api.getJson("/admin/settings", o), adminSettings, "settings");

export const fetchMoney = async (api: ApiClient, range: AdminRange, o: Opt = {}) =>
  decodeAnswer(await api.getJson(`/admin/money${query({ range })}`, o), adminMoney, "money");

export const setFee = async (api: ApiClient, req: AdminFeeRequest) => decodeAnswer(await api.postJson("/admin/fees", feeRequestBody(req)), adminFees, "fees");

export const fetchArchivedPools = async (api: ApiClient, o: Opt = {}) =>
  decodeAnswer(await api.getJson("/admin/pools/archived", o), adminAnswers.archivedPools, "archived pools");

export const setPause = async (api: ApiClient, req: AdminPauseRequest) => decodeAnswer(await api.postJson("/admin/pauses", req), adminAnswers.pauses, "pauses");

export const setFault = async (api: ApiClient, fault: AdminFaultRequest) =>
  decodeAnswer(await api.postJson("/admin/sandbox/faults", fault), adminAnswers.faults, "faults");

export const fetchReverts = async (api: ApiClient, status: RevertStatus | "", o: Opt = {}) =>
  decodeAnswer(await api.getJson(`/admin/reverts${query({ status, limit: 200 })}`, o), adminAnswers.reverts, "reverts");

export const fetchCompliance = async (api: ApiClient, address: string, o: Opt = {}) =>
  decodeAnswer(await api.getJson(`/admin/compliance${query({ address, limit: 200 })}`, o), adminCompliance, "compliance");

export const setOverride = async (api: ApiClient, req: AdminOverrideRequest) =>
  decodeAnswer(await api.postJson("/admin/sanctions/overrides", req), adminCompliance, "sanctions override");
