import type { Network } from "../../src-shared/networks";

/** A relay instance on the shared store, as its last heartbeat described it. */
export interface InstanceInfo {
  id: string;
  host: string;
  pid: number;
  version: string;
  /** Unix ms. */
  startedAt: number;
  /** Unix ms. */
  heartbeatAt: number;
}

/** Who follows a network's chain (and writes its trees), until when, under which epoch. */
export interface FollowerLease {
  network: Network;
  holder: string;
  epoch: number;
  /** Unix ms. */
  leaseUntil: number;
}

/**
 * The fencing token a tree write carries: the store refuses it (FencedOut, ports/store-errors.ts)
 * unless `holder` still holds `network`'s lease under `epoch`.
 */
export interface Fence {
  network: Network;
  holder: string;
  epoch: number;
}

/** The instances sharing one store, and which of them follows each network's chain. */
export interface Coordination {
  readonly instanceId: string;
  /** Registers/refreshes this instance (every second or so). */
  heartbeat(): Promise<void>;
  /** Instances whose heartbeat is newer than `staleMs`. */
  instances(staleMs: number): Promise<InstanceInfo[]>;
  /** Takes (epoch+1) a free/expired lease, or renews our own (same epoch); null while another holds it. */
  lead(network: Network, leaseMs: number): Promise<{ epoch: number; leaseUntil: number } | null>;
  release(network: Network, epoch: number): Promise<void>;
  /**
   * Records `value` under `name` unless a value is recorded already, and answers the recorded
   * one and the instance that recorded it: what every instance on the store must share (the
   * compliance key, each network's relayer) is checked against the first instance's at start.
   */
  claim(name: string, value: string): Promise<{ value: string; by: string }>;
  leases(): Promise<FollowerLease[]>;
  close(): Promise<void>;
}
