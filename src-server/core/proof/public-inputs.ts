/**
 * The relay recomputes all six public signals itself (protocol v2): root,
 * nullifierHash, recipient, amount, mint from the request, and extDataHash from
 * its own key, the fee it charges and, for a swap, output_mint and minOut. A
 * client's own public inputs are never trusted.
 */
export { pubkeyToField } from "../../../src-shared/crypto/pubkey-field";
export {
  computeExtDataHash,
  withdrawalPublicSignals,
  PUBLIC_SIGNAL_COUNT,
  type RelayTerms,
  type WithdrawalStatement,
} from "../../../src-shared/crypto/protocol";
