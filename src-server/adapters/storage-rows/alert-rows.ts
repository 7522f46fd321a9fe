/**
 * alert_history as both storage engines (storage-sqljs, storage-pg) read and write it: the
 * columns are the same and every value comes back as the same JS type (PostgreSQL's int8 is
 * parsed to number by the pool), so the row, the column list and the mappers live here once.
 */
import type { AlertItem, AlertRule } from "../../../src-shared/api/alerts";

export interface AlertRow {
  id: number;
  rule: string;
  subject: string;
  summary: string;
  detail: string;
  started_at: number;
  resolved_at: number | null;
  last_notified_at: number;
  notifications: number;
}

export const ALERT_COLUMNS = "id, rule, subject, summary, detail, started_at, resolved_at, last_notified_at, notifications";

/** alert_settings' key for the rule overrides (JSON text in both engines). */
export const ALERT_RULES_KEY = "rules";

export const toAlertItem = (r: AlertRow): AlertItem => ({
  id: r.id,
  rule: r.rule as AlertRule,
  subject: r.subject,
  summary: r.summary,
  detail: r.detail,
  startedAt: r.started_at,
  resolvedAt: r.resolved_at,
  lastNotifiedAt: r.last_notified_at,
  notifications: r.notifications,
});

/** A fired alert's values for (rule, subject, summary, detail, started_at, last_notified_at, notifications), in that order. */
export const firedAlertParams = (a: Omit<AlertItem, "id" | "resolvedAt">): [string, string, string, string, number, number, number] => [
  a.rule,
  a.subject,
  a.summary,
  a.detail,
  a.startedAt,
  a.lastNotifiedAt,
  a.notifications,
];
