import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { AdminAlerts, AdminAlertTest, AlertRuleSettings } from "../../src-shared/alerts-api";
import { ApiError, type ApiClient } from "./client";
import { useApi } from "./context";
import { queryKeys } from "./keys";

/** GET /admin/alerts, POST /admin/alerts/rules and /admin/alerts/test (src-shared/alerts-api.ts has the shapes). */

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export const ALERTS_REFRESH_MS = 5_000;
const alertsKey = () => [...queryKeys.admin.all(), "alerts"] as const;

export async function fetchAlerts(api: ApiClient, o: { signal?: AbortSignal } = {}): Promise<AdminAlerts> {
  const body = await api.getJson("/admin/alerts", o);
  if (!isRecord(body) || !Array.isArray(body.active) || !Array.isArray(body.history) || !isRecord(body.rules) || !isRecord(body.webhook)) {
    throw new ApiError(200, "UnexpectedResponse", "The relay's alerts answer has an unexpected shape");
  }
  return body as unknown as AdminAlerts;
}

/** Every page reads it (the badge): one query, shared. */
export function useAlerts() {
  const api = useApi();
  return useQuery({ queryKey: alertsKey(), queryFn: ({ signal }) => fetchAlerts(api, { signal }), refetchInterval: ALERTS_REFRESH_MS });
}

export function useSetAlertRules() {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (rules: Partial<AlertRuleSettings>) => (await api.postJson("/admin/alerts/rules", rules)) as { rules: AlertRuleSettings },
    onSettled: () => client.invalidateQueries({ queryKey: alertsKey() }),
  });
}

export function useTestWebhook() {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => (await api.postJson("/admin/alerts/test")) as AdminAlertTest,
    onSettled: () => client.invalidateQueries({ queryKey: alertsKey() }),
  });
}
