import type { HealthCheck } from "../../src-shared/api/public";
import type { RpcEndpointStatus } from "../../src-shared/api/admin";
import type { Network } from "../../src-shared/networks";
import type { DepositStatus } from "../core/revert/rules";
import type { SwapQuote } from "../core/swap/quote";
import type { SubmissionAttempt } from "../../src-shared/submission-attempt";

export type { SubmissionAttempt };

/**
 * A leaf the pool inserted (protocol v3): a deposit's leaf (the program
 * computed it from the amount it received), or the change leaf every
 * withdrawal inserts (taken from the withdraw/withdraw_swap instruction's
 * data, never from logs alone).
 */
export type LeafEvent = DepositLeafEvent | ChangeLeafEvent;

interface LeafEventBase {
  signature: string;
  leafIndex: number;
  commitment: Uint8Array;
  slot: number;
}

export interface DepositLeafEvent extends LeafEventBase {
  kind: "deposit";
  depositor: string;
  /** What the vault received: the deposit note's value (public). */
  amount: bigint;
}

export interface ChangeLeafEvent extends LeafEventBase {
  kind: "change";
  /** The withdrawal that inserted it (its nullifierHash); the change note's value is private. */
  nullifierHash: Uint8Array;
}

export interface LeafEventPage {
  /** In leaf order. */
  events: LeafEvent[];
  /** Resume point after the last event returned; unchanged when there were none. */
  cursor: string | null;
  /**
   * Gaps in the chain's events this page filled from chain state (a deposit's
   * receipt, a change leaf placed by order), one line per transaction: the
   * indexer reports them.
   */
  repairs?: string[];
}

export interface TreeAccount {
  root: Uint8Array;
  nextIndex: number;
}

export interface WithdrawalSubmission {
  mint: string;
  mintBytes: Uint8Array;
  recipient: string;
  root: Uint8Array;
  nullifierHash: Uint8Array;
  proof: Uint8Array;
  /** The part of the note withdrawn (protocol v3: the note's value is private). */
  depositSize: bigint;
  /** The change leaf the withdrawal inserts (the seventh public input; checked non-zero and canonical). */
  changeCommitment: Uint8Array;
  /**
   * Paid to this chain's `feePayer` (the relayer), bound by the proof through
   * extDataHash: the chain recomputes every public signal from its own signer
   * and these fields, as the pool program does, and never takes them from the relay.
   */
  fee: bigint;
  /**
   * relay_swap: depositSize − fee is swapped into `outputMint` for the
   * recipient in the same transaction; the fee stays in the input mint.
   */
  swap?: SwapLeg;
}

export interface SwapLeg {
  outputMint: string;
  /** The quote taken when the request arrived (a Jupiter quote goes back to swap-instructions verbatim). */
  quote: SwapQuote;
  /**
   * The request's minOut, bound by the proof (extDataHash): the recipient
   * receives at least this much of outputMint or the whole withdrawal fails.
   */
  minOut: bigint;
}

/**
 * Why the chain refused a withdrawal. `Failed` is a definitive "did not land"
 * for any other reason; the relay maps these to the spec's errors. The swap
 * refusals apply to a withdrawal with a swap leg.
 */
export type ChainRejection =
  | "NullifierAlreadySpent"
  | "InvalidRoot"
  | "InvalidProof"
  | "Failed"
  | "SlippageExceeded"
  | "InsufficientLiquidity"
  | "SwapFailed"
  /** Refused before sending: the network cost would exceed what the relay fee covers. */
  | "Unprofitable"
  /**
   * No definitive verdict could be reached (the RPC stayed unreachable past the
   * blockhash's life): the transaction may still land, so the relay keeps the
   * nullifier locked and reconciles later.
   */
  | "Unknown";

/** Receives each attempt of a submission (durably recorded by the relay). */
export interface SubmissionObserver {
  /**
   * False when the relay refuses the attempt (its record already has a verdict, e.g. another
   * instance resolved it while this one was paused): a pending attempt refused is never sent.
   */
  attempt(a: SubmissionAttempt): Promise<boolean>;
  /**
   * The withdrawal landed and whoever follows this chain can read it now, before the chain has made
   * it final (the sandbox: applied in memory, its ledger write not yet fsynced). The relay starts
   * indexing the change leaf then, so that write shares the ledger's flush of the journal. A backend
   * whose chain is elsewhere need not call it.
   */
  applied?(): void;
}

/**
 * `outAmount`: what the swap leg delivered, or (SlippageExceeded) would have delivered.
 * `changeLeafIndex`: where the withdrawal's change leaf went (from the landed
 * transaction's WithdrawEvent or the ledger); null only when the chain could not tell.
 */
export type SubmitResult =
  | { ok: true; signature: string; changeLeafIndex: number | null; outAmount?: bigint }
  | { ok: false; rejection: ChainRejection; detail: string; outAmount?: bigint };

/** A deposit transaction as the pool program recorded it. */
export interface DepositRecord {
  signature: string;
  mint: string;
  amount: bigint;
  depositor: string;
  status: DepositStatus;
  /** Unix seconds. */
  createdAt: number;
}

export interface RevertSubmission {
  depositSignature: string;
  /** The wallet that asked (and signed): the program pays the deposit back to it only if it is the depositor. */
  depositor: string;
}

/** Why the chain refused a revert; `Failed` is a definitive "did not land" for any other reason. */
export type RevertRejection = "DepositNotFound" | "NotDepositor" | "AlreadyIndexed" | "DepositPending" | "NullifierSpent" | "Failed" | "Unknown";

export type RevertResult = { ok: true; signature: string; amount: bigint; mint: string } | { ok: false; rejection: RevertRejection; detail: string };

/** One named check of a health report: the adapters answer it as declared in src-shared/api/public.ts. */
export type { HealthCheck };

/**
 * A network's chain as the relay sees it. The sandbox ledger and the Solana
 * RPC backend both implement this, so the indexer cannot tell them apart.
 */
export interface ChainBackend {
  readonly network: Network;
  readonly kind: "sandbox" | "solana";
  /** Address that signs and pays for this network's transactions (and receives relay fees). */
  readonly feePayer: string;
  /** Mints that have an initialized pool on chain. */
  listPools(): Promise<string[]>;
  /**
   * Deposit and change leaves after `cursor`, in leaf order. `nextIndex`: the
   * caller's next leaf index at `cursor` (the indexer's own tree), which places
   * a leaf whose event is missing.
   */
  fetchLeafEvents(mint: string, cursor: string | null, limit: number, nextIndex?: number): Promise<LeafEventPage>;
  /** The program's tree account: what the indexer's root must equal. */
  treeAccount(mint: string): Promise<TreeAccount | null>;
  isNullifierSpent(mint: string, nullifierHash: Uint8Array): Promise<boolean>;
  /**
   * The chain's block height, which a transaction's lastValidBlockHeight is compared with: once
   * past it, the transaction can no longer land. Null on a chain without expiry (the sandbox,
   * whose submissions are synchronous: nothing is in flight once one returned).
   */
  blockHeight(): Promise<number | null>;
  /**
   * The signature of the transaction that spent the nullifier (created its
   * account), or null while it is unspent. Reconciles relays a crash
   * interrupted between submission and verdict.
   */
  spentBy(mint: string, nullifierHash: Uint8Array): Promise<string | null>;
  /** Submits a verified withdrawal and waits for a definitive verdict. */
  submitWithdrawal(w: WithdrawalSubmission, observer?: SubmissionObserver): Promise<SubmitResult>;
  /** The deposit made by this transaction, or null when the chain has none. */
  findDeposit(signature: string): Promise<DepositRecord | null>;
  /**
   * The revert instruction: re-checks the deposit's rules and, atomically,
   * pays the deposit back from the vault to its depositor and spends the
   * deposit's revert-nullifier (core/revert/nullifier.ts). Of two racing
   * reverts exactly one lands; the other is refused NullifierSpent.
   */
  revertDeposit(r: RevertSubmission): Promise<RevertResult>;
  health(): Promise<HealthCheck[]>;
  /** A backend on RPC endpoints: each endpoint's state (URLs as origins only). */
  rpcEndpoints?(): RpcEndpointStatus[];
  /** A backend whose fee payer pays network fees: its balance in lamports. */
  feePayerLamports?(): Promise<bigint>;
}
