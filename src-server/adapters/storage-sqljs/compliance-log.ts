import type { Network } from "../../../src-shared/networks";
import type { ComplianceDecision, ComplianceDecisionRecord, ComplianceLog, ComplianceOutcome } from "../../ports/compliance-log";
import type { DurableDb } from "./durable-db";

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

export class SqlComplianceLog implements ComplianceLog {
  constructor(private readonly db: DurableDb) {}

  async record(d: ComplianceDecision): Promise<void> {
    await this.db.write([
      {
        sql: "INSERT INTO compliance_decisions (at, purpose, network, address, outcome, list_version, expires_at, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        params: [d.at, d.purpose, d.network, d.address, d.outcome, d.listVersion, d.expiresAt, d.detail],
      },
    ]);
  }

  async recent(limit: number, address?: string): Promise<ComplianceDecisionRecord[]> {
    const rows = address
      ? this.db.all<Row>(`SELECT ${COLUMNS} FROM compliance_decisions WHERE address = ? ORDER BY id DESC LIMIT ?`, [address, limit])
      : this.db.all<Row>(`SELECT ${COLUMNS} FROM compliance_decisions ORDER BY id DESC LIMIT ?`, [limit]);
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
