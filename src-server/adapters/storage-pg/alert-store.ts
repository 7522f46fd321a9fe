import type { AlertStore } from "../../ports/alert-store";
import type { AlertItem, AlertRuleSettings } from "../../../src-shared/api/alerts";
import type { PgDatabase } from "./pool";
import { ALERT_COLUMNS, ALERT_RULES_KEY, firedAlertParams, toAlertItem, type AlertRow } from "../storage-rows/alert-rows";

export class PgAlertStore implements AlertStore {
  constructor(private readonly db: PgDatabase) {}

  async open(): Promise<AlertItem[]> {
    return (await this.db.query<AlertRow>(`SELECT ${ALERT_COLUMNS} FROM alert_history WHERE resolved_at IS NULL ORDER BY id`)).map(toAlertItem);
  }

  async recent(limit: number): Promise<AlertItem[]> {
    return (await this.db.query<AlertRow>(`SELECT ${ALERT_COLUMNS} FROM alert_history ORDER BY id DESC LIMIT $1`, [limit])).map(toAlertItem);
  }

  async fire(a: Omit<AlertItem, "id" | "resolvedAt">): Promise<AlertItem> {
    const rows = await this.db.query<AlertRow>(
      `INSERT INTO alert_history (rule, subject, summary, detail, started_at, resolved_at, last_notified_at, notifications)
       VALUES ($1, $2, $3, $4, $5, NULL, $6, $7) RETURNING ${ALERT_COLUMNS}`,
      firedAlertParams(a),
    );
    return toAlertItem(rows[0]!);
  }

  async notified(id: number, at: number, summary: string, detail: string): Promise<void> {
    await this.db.query("UPDATE alert_history SET last_notified_at = $2, notifications = notifications + 1, summary = $3, detail = $4 WHERE id = $1", [
      id,
      at,
      summary,
      detail,
    ]);
  }

  async resolve(id: number, at: number): Promise<void> {
    await this.db.query(
      "UPDATE alert_history SET resolved_at = $2, last_notified_at = $2, notifications = notifications + 1 WHERE id = $1 AND resolved_at IS NULL",
      [id, at],
    );
  }

  async ruleOverrides(): Promise<Partial<AlertRuleSettings>> {
    const rows = await this.db.query<{ value: string }>("SELECT value FROM alert_settings WHERE key = $1", [ALERT_RULES_KEY]);
    return rows[0] ? (JSON.parse(rows[0].value) as Partial<AlertRuleSettings>) : {};
  }

  async setRuleOverrides(o: Partial<AlertRuleSettings>): Promise<void> {
    await this.db.query("INSERT INTO alert_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", [
      ALERT_RULES_KEY,
      JSON.stringify(o),
    ]);
  }
}
