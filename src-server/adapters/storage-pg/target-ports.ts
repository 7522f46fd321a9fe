/**
 * The port shapes of issue 27 (docs: /work/issue27-contract.md §1–§5) that this adapter
 * implements, until the ports themselves carry them: once they do, each type here becomes a
 * re-export from src-server/ports and the stores gain their `implements` clauses.
 */
import type { Network } from "../../../src-shared/networks";
import type { NewRelayRecord, RelayRecord } from "../../ports/relay-store";

/** NewRelayRecord.holder: the instance that created the record (and holds its nullifier's lock). */
export type HeldNewRelayRecord = NewRelayRecord & { holder: string };
export type HeldRelayRecord = RelayRecord & { holder: string };

/** The fencing token a tree write carries. */
export interface Fence {
  network: Network;
  holder: string;
  epoch: number;
}

/** One saved append, for replicas: re-applied in order, each reaches `root` at `nextIndex`. */
export interface StoredAppend {
  /** The tree's size after the append. */
  nextIndex: number;
  root: Uint8Array;
  leaves: StoredAppendLeaf[];
}

export interface StoredAppendLeaf {
  leafIndex: number;
  commitment: Uint8Array;
  kind: "deposit" | "change";
  amount: bigint | null;
  signature: string;
  slot: number;
}

export interface InstanceInfo {
  id: string;
  host: string;
  pid: number;
  version: string;
  startedAt: number;
  heartbeatAt: number;
}

export interface FollowerLease {
  network: Network;
  holder: string;
  epoch: number;
  leaseUntil: number;
}

export interface Coordination {
  readonly instanceId: string;
  heartbeat(): Promise<void>;
  instances(staleMs: number): Promise<InstanceInfo[]>;
  lead(network: Network, leaseMs: number): Promise<{ epoch: number; leaseUntil: number } | null>;
  release(network: Network, epoch: number): Promise<void>;
  leases(): Promise<FollowerLease[]>;
  close(): Promise<void>;
}

export type { LimitCounter, LimitTake } from "../../ports/limit-counter";
