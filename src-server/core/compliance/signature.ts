import { COMPLIANCE_VALIDITY_SEC, formatComplianceSignature } from "../../../src-shared/compliance";
import { complianceMessage } from "../../../src-shared/messages";
import type { Network } from "../../../src-shared/networks";

export interface ComplianceSignature {
  /** The plain-text answer: `<expiresAtUnix>.<base58 signature>`. */
  body: string;
  expiresAt: number;
  /** The signed text, `OFAC:<network>:<wallet>:<expiresAtUnix>`. */
  message: string;
}

/**
 * The compliance signature for a wallet that passed screening: ed25519 over
 * `OFAC:<network>:<wallet>:<expiresAtUnix>`, answered as
 * `<expiresAtUnix>.<base58 signature>`, valid 120 s. The
 * key is passed in as a signing function, so this stays pure.
 */
export function signCompliance(
  sign: (message: string) => Uint8Array,
  network: Network,
  wallet: string,
  nowSec: number,
  validitySec: number = COMPLIANCE_VALIDITY_SEC,
): ComplianceSignature {
  const expiresAt = nowSec + validitySec;
  const message = complianceMessage(network, wallet, expiresAt);
  return { body: formatComplianceSignature(expiresAt, sign(message)), expiresAt, message };
}
