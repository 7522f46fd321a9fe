import type { OverrideAction } from "../../core/compliance/sanctions";
import type { SanctionsOverride, SanctionsOverrideChange, SanctionsStore, SanctionsVersionRecord } from "../../ports/sanctions";
import type { DurableDb } from "./durable-db";

export class SqlSanctionsStore implements SanctionsStore {
  constructor(private readonly db: DurableDb) {}

  async overrides(): Promise<SanctionsOverride[]> {
    return this.db
      .all<{ address: string; action: OverrideAction; reason: string; created_at: number }>(
        "SELECT address, action, reason, created_at FROM sanctions_overrides ORDER BY address",
      )
      .map((r) => ({ address: r.address, action: r.action, reason: r.reason, createdAt: r.created_at }));
  }

  async putOverride(o: SanctionsOverride): Promise<void> {
    await this.db.write([
      {
        sql: `INSERT INTO sanctions_overrides (address, action, reason, created_at) VALUES (?, ?, ?, ?)
              ON CONFLICT (address) DO UPDATE SET action = excluded.action, reason = excluded.reason, created_at = excluded.created_at`,
        params: [o.address, o.action, o.reason, o.createdAt],
      },
      { sql: "INSERT INTO sanctions_override_log (address, change, reason, at) VALUES (?, ?, ?, ?)", params: [o.address, o.action, o.reason, o.createdAt] },
    ]);
  }

  async clearOverride(address: string, reason: string, at: number): Promise<boolean> {
    if (!this.db.get("SELECT 1 AS x FROM sanctions_overrides WHERE address = ?", [address])) return false;
    await this.db.write([
      { sql: "DELETE FROM sanctions_overrides WHERE address = ?", params: [address] },
      { sql: "INSERT INTO sanctions_override_log (address, change, reason, at) VALUES (?, 'clear', ?, ?)", params: [address, reason, at] },
    ]);
    return true;
  }

  async history(address?: string): Promise<SanctionsOverrideChange[]> {
    const rows = address
      ? this.db.all<{ address: string; change: SanctionsOverrideChange["change"]; reason: string; at: number }>(
          "SELECT address, change, reason, at FROM sanctions_override_log WHERE address = ? ORDER BY id",
          [address],
        )
      : this.db.all<{ address: string; change: SanctionsOverrideChange["change"]; reason: string; at: number }>(
          "SELECT address, change, reason, at FROM sanctions_override_log ORDER BY id",
        );
    return rows.map((r) => ({ address: r.address, change: r.change, reason: r.reason, at: r.at }));
  }

  async recordVersion(v: SanctionsVersionRecord): Promise<void> {
    await this.db.write([
      {
        sql: `INSERT INTO sanctions_versions (version, base_version, source, content_sha256, count, base_count, overrides, first_at, last_at)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
              ON CONFLICT (version) DO UPDATE SET last_at = excluded.last_at, source = excluded.source`,
        params: [v.version, v.baseVersion, v.source, v.contentSha256, v.count, v.baseCount, v.overrides, v.at, v.at],
      },
    ]);
  }
}
