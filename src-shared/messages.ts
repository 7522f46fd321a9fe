import { toHex } from "./encoding/bytes";
import type { Network } from "./networks";

/** The text a wallet signs to log in: the decimal Unix time (spec, Authentication). */
export const loginMessage = (unixSeconds: number): string => String(unixSeconds);

/** The text a depositor signs for a sandbox deposit (DESIGN.md §6). */
export const sandboxDepositMessage = (network: Network, mint: string, amount: bigint | number, commitment: Uint8Array): string =>
  `Deposit: ${network} ${mint} ${amount} ${toHex(commitment)}`;

/** The text a depositor signs to revert a failed deposit (spec, Revert request). */
export const revertMessage = (depositSignature: string): string => `Revert deposit: ${depositSignature}`;
