import type { Network } from "../../src-shared/networks";
import type { RelayState } from "../core/relay/states";
import type { SubmissionAttempt } from "./chain";

export interface NewRelayRecord {
  id: string;
  kind: "relay" | "swap";
  network: Network;
  mint: string;
  outputMint: string | null;
  recipient: string;
  nullifierHash: string;
  /** The part of the note withdrawn (protocol v3; before v3, the whole note). */
  depositSize: bigint;
  /**
   * The change leaf the withdrawal inserts (protocol v3), as hex; null on
   * records written before v3.
   */
  changeCommitment: string | null;
  fee: bigint;
  /**
   * The terms the proof was checked against (protocol v2, extDataHash): the
   * key that signed and received the fee, and a swap's minimum output. Null
   * on records written before v2.
   */
  relayer: string | null;
  minOut: bigint | null;
  receivedAt: number;
  /** The relay instance that took the nullifier's lock (Coordination.instanceId): while it lives, only it sends. */
  holder: string;
}

/** relay_swap only: the quote taken when the request arrived, and what the swap delivered. */
export interface SwapRecord {
  venue: "sandbox" | "jupiter";
  /** Unix ms the quote was taken. */
  quotedAt: number;
  /** depositSize − fee: what was swapped. */
  inAmount: bigint;
  quotedOut: bigint;
  priceImpactPct: number;
  /** The pair's allowed slippage, and the least output it allows. */
  slippageBps: number;
  minOut: bigint;
  /** What the swap delivered, or (refused SlippageExceeded) would have; null before execution or when unknown. */
  executedOut: bigint | null;
  /** (quotedOut − executedOut) / quotedOut in bps, two decimals; negative when execution beat the quote. */
  slippageSeenBps: number | null;
}

export interface RelayRecord extends Omit<NewRelayRecord, "holder"> {
  /** Null on records written before instances were recorded. */
  holder: string | null;
  status: RelayState["kind"];
  error: string | null;
  signature: string | null;
  /** Every state reached, with its time: the console's pipeline view. */
  steps: RelayState[];
  /** Set on relay_swap records once quoted; absent where a reader does not load it. */
  swap?: SwapRecord | null;
  /** Each signed transaction the chain backend sent, latest verdict per attempt (empty on the sandbox). */
  attempts: SubmissionAttempt[];
  /** Lamports the landed transaction paid (base + priority); null until known. */
  networkFeeLamports: bigint | null;
  /** Where the change leaf went (protocol v3); null until the withdrawal landed, and on records before v3. */
  changeLeafIndex: number | null;
}

/** Relay records for the console; no client address is ever stored beside them. */
export interface RelayStore {
  /**
   * The nullifier's lock: "locked" (and nothing written) while another record of the same
   * network, mint and nullifierHash has not failed. Durable before it resolves: a relay is
   * recorded before it is submitted.
   */
  create(record: NewRelayRecord, first: RelayState): Promise<"created" | "locked">;
  /** A record with a verdict (confirmed or failed) keeps it: advancing it writes nothing. */
  advance(id: string, state: RelayState): Promise<void>;
  /** relay_swap: records the quote, then again with the executed output. */
  recordSwap(id: string, swap: SwapRecord): Promise<void>;
  /**
   * Durable before it resolves: an attempt is on record (signature included) before it is sent.
   * False, and nothing written, once the record has a verdict: the attempt must not be sent.
   */
  recordAttempt(id: string, attempt: SubmissionAttempt): Promise<boolean>;
  get(id: string): Promise<RelayRecord | null>;
  /** Records without a verdict (neither confirmed nor failed): what a crash left in flight. */
  unfinished(): Promise<RelayRecord[]>;
  recent(limit: number): Promise<RelayRecord[]>;
}
