import type { ComplianceLog, ComplianceDecision, ComplianceDecisionRecord } from "../../ports/compliance-log";
import type { PgDatabase } from "./pool";
import { COMPLIANCE_COLUMNS, complianceParams, toComplianceRecord, type ComplianceRow } from "../storage-rows/compliance-rows";

export class PgComplianceLog implements ComplianceLog {
  constructor(private readonly db: PgDatabase) {}

  async record(d: ComplianceDecision): Promise<void> {
    await this.db.query(
      "INSERT INTO compliance_decisions (at, purpose, network, address, outcome, list_version, expires_at, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
      complianceParams(d),
    );
  }

  async recent(limit: number, address?: string): Promise<ComplianceDecisionRecord[]> {
    const rows = address
      ? await this.db.query<ComplianceRow>(`SELECT ${COMPLIANCE_COLUMNS} FROM compliance_decisions WHERE address = $1 ORDER BY id DESC LIMIT $2`, [
          address,
          limit,
        ])
      : await this.db.query<ComplianceRow>(`SELECT ${COMPLIANCE_COLUMNS} FROM compliance_decisions ORDER BY id DESC LIMIT $1`, [limit]);
    return rows.map(toComplianceRecord);
  }
}
