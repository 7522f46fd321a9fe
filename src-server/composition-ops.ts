/**
 * Running unattended (docs/operations.md): metrics, the fee-payer watch and
 * the relay-state event stream, wired here so that composition.ts only hands
 * over what they read. Built before the chains (the RPC failover reports each
 * request), given its sources once everything else exists.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { Router, type RequestHandler } from "express";
import type { Network } from "../src-shared/networks";
import { RelayMetrics, type MetricSources } from "./adapters/metrics-prom/relay-metrics";
import { SNAPSHOT_FILE, type DurableDb } from "./adapters/storage-sqljs/durable-db";
import type { RelayConfig } from "./config/schema";
import { metricsRoutes } from "./http/routes/metrics";
import type { RelayStore } from "./ports/relay-store";
import type { RevertStore } from "./ports/revert-store";
import { FeePayerWatch } from "./services/fee-payer-watch";
import { observeRelayStore, observeRevertStore, type RelayEvent, type RevertEvent } from "./services/relay-events";

export interface OpsSources {
  db: DurableDb;
  verifierQueueDepth(): number;
  indexer: MetricSources["indexer"];
  rpcEndpoints: MetricSources["rpcEndpoints"];
  rateLimits: MetricSources["rateLimits"];
  relayRejections: MetricSources["relayRejections"];
  /** Each network's fee-payer balance reader (null where the network has none to watch). */
  feePayerBalances: ReadonlyMap<Network, () => Promise<bigint | null>>;
}

export class Ops {
  readonly metrics: RelayMetrics;
  private sources: OpsSources | null = null;
  private feePayers: FeePayerWatch | null = null;
  private readonly relayListeners: ((e: RelayEvent) => void)[] = [];
  private readonly revertListeners: ((e: RevertEvent) => void)[] = [];

  constructor(private readonly config: RelayConfig) {
    const need = <T>(f: (s: OpsSources) => T, none: T): T => (this.sources ? f(this.sources) : none);
    this.metrics = new RelayMetrics({
      verifierQueueDepth: () => need((s) => s.verifierQueueDepth(), 0),
      indexer: () => need((s) => s.indexer(), []),
      feePayers: () => this.feePayers?.status() ?? [],
      rpcEndpoints: () => need((s) => s.rpcEndpoints(), []),
      rateLimits: () => need((s) => s.rateLimits(), []),
      relayRejections: () => need((s) => s.relayRejections(), {}),
      store: () =>
        need((s) => {
          let snapshotBytes: number | null = null;
          try {
            snapshotBytes = statSync(path.join(config.dataDir, SNAPSHOT_FILE)).size;
          } catch {
            snapshotBytes = null;
          }
          return { journalBytes: s.db.stats.journalBytes, snapshotBytes, lastSnapshotAt: s.db.stats.lastSnapshotAt };
        }, { journalBytes: 0, snapshotBytes: null, lastSnapshotAt: null }),
    });
    this.relayListeners.push((e) => this.metrics.onRelay(e));
    this.revertListeners.push((e) => this.metrics.onRevert(e));
  }

  /** The RPC failover's per-request report for one network. */
  rpcRequest(network: Network): (endpoint: string, method: string, ms: number, failed: boolean) => void {
    return (endpoint, _method, ms, failed) => this.metrics.onRpcRequest(network, endpoint, ms, failed);
  }

  /** The relay store the relay service writes through: each state it records is an event. */
  relayStore(store: RelayStore): RelayStore {
    return observeRelayStore(store, (e) => {
      for (const l of this.relayListeners) l(e);
    });
  }

  revertStore(store: RevertStore): RevertStore {
    return observeRevertStore(store, (e) => {
      for (const l of this.revertListeners) l(e);
    });
  }

  onRelay(listener: (e: RelayEvent) => void): void {
    this.relayListeners.push(listener);
  }

  onRevert(listener: (e: RevertEvent) => void): void {
    this.revertListeners.push(listener);
  }

  /** Everything metrics read, once it exists; starts the fee-payer watch. */
  attach(sources: OpsSources): void {
    this.sources = sources;
    this.feePayers = new FeePayerWatch(sources.feePayerBalances);
    this.feePayers.start(this.config.metrics.feePayerSampleSec * 1000);
  }

  get feePayerWatch(): FeePayerWatch | null {
    return this.feePayers;
  }

  /** GET /metrics (when enabled). */
  routes(guard: RequestHandler): Router {
    const r = Router();
    if (this.config.metrics.enabled) {
      r.use(metricsRoutes({ text: () => this.metrics.text(), contentType: () => this.metrics.contentType(), guard, loopbackWithoutToken: this.config.metrics.loopbackWithoutToken }));
    }
    return r;
  }

  close(): void {
    this.feePayers?.stop();
  }
}
