/** The wallet developer's SDK for the Private Withdrawal Relay (docs/sdk.md). */
export {
  ClientError,
  RelayClient,
  TREE_DEPTH,
  amountToWire,
  failureFrom,
  parseRetryAfter,
  relayFee,
  type Amount,
  type ApiFailure,
  type ApiResult,
  type ApiSuccess,
  type LoginRequest,
  type RelayClientOptions,
  type RetryOn429,
  type RevertRequest,
  type SandboxAirdropRequest,
  type SandboxDepositRequest,
  type SandboxSwapPoolRequest,
  type SwapQuoteRequest,
  type SwapWithdrawalRequest,
  type WithdrawalRequest,
} from "./http";
export type {
  CompliancePublicKey,
  FeeSchedule,
  FeeSetting,
  HealthAnswer,
  HealthCheck,
  HealthDetail,
  MerkleNode,
  MerkleProof,
  MerkleState,
  NullifierStatus,
  OfacSignature,
  RelaySuccess,
  SandboxDepositAnswer,
  SwapQuote,
  SwapRouteStep,
} from "./wire";
export { Keypair, readKeypairFile, writeKeypairFile, type WalletSigner, type WriteKeypairOptions } from "./keypair";
export { login, type LoginOptions } from "./login";
export {
  MAX_AMOUNT,
  NOTE_KIND,
  NOTE_VERSION,
  NoteSecrets,
  createNote,
  describeNote,
  loadNote,
  noteCommitment,
  nullifierHashOf,
  parseNote,
  publicKeyField,
  randomFieldElement,
  saveNote,
  serializeNote,
  withDeposit,
  type CommitmentInputs,
  type CreateNoteOptions,
  type DepositNote,
  type NoteDeposit,
  type NoteSummary,
  type RandomSource,
} from "./note";
export { depositAndSaveNote, sandboxDeposit, type DepositError } from "./deposit";
export {
  getMerkle,
  getNoteNullifier,
  getNoteProof,
  leafIndexBits,
  rootFromPath,
  type NoteProofError,
  type NoteProofOptions,
  type VerifiedNoteProof,
} from "./tree";
export {
  DEFAULT_ARTIFACTS,
  buildWithdrawalInput,
  proveWithdrawal,
  snarkjsProver,
  verifyWithdrawalProof,
  withdrawalPublicSignals,
  type MerklePathInput,
  type ProveError,
  type ProveOptions,
  type Prover,
  type WithdrawWitnessInput,
  type WithdrawalProof,
  type WithdrawalStatement,
} from "./prove";
export {
  COMPLIANCE_VALIDITY_SEC,
  complianceMessage,
  getComplianceSignature,
  parseComplianceSignature,
  verifyComplianceSignature,
  type ComplianceCheckFailure,
  type ComplianceCheckInput,
  type ComplianceSignatureError,
  type ComplianceSignatureOptions,
  type ComplianceSignatureResult,
} from "./compliance";
export { revertDeposit, type RevertError } from "./revert";
export { quoteSwap, withdraw, type WithdrawError, type WithdrawOptions, type WithdrawResult, type WithdrawStage } from "./withdraw";
export { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
export type { FieldHasher } from "../../src-shared/crypto/hasher";
export type { Network } from "../../src-shared/networks";
