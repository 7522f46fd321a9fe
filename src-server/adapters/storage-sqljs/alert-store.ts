import type { AlertItem, AlertRule, AlertRuleSettings } from "../../../src-shared/api/alerts";
import type { AlertStore } from "../../ports/alert-store";
import type { DurableDb } from "./durable-db";

interface Row {
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

const COLUMNS = "id, rule, subject, summary, detail, started_at, resolved_at, last_notified_at, notifications";
const RULES_KEY = "rules";

const item = (r: Row): AlertItem => ({
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

export class SqlAlertStore implements AlertStore {
  constructor(private readonly db: DurableDb) {}

  async open(): Promise<AlertItem[]> {
    return this.db.all<Row>(`SELECT ${COLUMNS} FROM alert_history WHERE resolved_at IS NULL ORDER BY id`).map(item);
  }

  async recent(limit: number): Promise<AlertItem[]> {
    return this.db.all<Row>(`SELECT ${COLUMNS} FROM alert_history ORDER BY id DESC LIMIT ?`, [limit]).map(item);
  }

  async fire(a: Omit<AlertItem, "id" | "resolvedAt">): Promise<AlertItem> {
    await this.db.write([
      {
        sql: `INSERT INTO alert_history (rule, subject, summary, detail, started_at, resolved_at, last_notified_at, notifications) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)`,
        params: [a.rule, a.subject, a.summary, a.detail, a.startedAt, a.lastNotifiedAt, a.notifications],
      },
    ]);
    const row = this.db.get<Row>(`SELECT ${COLUMNS} FROM alert_history WHERE rule = ? AND subject = ? AND resolved_at IS NULL ORDER BY id DESC LIMIT 1`, [
      a.rule,
      a.subject,
    ]);
    if (!row) throw new Error(`alert ${a.rule}/${a.subject} was not recorded`);
    return item(row);
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
    const row = this.db.get<{ value: string }>("SELECT value FROM alert_settings WHERE key = ?", [RULES_KEY]);
    return row ? (JSON.parse(row.value) as Partial<AlertRuleSettings>) : {};
  }

  async setRuleOverrides(o: Partial<AlertRuleSettings>): Promise<void> {
    await this.db.write([
      {
        sql: "INSERT INTO alert_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        params: [RULES_KEY, JSON.stringify(o)],
      },
    ]);
  }
}
