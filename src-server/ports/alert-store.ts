import type { AlertItem, AlertRuleSettings } from "../../src-shared/api/alerts";

/** The alerts' history and the operator's threshold changes, kept in the store. */
export interface AlertStore {
  /** Alerts not resolved, oldest first (what was firing before a restart keeps firing, not fired again). */
  open(): Promise<AlertItem[]>;
  /** Newest first. */
  recent(limit: number): Promise<AlertItem[]>;
  fire(a: Omit<AlertItem, "id" | "resolvedAt">): Promise<AlertItem>;
  /** A repeat notification (and the alert's current wording). */
  notified(id: number, at: number, summary: string, detail: string): Promise<void>;
  resolve(id: number, at: number): Promise<void>;
  ruleOverrides(): Promise<Partial<AlertRuleSettings>>;
  setRuleOverrides(o: Partial<AlertRuleSettings>): Promise<void>;
}
