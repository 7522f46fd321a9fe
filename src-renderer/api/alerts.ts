import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { adminAlertRules, adminAlerts, adminAlertTest, type AdminAlerts, type AlertRuleSettings } from "../../src-shared/api/alerts";
import { decodeAnswer, type ApiClient } from "./client";
import { useApi } from "./context";
import { queryKeys } from "./keys";

/** GET /admin/alerts, POST /admin/alerts/rules and /admin/alerts/test, decoded with their contracts (src-shared/api/alerts.ts). */

export const ALERTS_REFRESH_MS = 5_000;
const alertsKey = () => [...queryKeys.admin.all(), "alerts"] as const;

export async function fetchAlerts(api: ApiClient, o: { signal?: AbortSignal } = {}): Promise<AdminAlerts> {
  return decodeAnswer(await api.getJson("/admin/alerts", o), adminAlerts, "alerts");
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
    mutationFn: async (rules: Partial<AlertRuleSettings>) => decodeAnswer(await api.postJson("/admin/alerts/rules", rules), adminAlertRules, "alert rules"),
    onSettled: () => client.invalidateQueries({ queryKey: alertsKey() }),
  });
}

export function useTestWebhook() {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => decodeAnswer(await api.postJson("/admin/alerts/test"), adminAlertTest, "webhook test"),
    onSettled: () => client.invalidateQueries({ queryKey: alertsKey() }),
  });
}
