import type {
  AdminArchivedPool,
  AdminCompliance,
  AdminFault,
  AdminFaultRequest,
  AdminHealth,
  AdminMoney,
  AdminNullifierSearch,
  AdminFeeRequest,
  AdminOverrideRequest,
  AdminPause,
  AdminPauseRequest,
  AdminPoolSummary,
  AdminRange,
  AdminRejectedRelays,
  AdminRelayDetail,
  AdminRelayPage,
  AdminRevert,
  AdminSettings,
  AdminSpentNullifier,
  AdminTreeNode,
  RelayStatus,
  RevertStatus,
} from "../../src-shared/admin-api";
import { ApiError, type ApiClient } from "./client";
import type { Network } from "./types";

/**
 * One function per /admin endpoint (src-shared/admin-api.ts has the shapes).
 * Each answer is checked for the fields the console relies on, so a relay of
 * another version shows an error instead of a broken page.
 */

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function shaped<T>(body: unknown, what: string, fields: Record<string, "array" | "object" | "string" | "number">): T {
  const ok =
    isRecord(body) &&
    Object.entries(fields).every(([k, t]) => (t === "array" ? Array.isArray(body[k]) : t === "object" ? isRecord(body[k]) : typeof body[k] === t));
  if (!ok) throw new ApiError(200, "UnexpectedResponse", `The relay's ${what} answer has an unexpected shape`);
  return body as T;
}

const query = (params: Record<string, string | number | null | undefined>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
};

type Opt = { signal?: AbortSignal };

export const fetchPools = async (api: ApiClient, range: AdminRange, o: Opt = {}) =>
  shaped<{ pools: AdminPoolSummary[] }>(await api.getJson(`/admin/pools${query({ range })}`, o), "pools", { pools: "array" }).pools;

export const fetchTreeNode = async (api: ApiClient, network: Network, mint: string, index: number, o: Opt = {}) =>
  shaped<AdminTreeNode>(await api.getJson(`/admin/pools/${network}/${encodeURIComponent(mint)}/nodes/${index}`, o), "tree node", {
    value: "string",
    children: "array",
    height: "number",
  });

export interface RelayFilters {
  network?: Network | "";
  mint?: string;
  status?: RelayStatus | "";
  /** Received within the last this many ms; 0 = any time. */
  withinMs?: number;
}

export const fetchRelays = async (api: ApiClient, f: RelayFilters, before: string | null, now: number, o: Opt = {}) =>
  shaped<AdminRelayPage>(
    await api.getJson(
      `/admin/relays${query({ network: f.network, mint: f.mint, status: f.status, from: f.withinMs ? now - f.withinMs : null, before, limit: 50 })}`,
      o,
    ),
    "relays",
    { items: "array", counts: "object" },
  );

export const fetchRejectedRelays = async (api: ApiClient, o: Opt = {}) =>
  shaped<AdminRejectedRelays>(await api.getJson("/admin/relays/rejected", o), "rejected relays", { items: "array", counts: "object", total: "number" });

export const fetchRelay = async (api: ApiClient, id: string, o: Opt = {}) =>
  shaped<AdminRelayDetail>(await api.getJson(`/admin/relays/${encodeURIComponent(id)}`, o), "relay", { id: "string", steps: "array" });

export const searchNullifier = async (api: ApiClient, q: string, o: Opt = {}) =>
  shaped<AdminNullifierSearch>(await api.getJson(`/admin/nullifiers/search${query({ q })}`, o), "nullifier search", { results: "array" });

export const fetchSpentNullifiers = async (api: ApiClient, o: Opt = {}) =>
  shaped<{ items: AdminSpentNullifier[] }>(await api.getJson(`/admin/nullifiers/spent${query({ limit: 100 })}`, o), "spent nullifiers", { items: "array" }).items;

export const fetchAdminHealth = async (api: ApiClient, o: Opt = {}) =>
  shaped<AdminHealth>(await api.getJson("/admin/health", o), "health", { checks: "array", networks: "array", store: "object", indexer: "array" });

export const fetchSettings = async (api: ApiClient, o: Opt = {}) =>
  shaped<AdminSettings>(await api.getJson("/admin/settings", o), "settings", { networks: "array", keys: "array", fees: "object", limits: "object" });

export const fetchMoney = async (api: ApiClient, range: AdminRange, o: Opt = {}) =>
  shaped<AdminMoney>(await api.getJson(`/admin/money${query({ range })}`, o), "money", { feePayers: "array", earned: "array", totals: "array" });

export const setFee = async (api: ApiClient, req: AdminFeeRequest) =>
  shaped<AdminSettings["fees"]>(await api.postJson("/admin/fees", req), "fees", { default: "object", pools: "array", relayers: "array", graceSec: "number" });

export const fetchArchivedPools = async (api: ApiClient, o: Opt = {}) =>
  shaped<{ archived: AdminArchivedPool[] }>(await api.getJson("/admin/pools/archived", o), "archived pools", { archived: "array" }).archived;

export const setPause = async (api: ApiClient, req: AdminPauseRequest) =>
  shaped<{ pauses: AdminPause[] }>(await api.postJson("/admin/pauses", req), "pauses", { pauses: "array" }).pauses;

export const setFault = async (api: ApiClient, fault: AdminFaultRequest) =>
  shaped<{ faults: AdminFault[] }>(await api.postJson("/admin/sandbox/faults", fault), "faults", { faults: "array" }).faults;

export const fetchReverts = async (api: ApiClient, status: RevertStatus | "", o: Opt = {}) =>
  shaped<{ items: AdminRevert[] }>(await api.getJson(`/admin/reverts${query({ status, limit: 200 })}`, o), "reverts", { items: "array" }).items;

export const fetchCompliance = async (api: ApiClient, address: string, o: Opt = {}) =>
  shaped<AdminCompliance>(await api.getJson(`/admin/compliance${query({ address, limit: 200 })}`, o), "compliance", { decisions: "array", list: "object" });

export const setOverride = async (api: ApiClient, req: AdminOverrideRequest) =>
  shaped<AdminCompliance>(await api.postJson("/admin/sanctions/overrides", req), "sanctions override", { overrides: "array" });
