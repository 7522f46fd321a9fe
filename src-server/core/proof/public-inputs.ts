/**
 * The relay recomputes all seven public signals itself (protocol v3): root,
 * nullifierHash, recipient, amount (the part withdrawn), mint and
 * changeCommitment from the request, and extDataHash from its own key, the fee
 * it charges and, for a swap, output_mint and minOut. A client's own public
 * inputs are never trusted.
 */
export { pubkeyToField } from "../../../src-shared/crypto/pubkey-field";
export {
  computeExtDataHash,
  withdrawalPublicSignals,
  PROTOCOL_VERSION,
  PUBLIC_SIGNAL_COUNT,
  type RelayTerms,
  type WithdrawalStatement,
} from "../../../src-shared/crypto/protocol";
