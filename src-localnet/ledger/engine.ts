/**
 * What the ledger (timeline, status cache, history) asks of the runtime that
 * holds the accounts and executes transactions: LiteSVM (svm.ts).
 */
import type { AccountState } from "./account";
import type { TransactionErrorJson } from "./errors";

export type { AccountState };
import type { DecodedTransaction, ResolvedAccounts } from "./transaction";

export interface InnerInstructionsJson {
  index: number;
  instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight: number | null }[];
}

export interface ReturnDataJson {
  programId: string;
  data: [string, "base64"];
}

export interface ExecutionContext {
  slot: number;
  unixTime: number;
}

export interface ExecutionReport {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: number;
  innerInstructions: InnerInstructionsJson[];
  returnData: ReturnDataJson | null;
}

export type EngineExecution =
  /** Dropped before any fee was charged: nothing changed. */
  | { landed: false; err: TransactionErrorJson }
  /** Committed: its effects, or only its fee when err is set. `changed` lists the accounts that may have changed. */
  | ({ landed: true; fee: bigint; changed: string[] } & ExecutionReport);

export interface EngineSimulation extends ExecutionReport {
  /** State of the requested addresses after the simulation, or null (not requested, or the transaction never ran). */
  accounts: (AccountState | null)[] | null;
}

export interface LedgerEngine {
  readonly kind: "svm" | "ts";
  /** Programs this engine added (by id). */
  readonly programIds: string[];
  /** A copy of an account (null when absent or at zero lamports). */
  getAccount(address: string): AccountState | null;
  getBalance(address: string): bigint;
  /** Writes an account; null or zero lamports deletes it. */
  setAccount(address: string, account: AccountState | null): void;
  accountsOwnedBy(owner: string): [string, AccountState][];
  rentExempt(size: number): bigint;
  verifySignatures(tx: DecodedTransaction): boolean;
  /** Executes and commits (a failed transaction that landed commits only its fee). */
  execute(tx: DecodedTransaction, accounts: ResolvedAccounts, ctx: ExecutionContext): Promise<EngineExecution>;
  simulate(tx: DecodedTransaction, accounts: ResolvedAccounts, ctx: ExecutionContext & { sigverify: boolean; addresses?: string[] }): Promise<EngineSimulation>;
  snapshotState(): unknown;
  restoreState(state: unknown): void;
}
