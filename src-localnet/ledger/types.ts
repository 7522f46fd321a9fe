/** The ledger's JSON-safe records: commitments, landed transactions, simulations and snapshots. */
import type { AccountState, InnerInstructionsJson, ReturnDataJson } from "./engine";
import type { TransactionErrorJson } from "./errors";
import type { UiTokenAmount } from "./token";
import type { DecodedTransaction } from "./transaction";

export type Commitment = "processed" | "confirmed" | "finalized";
export const COMMITMENTS: readonly Commitment[] = ["processed", "confirmed", "finalized"];

export interface TokenBalanceJson {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: UiTokenAmount;
}

/** A landed transaction (successful, or failed with its fee charged). JSON-safe. */
export interface TransactionRecord {
  signature: string;
  signatures: string[];
  slot: number;
  blockTime: number;
  err: TransactionErrorJson | null;
  fee: number;
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalanceJson[];
  postTokenBalances: TokenBalanceJson[];
  logs: string[];
  unitsConsumed: number;
  innerInstructions: InnerInstructionsJson[];
  returnData: ReturnDataJson | null;
  version: "legacy" | 0;
  /** The message in the RPC's `json` encoding. */
  message: {
    accountKeys: string[];
    header: DecodedTransaction["header"];
    instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight: null }[];
    recentBlockhash: string;
    addressTableLookups?: DecodedTransaction["lookups"];
  };
  loadedAddresses: { writable: string[]; readonly: string[] };
  /** Every account key (static then loaded) and which are writable. */
  accountKeys: string[];
  writable: boolean[];
  /** Micro-lamports per compute unit, decimal. */
  unitPrice: string;
  /** The wire transaction, base64. */
  wire: string;
}

export interface SimulationResult {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: number;
  innerInstructions: InnerInstructionsJson[];
  returnData: ReturnDataJson | null;
  /** Post-simulation state of the requested addresses (null when absent). */
  accounts: (AccountState | null)[] | null;
}

export type SubmitOutcome =
  | { landed: true; record: TransactionRecord }
  /** Not landed and nothing recorded: a real leader drops such a transaction. */
  | { landed: false; err: TransactionErrorJson };

export interface LedgerSnapshot {
  format: "localnet-ledger/2";
  slot: number;
  genesisHash: string;
  blockhashes: [hash: string, slot: number][];
  slotTimes: [slot: number, unixTime: number][];
  /** The engine's accounts (LiteSVM: its whole state, gzipped, base64). */
  state: unknown;
  transactions: TransactionRecord[];
}
