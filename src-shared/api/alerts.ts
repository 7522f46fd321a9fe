/**
 * The relay's own alerts as the console and the webhook see them
 * (GET /admin/alerts; docs/operations.md, "Alerts"): wire contracts declared as
 * decoders (decode.ts), the types derived from them.
 */
import { array, boolean, literal, nullable, number, object, string, type Infer } from "./decode";

export const ALERT_RULES = ["fee-payer-runway", "indexer-lag", "relay-failures", "health-red", "sanctions-age", "disk-space", "deployed-program"] as const;
export type AlertRule = (typeof ALERT_RULES)[number];

/** One alert: a rule firing for one subject (a network, a pool, the relay), from start to resolution. */
export const alertItem = object({
  id: number,
  rule: literal(...ALERT_RULES),
  /** What it is about within the rule: "mainnet", "mainnet/<mint>", "relay". */
  subject: string,
  /** One line for a badge, a notification or a chat message. */
  summary: string,
  detail: string,
  startedAt: number,
  /** Null while it fires. */
  resolvedAt: nullable(number),
  lastNotifiedAt: number,
  /** Notifications sent (the first, then one per repeat, then the resolution). */
  notifications: number,
});
export type AlertItem = Infer<typeof alertItem>;

/** The thresholds in force (config, then the console's changes); null: the rule is off. */
export const alertRuleSettings = object({
  feePayerRunwayHours: nullable(number),
  indexerLagSec: nullable(number),
  relayFailurePercent: nullable(number),
  relayFailureWindowMin: number,
  relayFailureMinRelays: number,
  healthRedMin: nullable(number),
  sanctionsAgeHours: nullable(number),
  diskFreePercent: nullable(number),
});
export type AlertRuleSettings = Infer<typeof alertRuleSettings>;

export const webhookDeliveryStatus = object({
  /** Whether alerts.webhook.url is set; the URL itself is never shown (it often holds a token), only its origin. */
  configured: boolean,
  origin: nullable(string),
  format: literal("json", "slack", "discord"),
  /** The last delivery: its time, whether it was accepted (2xx), and what went wrong otherwise. */
  last: nullable(object({ at: number, ok: boolean, status: nullable(number), error: nullable(string), attempts: number })),
  /** Notifications waiting for a retry. */
  pending: number,
});
export type WebhookDeliveryStatus = Infer<typeof webhookDeliveryStatus>;

/** GET /admin/alerts */
export const adminAlerts = object({
  enabled: boolean,
  active: array(alertItem),
  /** Newest first, resolved and firing. */
  history: array(alertItem),
  rules: alertRuleSettings,
  /** What the config file sets (the console's changes are shown against it). */
  configRules: alertRuleSettings,
  repeatMin: number,
  webhook: webhookDeliveryStatus,
});
export type AdminAlerts = Infer<typeof adminAlerts>;

/** POST /admin/alerts/rules's answer: the thresholds now in force. */
export const adminAlertRules = object({ rules: alertRuleSettings });

/** POST /admin/alerts/test: the webhook's answer to a test notification (its first attempt). */
export const adminAlertTest = object({ ok: boolean, status: nullable(number), error: nullable(string) });
