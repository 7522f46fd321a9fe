import type { Network } from "../../../src-shared/networks";
import type { ComplianceLog, ComplianceDecision, ComplianceDecisionRecord, ComplianceOutcome } from "../../ports/compliance-log";
import type { PgDatabase } from "./pool";

interface Row {
  id: number;
  at: number;
  purpose: ComplianceDecision["purpose"];
  network: Network | null;
  address: string;
  outcome: ComplianceOutcome;
  list_version: string | null;
  expires_at: number | null;
  detail: string | null;
}

const COLUMNS = "id, at, purpose, network, address, outcome, list_version, expires_at, detail";

export class PgComplianceLog implements ComplianceLog {
  constructor(private readonly db: PgDatabase) {}

  async record(d: ComplianceDecision): Promise<void> {
    await this.db.query(
      "INSERT INTO compliance_decisions (at, purpose, network, address, outcome, list_version, expires_at, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
      [d.at, d.purpose, d.network, d.address, d.outcome, d.listVersion, d.expiresAt, d.detail],
    );
  }

  async recent(limit: number, address?: string): Promise<ComplianceDecisionRecord[]> {
    const rows = address
      ? await this.db.query<Row>(`SELECT ${COLUMNS} FROM compliance_decisions WHERE address = $1 ORDER BY id DESC LIMIT $2`, [address, limit])
      : await this.db.query<Row>(`SELECT ${COLUMNS} FROM compliance_decisions ORDER BY id DESC LIMIT $1`, [limit]);
    return rows.map((r) => ({
      id: r.id,
      at: r.at,
      purpose: r.purpose,
      network: r.network,
      address: r.address,
      outcome: r.outcome,
      listVersion: r.list_version,
      expiresAt: r.expires_at,
      detail: r.detail,
    }));
  }
}
