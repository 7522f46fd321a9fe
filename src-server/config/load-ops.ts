/**
 * The alert rules' check outside the start: the console's Settings run an edit through the
 * same declarations (keys.ts, ALERT_RULES) loadConfig reads `alerts.rules` with.
 */
import { applyOrFail, applySection } from "./declare";
import { ALERT_RULES } from "./keys";
import type { AlertRuleThresholds } from "./types";

export type Fail = (key: string, problem: string) => never;

/** Applies `raw` (a partial set of thresholds) over `base`; every value is checked, the key named on a bad one. */
export function applyAlertRules(key: string, base: AlertRuleThresholds, raw: unknown, fail: Fail): AlertRuleThresholds {
  return applyOrFail(() => applySection(ALERT_RULES, key, base, raw, new Set()), fail);
}
