/**
 * The relay's own alerts as the console and the webhook see them
 * (GET /admin/alerts; docs/operations.md, "Alerts").
 */

export const ALERT_RULES = ["fee-payer-runway", "indexer-lag", "relay-failures", "health-red", "sanctions-age", "disk-space"] as const;
export type AlertRule = (typeof ALERT_RULES)[number];

/** One alert: a rule firing for one subject (a network, a pool, the relay), from start to resolution. */
export interface AlertItem {
  id: number;
  rule: AlertRule;
  /** What it is about within the rule: "mainnet", "mainnet/<mint>", "relay". */
  subject: string;
  /** One line for a badge, a notification or a chat message. */
  summary: string;
  detail: string;
  startedAt: number;
  /** Null while it fires. */
  resolvedAt: number | null;
  lastNotifiedAt: number;
  /** Notifications sent (the first, then one per repeat, then the resolution). */
  notifications: number;
}

/** The thresholds in force (config, then the console's changes); null: the rule is off. */
export interface AlertRuleSettings {
  feePayerRunwayHours: number | null;
  indexerLagSec: number | null;
  relayFailurePercent: number | null;
  relayFailureWindowMin: number;
  relayFailureMinRelays: number;
  healthRedMin: number | null;
  sanctionsAgeHours: number | null;
  diskFreePercent: number | null;
}

export interface WebhookDeliveryStatus {
  /** Whether alerts.webhook.url is set; the URL itself is never shown (it often holds a token), only its origin. */
  configured: boolean;
  origin: string | null;
  format: "json" | "slack" | "discord";
  /** The last delivery: its time, whether it was accepted (2xx), and what went wrong otherwise. */
  last: { at: number; ok: boolean; status: number | null; error: string | null; attempts: number } | null;
  /** Notifications waiting for a retry. */
  pending: number;
}

/** GET /admin/alerts */
export interface AdminAlerts {
  enabled: boolean;
  active: AlertItem[];
  /** Newest first, resolved and firing. */
  history: AlertItem[];
  rules: AlertRuleSettings;
  /** What the config file sets (the console's changes are shown against it). */
  configRules: AlertRuleSettings;
  repeatMin: number;
  webhook: WebhookDeliveryStatus;
}

/** POST /admin/alerts/test: the webhook's answer to a test notification (its first attempt). */
export interface AdminAlertTest {
  ok: boolean;
  status: number | null;
  error: string | null;
}
