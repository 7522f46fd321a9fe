import type { AlertItem, AlertRuleSettings } from "../../../src-shared/api/alerts";
import type { AlertStore } from "../../ports/alert-store";
import type { DurableDb } from "./durable-db";
import { ALERT_COLUMNS, ALERT_RULES_KEY, firedAlertParams, toAlertItem, type AlertRow } from "../storage-rows/alert-rows";

export class SqlAlertStore implements AlertStore {
  constructor(private readonly db: DurableDb) {}

  async open(): Promise<AlertItem[]> {
    return this.db.all<AlertRow>(`SELECT ${ALERT_COLUMNS} FROM alert_history WHERE resolved_at IS NULL ORDER BY id`).map(toAlertItem);
  }

  async recent(limit: number): Promise<AlertItem[]> {
    return this.db.all<AlertRow>(`SELECT ${ALERT_COLUMNS} FROM alert_history ORDER BY id DESC LIMIT ?`, [limit]).map(toAlertItem);
  }

  async fire(a: Omit<AlertItem, "id" | "resolvedAt">): Promise<AlertItem> {
    await this.db.write([
      {
        sql: `INSERT INTO alert_history (rule, subject, summary, detail, started_at, resolved_at, last_notified_at, notifications) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)`,
        params: firedAlertParams(a),
      },
    ]);
    const row = this.db.get<AlertRow>(
      `SELECT ${ALERT_COLUMNS} FROM alert_history WHERE rule = ? AND subject = ? AND resolved_at IS NULL ORDER BY id DESC LIMIT 1`,
      [a.rule, a.subject],
    );
    if (!row) throw new Error(`alert ${a.rule}/${a.subject} was not recorded`);
    return toAlertItem(row);
  }

  async notified(id: number, at: number, summary: string, detail: string): Promise<void> {
    await this.db.write([
      {
        sql: "UPDATE alert_history SET last_notified_at = ?, notifications = notifications + 1, summary = ?, detail = ? WHERE id = ?",
        params: [at, summary, detail, id],
      },
    ]);
  }

  async resolve(id: number, at: number): Promise<void> {
    await this.db.write([
      {
        sql: "UPDATE alert_history SET resolved_at = ?, last_notified_at = ?, notifications = notifications + 1 WHERE id = ? AND resolved_at IS NULL",
        params: [at, at, id],
      },
    ]);
  }

  async ruleOverrides(): Promise<Partial<AlertRuleSettings>> {
    const row = this.db.get<{ value: string }>("SELECT value FROM alert_settings WHERE key = ?", [ALERT_RULES_KEY]);
    return row ? (JSON.parse(row.value) as Partial<AlertRuleSettings>) : {};
  }

  async setRuleOverrides(o: Partial<AlertRuleSettings>): Promise<void> {
    await this.db.write([
      {
        sql: "INSERT INTO alert_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        params: [ALERT_RULES_KEY, JSON.stringify(o)],
      },
    ]);
  }
}
