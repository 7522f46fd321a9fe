import { toHex } from "./encoding/bytes";
import type { Network } from "./networks";

/** The text a wallet signs to log in: the decimal Unix time (spec, Authentication). */
export const loginMessage = (unixSeconds: number): string => String(unixSeconds);

/**
 * The text a depositor signs for a sandbox deposit (protocol v2):
 * `Deposit: <network> <mint> <amount> <precommitment as 64 lowercase hex>`. The
 * depositor signs its precommitment, never a leaf: the pool computes the leaf.
 */
export const sandboxDepositMessage = (network: Network, mint: string, amount: bigint | number, precommitment: Uint8Array): string =>
  `Deposit: ${network} ${mint} ${amount} ${toHex(precommitment)}`;

/** The text a depositor signs to revert a failed deposit (spec, Revert request). */
export const revertMessage = (depositSignature: string): string => `Revert deposit: ${depositSignature}`;

/**
 * The text the relay's compliance key signs, valid 120 s: the network, the
 * screened wallet and the Unix second the signature stops being valid.
 */
export const complianceMessage = (network: Network, wallet: string, expiresAtUnix: number): string => `OFAC:${network}:${wallet}:${expiresAtUnix}`;

/** How /compliance/public_key describes the signed text. */
export const COMPLIANCE_MESSAGE_TEMPLATE = "OFAC:<network>:<wallet>:<expiresAtUnix>";
