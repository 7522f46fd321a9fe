/**
 * The `metrics`, `alerts` and `logs` sections of the config file, checked
 * once at start (load.ts calls this with its ConfigError). The alert rules'
 * check is also what the console's Settings run an edit through.
 */
import { checkListUrl } from "../core/compliance/sanctions";
import { ALERT_RULE_KEYS, type AlertRuleThresholds, type AlertsConfig, type LogsConfig, type MetricsConfig, type WebhookFormat } from "./schema";

export type Fail = (key: string, problem: string) => never;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function section(key: string, v: unknown, known: readonly string[], fail: Fail): Obj {
  if (v === undefined) return {};
  if (!isObj(v)) fail(key, "must be an object");
  const o = v as Obj;
  for (const k of Object.keys(o)) if (!known.includes(k)) fail(`${key}.${k}`, "is not a known setting");
  return o;
}

function bool(key: string, v: unknown, fail: Fail): boolean {
  if (typeof v !== "boolean") fail(key, `must be true or false, got ${JSON.stringify(v)}`);
  return v as boolean;
}

function num(key: string, v: unknown, min: number, max: number, fail: Fail, integer = true): number {
  if (typeof v !== "number" || !Number.isFinite(v) || (integer && !Number.isInteger(v)) || v < min || v > max) {
    fail(key, `must be ${integer ? "an integer" : "a number"} from ${min} to ${max}, got ${JSON.stringify(v)}`);
  }
  return v as number;
}

/** A threshold that may be null (the rule is off). */
function threshold(key: string, v: unknown, min: number, max: number, fail: Fail): number | null {
  if (v === null) return null;
  return num(key, v, min, max, fail, false);
}

const RULE_RANGES: Record<(typeof ALERT_RULE_KEYS)[number], { min: number; max: number; nullable: boolean }> = {
  feePayerRunwayHours: { min: 0.1, max: 24 * 365, nullable: true },
  indexerLagSec: { min: 1, max: 7 * 86_400, nullable: true },
  relayFailurePercent: { min: 1, max: 100, nullable: true },
  relayFailureWindowMin: { min: 1, max: 24 * 60, nullable: false },
  relayFailureMinRelays: { min: 1, max: 10_000, nullable: false },
  healthRedMin: { min: 0.1, max: 24 * 60, nullable: true },
  sanctionsAgeHours: { min: 1, max: 24 * 365, nullable: true },
  diskFreePercent: { min: 0.1, max: 99, nullable: true },
};

/** Applies `raw` (a partial set of thresholds) over `base`; every value is checked, the key named on a bad one. */
export function applyAlertRules(key: string, base: AlertRuleThresholds, raw: unknown, fail: Fail): AlertRuleThresholds {
  const o = section(key, raw, ALERT_RULE_KEYS, fail);
  const out: AlertRuleThresholds = { ...base };
  for (const k of ALERT_RULE_KEYS) {
    if (o[k] === undefined) continue;
    const r = RULE_RANGES[k];
    if (o[k] === null && !r.nullable) fail(`${key}.${k}`, "cannot be null (it qualifies another rule)");
    const v = r.nullable ? threshold(`${key}.${k}`, o[k], r.min, r.max, fail) : num(`${key}.${k}`, o[k], r.min, r.max, fail);
    (out as unknown as Record<string, number | null>)[k] = v;
  }
  return out;
}

export function applyOpsConfig(
  cfg: { metrics: MetricsConfig; alerts: AlertsConfig; logs: LogsConfig },
  file: { metrics?: unknown; alerts?: unknown; logs?: unknown },
  fail: Fail,
): void {
  const m = section("metrics", file.metrics, ["enabled", "host", "port", "loopbackWithoutToken", "feePayerSampleSec"], fail);
  if (m.enabled !== undefined) cfg.metrics.enabled = bool("metrics.enabled", m.enabled, fail);
  // Removed: a stock reverse proxy on the same machine made "loopback" requests public. false is what
  // the main port does now; true would silently mean something else, so it stops the start.
  if (m.loopbackWithoutToken !== undefined && bool("metrics.loopbackWithoutToken", m.loopbackWithoutToken, fail))
    fail(
      "metrics.loopbackWithoutToken",
      "true is no longer supported: /metrics on the main port always takes the operator token; a scraper on this machine reads metrics.host:metrics.port (default 127.0.0.1:9464) without one. Remove the setting",
    );
  if (m.host !== undefined) {
    if (typeof m.host !== "string" || m.host === "") fail("metrics.host", `must be a host address, got ${JSON.stringify(m.host)}`);
    cfg.metrics.host = m.host as string;
  }
  if (m.port !== undefined) {
    cfg.metrics.port = m.port === null || m.port === false ? null : num("metrics.port", m.port, 0, 65535, fail);
    cfg.metrics.portConfigured = true;
  }
  if (m.feePayerSampleSec !== undefined) cfg.metrics.feePayerSampleSec = num("metrics.feePayerSampleSec", m.feePayerSampleSec, 1, 3600, fail);

  const a = section("alerts", file.alerts, ["enabled", "evaluateSec", "repeatMin", "rules", "webhook"], fail);
  if (a.enabled !== undefined) cfg.alerts.enabled = bool("alerts.enabled", a.enabled, fail);
  if (a.evaluateSec !== undefined) cfg.alerts.evaluateSec = num("alerts.evaluateSec", a.evaluateSec, 1, 3600, fail);
  if (a.repeatMin !== undefined) cfg.alerts.repeatMin = num("alerts.repeatMin", a.repeatMin, 1, 7 * 24 * 60, fail);
  cfg.alerts.rules = applyAlertRules("alerts.rules", cfg.alerts.rules, a.rules, fail);
  const w = section("alerts.webhook", a.webhook, ["url", "format", "timeoutMs", "maxRetries"], fail);
  const webhook = { ...cfg.alerts.webhook };
  if (w.url !== undefined) {
    if (w.url === null) webhook.url = null;
    else {
      if (typeof w.url !== "string") fail("alerts.webhook.url", "must be a URL or null");
      const checked = checkListUrl(w.url as string);
      if (!checked.ok) fail("alerts.webhook.url", checked.error);
      webhook.url = w.url as string;
    }
  }
  if (w.format !== undefined) {
    if (w.format !== "json" && w.format !== "slack" && w.format !== "discord")
      fail("alerts.webhook.format", `must be "json", "slack" or "discord", got ${JSON.stringify(w.format)}`);
    webhook.format = w.format as WebhookFormat;
  }
  if (w.timeoutMs !== undefined) webhook.timeoutMs = num("alerts.webhook.timeoutMs", w.timeoutMs, 100, 60_000, fail);
  if (w.maxRetries !== undefined) webhook.maxRetries = num("alerts.webhook.maxRetries", w.maxRetries, 0, 20, fail);
  cfg.alerts.webhook = webhook;

  const l = section("logs", file.logs, ["file", "maxFileMiB", "maxFiles", "clientIps", "requests"], fail);
  if (l.file !== undefined) cfg.logs.file = bool("logs.file", l.file, fail);
  if (l.maxFileMiB !== undefined) cfg.logs.maxFileMiB = num("logs.maxFileMiB", l.maxFileMiB, 1, 1024, fail);
  if (l.maxFiles !== undefined) cfg.logs.maxFiles = num("logs.maxFiles", l.maxFiles, 1, 100, fail);
  if (l.clientIps !== undefined) cfg.logs.clientIps = bool("logs.clientIps", l.clientIps, fail);
  if (l.requests !== undefined) {
    if (l.requests !== "changes" && l.requests !== "all") fail("logs.requests", `must be "changes" or "all", got ${JSON.stringify(l.requests)}`);
    cfg.logs.requests = l.requests;
  }
}
