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
  health(): Promise<HealthCheck[]>;
}
