import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Network } from "../../../src-shared/networks";
import type { Coordination, FollowerLease, InstanceInfo } from "../../ports/coordination";

/**
 * One process owns a sql.js data dir (data-dir-lock.ts), so it is the only instance and
 * the leader of every network it follows: its lease is always epoch 1 and never taken away.
 */
export class SqlCoordination implements Coordination {
  readonly instanceId = randomUUID();
  private readonly startedAt: number;
  private heartbeatAt: number;
  private readonly led = new Map<Network, number>();

  constructor(
    private readonly version: string,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = this.heartbeatAt = now();
  }

  heartbeat(): Promise<void> {
    this.heartbeatAt = this.now();
    return Promise.resolve();
  }

  instances(): Promise<InstanceInfo[]> {
    const self = { id: this.instanceId, host: hostname(), pid: process.pid, version: this.version, startedAt: this.startedAt, heartbeatAt: this.heartbeatAt };
    return Promise.resolve([self]);
  }

  lead(network: Network, leaseMs: number): Promise<{ epoch: number; leaseUntil: number }> {
    const leaseUntil = this.now() + leaseMs;
    this.led.set(network, leaseUntil);
    return Promise.resolve({ epoch: 1, leaseUntil });
  }

  release(network: Network): Promise<void> {
    this.led.delete(network);
    return Promise.resolve();
  }

  /** One instance: nothing to agree with but itself (its own keys are in its data dir). */
  claim(_name: string, value: string): Promise<{ value: string; by: string }> {
    return Promise.resolve({ value, by: this.instanceId });
  }

  leases(): Promise<FollowerLease[]> {
    return Promise.resolve([...this.led].map(([network, leaseUntil]) => ({ network, holder: this.instanceId, epoch: 1, leaseUntil })));
  }

  close(): Promise<void> {
    this.led.clear();
    return Promise.resolve();
  }
}
