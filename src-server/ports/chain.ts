import type { Network } from "../../src-shared/networks";

export interface DepositEvent {
  signature: string;
  leafIndex: number;
  commitment: Uint8Array;
  depositor: string;
  amount: bigint;
  slot: number;
}

export interface DepositEventPage {
  events: DepositEvent[];
  /** Resume point after the last event returned; unchanged when there were none. */
  cursor: string | null;
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
  /** Public signals as the relay recomputed them; the program checks them again. */
  publicSignals: Uint8Array[];
  depositSize: bigint;
  fee: bigint;
}

/**
 * Why the chain refused a withdrawal. `Failed` is a definitive "did not land"
 * for any other reason; the relay maps these to the spec's errors.
 */
export type ChainRejection = "NullifierAlreadySpent" | "InvalidRoot" | "InvalidProof" | "Failed";

export type SubmitResult = { ok: true; signature: string } | { ok: false; rejection: ChainRejection; detail: string };

export interface HealthCheck {
  name: string;
  ok: boolean;
  detail: string;
}

/**
 * A network's chain as the relay sees it. The sandbox ledger and the Solana
 * RPC backend both implement this, so the indexer cannot tell them apart.
 */
export interface ChainBackend {
  readonly network: Network;
  readonly kind: "sandbox" | "solana";
  /** Mints that have an initialized pool on chain. */
  listPools(): Promise<string[]>;
  fetchDepositEvents(mint: string, cursor: string | null, limit: number): Promise<DepositEventPage>;
  /** The program's tree account: what the indexer's root must equal. */
  treeAccount(mint: string): Promise<TreeAccount | null>;
  isNullifierSpent(mint: string, nullifierHash: Uint8Array): Promise<boolean>;
  /** Submits a verified withdrawal and waits for a definitive verdict. */
  submitWithdrawal(w: WithdrawalSubmission): Promise<SubmitResult>;
  health(): Promise<HealthCheck[]>;
}
