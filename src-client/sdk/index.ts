/** The wallet developer's SDK for the Private Withdrawal Relay (docs/sdk.md). */
export { ClientError, type ApiFailure, type ApiResult, type ApiSuccess } from "./api-result";
export { relayFee } from "./fees";
export { RelayClient, type RelayClientOptions } from "./http";
export {
  TREE_DEPTH,
  amountToWire,
  u64ToWire,
  type Amount,
  type LoginRequest,
  type RevertRequest,
  type SandboxAirdropRequest,
  type SandboxDepositRequest,
  type SandboxSwapPoolRequest,
  type SwapQuoteRequest,
  type SwapWithdrawalRequest,
  type WithdrawalRequest,
} from "./requests";
export { failureFrom, parseRetryAfter, type RetryOn429 } from "./transport";
export type {
  CompliancePublicKey,
  FeeSchedule,
  FeeSetting,
  HealthAnswer,
  HealthCheck,
  HealthDetail,
  RelayNetwork,
  MerkleNode,
  MerkleProof,
  MerkleState,
  NullifierStatus,
  OfacSignature,
  RelaySuccess,
  SandboxDepositAnswer,
  SwapQuote,
  SwapRouteStep,
} from "../../src-shared/api/public";
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
  notePrecommitment,
  nullifierHashOf,
  parseNote,
  publicKeyField,
  randomFieldElement,
  saveNote,
  serializeNote,
  withDeposit,
  withLeafIndex,
  changeNoteOf,
  nextSecrets,
  noteLeafIndex,
  noteOrigin,
  noteOriginal,
  notePiece,
  type CommitmentInputs,
  type CreateNoteOptions,
  type DepositNote,
  type NoteChange,
  type NoteDeposit,
  type NoteOriginal,
  type NoteSummary,
  type PendingPiece,
  type RandomSource,
} from "./note";
export { depositAndSaveNote, isLeafMismatch, sandboxDeposit, type DepositError, type LeafMismatchFailure } from "./deposit";
export {
  DEPOSIT_COMPUTE_UNIT_LIMIT,
  chainDeposit,
  chainDepositAndSaveNote,
  movedNothing,
  type ChainDepositAnswer,
  type ChainDepositError,
  type ChainDepositFailure,
  type ChainDepositOptions,
  type ChainDepositStage,
} from "./chain-deposit";
export {
  chainConnection,
  createTestSwapPool,
  lamportsOf,
  mintTestTokens,
  parseRpcUrl,
  requestSol,
  rpcCall,
  tokenBalanceOf,
  waitForSignature,
  type RpcCallError,
  type SignatureOutcome,
  type TestSwapPool,
  type WaitOptions,
} from "./chain";
export {
  getMerkle,
  getNoteNullifier,
  getNoteProof,
  leafIndexBits,
  pathFromLeaves,
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
  type ProveWithdrawalOptions,
  type Prover,
  type WithdrawWitnessInput,
  type WithdrawalProof,
  type WithdrawalStatement,
  type WithdrawalTerms,
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
export {
  DEFAULT_DECOYS,
  anonymitySet,
  chainNoteProof,
  chainNullifierStatus,
  decoyLeafSet,
  decoyNullifierSet,
  decoySeed,
  eligibleLeaves,
  noteSource,
  poolHistoryOf,
  type NoteLookup,
  type NoteSource,
  type NoteSourceOptions,
} from "./lookup";
export { separateConnectionFetch } from "./separate-connection";
export { readPoolHistory, type PoolHistory, type PoolLeaf, type PoolWithdrawal } from "./chain-history";
export {
  candidateChangeLeaves,
  chainLedger,
  followChain,
  relayLedger,
  resolveNote,
  type FollowError,
  type FollowResult,
  type FollowedPiece,
  type FoundWithdrawal,
  type NoteLedger,
  type ResolvedNote,
} from "./follow";
export {
  defaultStandardFloor,
  describePlan,
  planWithdrawal,
  withdrawInPieces,
  type PiecesError,
  type PiecesOptions,
  type PiecesResult,
  type PlanInput,
  type PlannedPiece,
  type WithdrawalPlan,
} from "./pieces";
export { revertDeposit, type RevertError } from "./revert";
export {
  quoteSwap,
  relayTermsNow,
  withdraw,
  type RelayTermsNow,
  type WithdrawError,
  type WithdrawOptions,
  type WithdrawResult,
  type WithdrawStage,
} from "./withdraw";
export { PUBLIC_SIGNAL_NAMES, computeExtDataHash, computeLeaf, computePrecommitment } from "../../src-shared/crypto/protocol";
export { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
export type { FieldHasher } from "../../src-shared/crypto/hasher";
export type { Network } from "../../src-shared/networks";
