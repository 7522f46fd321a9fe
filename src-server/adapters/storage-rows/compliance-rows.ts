/**
 * compliance_decisions as both storage engines (storage-sqljs, storage-pg) read and write it:
 * the same columns and the same JS types (PostgreSQL's int8 is parsed to number by the pool).
 */
import type { Network } from "../../../src-shared/networks";
import type { ComplianceDecision, ComplianceDecisionRecord, ComplianceOutcome } from "../../ports/compliance-log";

export interface ComplianceRow {
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

export const COMPLIANCE_COLUMNS = "id, at, purpose, network, address, outcome, list_version, expires_at, detail";

/** A decision's values for (at, purpose, network, address, outcome, list_version, expires_at, detail), in that order. */
export const complianceParams = (
  d: ComplianceDecision,
): [number, ComplianceDecision["purpose"], Network | null, string, ComplianceOutcome, string | null, number | null, string | null] => [
  d.at,
  d.purpose,
  d.network,
  d.address,
  d.outcome,
  d.listVersion,
  d.expiresAt,
  d.detail,
];

export const toComplianceRecord = (r: ComplianceRow): ComplianceDecisionRecord => ({
  id: r.id,
  at: r.at,
  purpose: r.purpose,
  network: r.network,
  address: r.address,
  outcome: r.outcome,
  listVersion: r.list_version,
  expiresAt: r.expires_at,
  detail: r.detail,
});
