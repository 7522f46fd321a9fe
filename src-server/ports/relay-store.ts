import type { Network } from "../../src-shared/networks";
import type { RelayState } from "../core/relay/states";

export interface NewRelayRecord {
  id: string;
  kind: "relay" | "swap";
  network: Network;
  mint: string;
  outputMint: string | null;
  recipient: string;
  nullifierHash: string;
  depositSize: bigint;
  fee: bigint;
  receivedAt: number;
}

export interface RelayRecord extends NewRelayRecord {
  status: RelayState["kind"];
  error: string | null;
  signature: string | null;
  /** Every state reached, with its time: the console's pipeline view. */
  steps: RelayState[];
}

/** Relay records for the console; no client address is ever stored beside them. */
export interface RelayStore {
  /** Durable before it resolves: a relay is recorded before it is submitted. */
  create(record: NewRelayRecord, first: RelayState): Promise<void>;
  advance(id: string, state: RelayState): Promise<void>;
  get(id: string): RelayRecord | null;
  recent(limit: number): RelayRecord[];
}
