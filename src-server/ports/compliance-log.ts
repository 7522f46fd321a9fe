import type { Network } from "../../src-shared/networks";

/**
 * Outcomes: a compliance signature `issued` or `refused` (listed), or an
 * `error` (no list to consult); a relay recipient screened `clear` or `listed`.
 */
export type ComplianceOutcome = "issued" | "refused" | "error" | "clear" | "listed";

export interface ComplianceDecision {
  /** Unix ms. */
  at: number;
  purpose: "ofac_signature" | "relay_recipient";
  network: Network | null;
  /** The screened address: the token's wallet, or a relay's recipient. */
  address: string;
  outcome: ComplianceOutcome;
  /** The effective list version that decided; null when no list could be consulted. */
  listVersion: string | null;
  /** Unix seconds the issued signature expires. */
  expiresAt: number | null;
  detail: string | null;
}

export interface ComplianceDecisionRecord extends ComplianceDecision {
  id: number;
}

/**
 * Screening decisions kept for the console: every relay recipient screened (only after
 * its proof verified) and every refused compliance signature; issued signatures and list
 * errors only with config compliance.auditLog (otherwise they are counted:
 * ComplianceService.signatureCounts).
 */
export interface ComplianceLog {
  /** Durable before it resolves. */
  record(d: ComplianceDecision): Promise<void>;
  recent(limit: number, address?: string): Promise<ComplianceDecisionRecord[]>;
}
