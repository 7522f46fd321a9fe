import type { ComplianceDecision, ComplianceDecisionRecord, ComplianceLog } from "../../ports/compliance-log";
import type { DurableDb } from "./durable-db";
import { COMPLIANCE_COLUMNS, complianceParams, toComplianceRecord, type ComplianceRow } from "../storage-rows/compliance-rows";

export class SqlComplianceLog implements ComplianceLog {
  constructor(private readonly db: DurableDb) {}

  async record(d: ComplianceDecision): Promise<void> {
    await this.db.write([
      {
        sql: "INSERT INTO compliance_decisions (at, purpose, network, address, outcome, list_version, expires_at, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        params: complianceParams(d),
      },
    ]);
  }

  async recent(limit: number, address?: string): Promise<ComplianceDecisionRecord[]> {
    const rows = address
      ? this.db.all<ComplianceRow>(`SELECT ${COMPLIANCE_COLUMNS} FROM compliance_decisions WHERE address = ? ORDER BY id DESC LIMIT ?`, [address, limit])
      : this.db.all<ComplianceRow>(`SELECT ${COMPLIANCE_COLUMNS} FROM compliance_decisions ORDER BY id DESC LIMIT ?`, [limit]);
    return rows.map(toComplianceRecord);
  }
}
