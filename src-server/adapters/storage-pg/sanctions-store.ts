import type { OverrideAction } from "../../core/compliance/sanctions";
import type { SanctionsStore, SanctionsOverride, SanctionsOverrideChange, SanctionsVersionRecord } from "../../ports/sanctions";
import type { PgDatabase } from "./pool";

type LogRow = { address: string; change: SanctionsOverrideChange["change"]; reason: string; at: number };

export class PgSanctionsStore implements SanctionsStore {
  constructor(private readonly db: PgDatabase) {}

  async overrides(): Promise<SanctionsOverride[]> {
    const rows = await this.db.query<{ address: string; action: OverrideAction; reason: string; created_at: number }>(
      "SELECT address, action, reason, created_at FROM sanctions_overrides ORDER BY address",
    );
    return rows.map((r) => ({ address: r.address, action: r.action, reason: r.reason, createdAt: r.created_at }));
  }

  async putOverride(o: SanctionsOverride): Promise<void> {
    await this.db.tx(async (q) => {
      await q(
        `INSERT INTO sanctions_overrides (address, action, reason, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (address) DO UPDATE SET action = EXCLUDED.action, reason = EXCLUDED.reason, created_at = EXCLUDED.created_at`,
        [o.address, o.action, o.reason, o.createdAt],
      );
      await q("INSERT INTO sanctions_override_log (address, change, reason, at) VALUES ($1, $2, $3, $4)", [o.address, o.action, o.reason, o.createdAt]);
    });
  }

  /** The delete and its log line are one statement: two instances clearing at once log one clear. */
  async clearOverride(address: string, reason: string, at: number): Promise<boolean> {
    const rows = await this.db.query(
      `WITH gone AS (DELETE FROM sanctions_overrides WHERE address = $1 RETURNING address)
       INSERT INTO sanctions_override_log (address, change, reason, at) SELECT address, 'clear', $2, $3 FROM gone RETURNING id`,
      [address, reason, at],
    );
    return rows.length === 1;
  }

  async history(address?: string): Promise<SanctionsOverrideChange[]> {
    const rows = address
      ? await this.db.query<LogRow>("SELECT address, change, reason, at FROM sanctions_override_log WHERE address = $1 ORDER BY id", [address])
      : await this.db.query<LogRow>("SELECT address, change, reason, at FROM sanctions_override_log ORDER BY id");
    return rows.map((r) => ({ address: r.address, change: r.change, reason: r.reason, at: r.at }));
  }

  async recordVersion(v: SanctionsVersionRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO sanctions_versions (version, base_version, source, content_sha256, count, base_count, overrides, first_at, last_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
       ON CONFLICT (version) DO UPDATE SET last_at = EXCLUDED.last_at, source = EXCLUDED.source`,
      [v.version, v.baseVersion, v.source, v.contentSha256, v.count, v.baseCount, v.overrides, v.at],
    );
  }
}
