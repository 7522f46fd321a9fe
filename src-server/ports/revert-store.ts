import type { Network } from "../../src-shared/networks";
import type { RevertState } from "../core/revert/states";

export interface NewRevertRecord {
  id: string;
  network: Network;
  /** The path's txn_sig (cut to 128 characters). */
  depositSignature: string;
  /** The wallet of the auth token: who asked. */
  wallet: string;
  requestedAt: number;
}

export interface RevertRecord extends NewRevertRecord {
  status: RevertState["kind"];
  /** The spec's error name when it failed. */
  error: string | null;
  /** The revert transaction's signature once processed. */
  signature: string | null;
  mint: string | null;
  amount: bigint | null;
  steps: RevertState[];
}

/** Revert requests for the console's support queue. */
export interface RevertStore {
  /** Durable before it resolves: a revert is recorded before it is submitted. */
  create(record: NewRevertRecord, first: RevertState): Promise<void>;
  /** `deposit` fills in what the revert is about once the deposit was found. */
  advance(id: string, state: RevertState, deposit?: { mint: string; amount: bigint }): Promise<void>;
  get(id: string): Promise<RevertRecord | null>;
  recent(limit: number): Promise<RevertRecord[]>;
  /**
   * When (requestedAt, Unix ms, ascending) the wallet's reverts requested since `sinceMs` that
   * paid out or are being sent (status processed or submitted) were asked for: its revert quota.
   * Sees a submission the moment advance() is called (before it is durable).
   */
  paidOrSentSince(wallet: string, sinceMs: number): Promise<number[]>;
  /**
   * Deposits paid back by reverts (status processed), per network and mint: funds that
   * reached the vault but never a leaf, and left it again (the console's Money page).
   */
  paidBack(): Promise<{ network: Network; mint: string; reverts: number; amount: bigint }[]>;
}
