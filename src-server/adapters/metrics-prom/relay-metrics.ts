/**
 * The relay's Prometheus metrics (prom-client), served by GET /metrics
 * (docs/operations.md lists them). Counters move on events (relay and revert
 * state changes, RPC requests); gauges are read from their sources when
 * scraped. Labels never carry a recipient, depositor, nullifier, client
 * address or an RPC URL beyond its origin.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Network } from "../../../src-shared/networks";
import type { FeePayerStatus } from "../../ports/fee-payer-status";
import type { RelayEvent, RevertEvent } from "../../ports/relay-events";
import { HttpRequestTally } from "./http-requests";

/** What is read at scrape time. */
export interface MetricSources {
  verifierQueueDepth(): number;
  indexer(): { network: Network; mint: string; lagDeposits: number; lagSec: number; drift: boolean; lastRootCheckAt: number | null }[];
  feePayers(): FeePayerStatus[];
  rpcEndpoints(): { network: Network; url: string; healthy: boolean; latencyMs: number | null; slotLag: number | null }[];
  rateLimits(): { endpoint: string; hits: number; refusals: number }[];
  /** Relays refused before their proof verified (never stored), since start, per error name. */
  relayRejections(): Record<string, number>;
  store(): { journalBytes: number; snapshotBytes: number | null; lastSnapshotAt: number | null };
  alerts?(): { rule: string; firing: boolean }[];
}

export class RelayMetrics {
  readonly registry = new Registry();
  private readonly relays: Counter<"network" | "kind" | "outcome" | "error">;
  private readonly reverts: Counter<"network" | "outcome" | "error">;
  private readonly complianceSignatures: Counter<"network" | "outcome">;
  private readonly stage: Histogram<"stage">;
  private readonly rpcRequests: Counter<"network" | "endpoint" | "outcome">;
  private readonly rpcLatency: Histogram<"network" | "endpoint">;
  private readonly http = new HttpRequestTally();

  constructor(sources: MetricSources) {
    const r = this.registry;
    collectDefaultMetrics({ register: r, prefix: "relay_" });
    this.relays = new Counter({
      name: "relay_relays_total",
      help: "Relays that reached a verdict, by outcome (confirmed, failed) and error name",
      labelNames: ["network", "kind", "outcome", "error"],
      registers: [r],
    });
    this.reverts = new Counter({
      name: "relay_reverts_total",
      help: "Reverts that reached a verdict, by outcome (processed, failed: in the support queue; refused: turned away unrecorded, the deposit unknown or not the wallet's) and error name",
      labelNames: ["network", "outcome", "error"],
      registers: [r],
    });
    this.complianceSignatures = new Counter({
      name: "relay_compliance_signatures_total",
      help: "Compliance signature requests decided, by outcome (issued, refused: listed wallet, error: no list); stored only with compliance.auditLog, refusals always",
      labelNames: ["network", "outcome"],
      registers: [r],
    });
    this.stage = new Histogram({
      name: "relay_stage_seconds",
      help: "Time a relay spent in each stage: verify (proof check), submit (checks until sent), confirm (sending until the verdict)",
      labelNames: ["stage"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [r],
    });
    this.rpcRequests = new Counter({
      name: "relay_rpc_requests_total",
      help: "Requests to each Solana RPC endpoint (origin only), by outcome (ok, error)",
      labelNames: ["network", "endpoint", "outcome"],
      registers: [r],
    });
    this.rpcLatency = new Histogram({
      name: "relay_rpc_request_seconds",
      help: "Latency of requests to each Solana RPC endpoint",
      labelNames: ["network", "endpoint"],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [r],
    });

    this.http.register(r);

    registerQueueAndIndexerGauges(r, sources);
    registerFeePayerGauges(r, sources);
    registerRpcEndpointGauges(r, sources);
    registerRefusalCounters(r, sources);
    registerStoreAndAlertGauges(r, sources);
  }

  /** A relay state change (services/relay-events.ts). */
  onRelay(e: RelayEvent): void {
    const t = e.times;
    const seconds = (from: number | undefined, to: number | undefined) => (from !== undefined && to !== undefined && to >= from ? (to - from) / 1000 : null);
    if (e.state.kind === "verified") {
      this.stage.observe({ stage: "verify" }, e.state.verifyMs / 1000);
    } else if (e.state.kind === "submitted") {
      const s = seconds(t.verified, e.state.at);
      if (s !== null) this.stage.observe({ stage: "submit" }, s);
    } else if (e.state.kind === "confirmed" || e.state.kind === "failed") {
      const s = seconds(t.submitted, e.state.at);
      if (s !== null) this.stage.observe({ stage: "confirm" }, s);
      this.relays.inc({ network: e.network, kind: e.kind, outcome: e.state.kind, error: e.state.kind === "failed" ? e.state.error : "" });
    }
  }

  onRevert(e: RevertEvent): void {
    if (e.state.kind === "processed" || e.state.kind === "failed") {
      this.reverts.inc({ network: e.network, outcome: e.state.kind, error: e.state.kind === "failed" ? e.state.error : "" });
    }
  }

  /** A revert refused before it became a record (services/revert-service.ts): counted, never stored. */
  onRevertRefused(network: Network, error: string): void {
    this.reverts.inc({ network, outcome: "refused", error });
  }

  /** A compliance signature decision (services/compliance.ts). */
  onComplianceSignature(network: Network, outcome: "issued" | "refused" | "error"): void {
    this.complianceSignatures.inc({ network, outcome });
  }

  /** One request to an RPC endpoint (the failover's onRequest). */
  onRpcRequest(network: Network, endpoint: string, ms: number, failed: boolean): void {
    this.rpcRequests.inc({ network, endpoint, outcome: failed ? "error" : "ok" });
    this.rpcLatency.observe({ network, endpoint }, ms / 1000);
  }

  /** One answered HTTP request (http/middleware/request-log.ts). */
  onRequest(method: string, route: string, status: number, ms: number): void {
    this.http.observe(method, route, status, ms / 1000);
  }

  contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** The verifier's queue and the indexer's lag per pool, read when scraped. */
function registerQueueAndIndexerGauges(r: Registry, sources: MetricSources): void {
  new Gauge({
    name: "relay_verifier_queue_depth",
    help: "Proof verifications waiting for or running on a worker",
    registers: [r],
    collect() {
      this.set(sources.verifierQueueDepth());
    },
  });
  const lagDeposits = new Gauge({
    name: "relay_indexer_lag_deposits",
    help: "Deposits on chain not yet in the relay's tree, per pool",
    labelNames: ["network", "mint"],
    registers: [r],
  });
  const lagSec = new Gauge({
    name: "relay_indexer_lag_seconds",
    help: "Seconds since the oldest unindexed deposit was seen, per pool",
    labelNames: ["network", "mint"],
    registers: [r],
  });
  const drift = new Gauge({
    name: "relay_indexer_root_drift",
    help: "1 when the pool's indexed root differs from the chain's at the same leaf count",
    labelNames: ["network", "mint"],
    registers: [r],
  });
  const rootCheck = new Gauge({
    name: "relay_indexer_last_root_check_timestamp_seconds",
    help: "Unix time of the pool's last root comparison with the chain",
    labelNames: ["network", "mint"],
    registers: [r],
  });
  new Gauge({
    name: "relay_indexer_pools",
    help: "Pools the indexer follows",
    registers: [r],
    collect() {
      const pools = sources.indexer();
      this.set(pools.length);
      for (const g of [lagDeposits, lagSec, drift, rootCheck]) g.reset();
      for (const p of pools) {
        const l = { network: p.network, mint: p.mint };
        lagDeposits.set(l, p.lagDeposits);
        lagSec.set(l, p.lagSec);
        drift.set(l, p.drift ? 1 : 0);
        if (p.lastRootCheckAt !== null) rootCheck.set(l, p.lastRootCheckAt / 1000);
      }
    },
  });
}

/** The fee payers' balances and runways, read when scraped. */
function registerFeePayerGauges(r: Registry, sources: MetricSources): void {
  const runway = new Gauge({
    name: "relay_fee_payer_runway_days",
    help: "Days the fee payer's balance lasts at the last 24 h's spend (absent until spend is seen; 0 when empty)",
    labelNames: ["network"],
    registers: [r],
  });
  new Gauge({
    name: "relay_fee_payer_lamports",
    help: "The fee payer's balance in lamports",
    labelNames: ["network"],
    registers: [r],
    collect() {
      this.reset();
      runway.reset();
      for (const f of sources.feePayers()) {
        if (f.lamports !== null) this.set({ network: f.network }, Number(f.lamports));
        if (f.runwayHours !== null) runway.set({ network: f.network }, f.runwayHours / 24);
      }
    },
  });
}

/** Each RPC endpoint's health and slot lag, read when scraped. */
function registerRpcEndpointGauges(r: Registry, sources: MetricSources): void {
  const slotLag = new Gauge({
    name: "relay_rpc_endpoint_slot_lag",
    help: "Slots the endpoint is behind the most advanced endpoint of its network",
    labelNames: ["network", "endpoint"],
    registers: [r],
  });
  new Gauge({
    name: "relay_rpc_endpoint_healthy",
    help: "1 while the RPC endpoint is healthy (failover uses it), 0 otherwise",
    labelNames: ["network", "endpoint"],
    registers: [r],
    collect() {
      this.reset();
      slotLag.reset();
      for (const e of sources.rpcEndpoints()) {
        this.set({ network: e.network, endpoint: e.url }, e.healthy ? 1 : 0);
        if (e.slotLag !== null) slotLag.set({ network: e.network, endpoint: e.url }, e.slotLag);
      }
    },
  });
}

/** Refusals counted since start by the relay and the rate limiter, read when scraped. */
function registerRefusalCounters(r: Registry, sources: MetricSources): void {
  new Counter({
    name: "relay_relays_rejected_total",
    help: "Relays refused before they became candidates (bad pool, root, fee, spent nullifier, invalid proof, ...), since start, per error name",
    labelNames: ["error"],
    registers: [r],
    collect() {
      this.reset();
      for (const [error, n] of Object.entries(sources.relayRejections())) this.inc({ error }, n);
    },
  });
  new Counter({
    name: "relay_rate_limit_rejections_total",
    help: "Requests refused 429 RateLimited since start, per endpoint",
    labelNames: ["endpoint"],
    registers: [r],
    collect() {
      this.reset();
      for (const l of sources.rateLimits()) this.inc({ endpoint: l.endpoint }, l.refusals);
    },
  });
  new Counter({
    name: "relay_rate_limited_requests_total",
    help: "Requests counted by the rate limiter since start, per endpoint",
    labelNames: ["endpoint"],
    registers: [r],
    collect() {
      this.reset();
      for (const l of sources.rateLimits()) this.inc({ endpoint: l.endpoint }, l.hits);
    },
  });
}

/** The store's journal and snapshot, and the alert rules, read when scraped. */
function registerStoreAndAlertGauges(r: Registry, sources: MetricSources): void {
  const snapshotBytes = new Gauge({ name: "relay_store_snapshot_bytes", help: "Size of the store's last snapshot file", registers: [r] });
  const lastSnapshot = new Gauge({ name: "relay_store_last_snapshot_timestamp_seconds", help: "Unix time of the store's last snapshot", registers: [r] });
  new Gauge({
    name: "relay_store_journal_bytes",
    help: "Bytes in the store's journal since the last snapshot",
    registers: [r],
    collect() {
      const s = sources.store();
      this.set(s.journalBytes);
      if (s.snapshotBytes !== null) snapshotBytes.set(s.snapshotBytes);
      if (s.lastSnapshotAt !== null) lastSnapshot.set(s.lastSnapshotAt / 1000);
    },
  });
  if (sources.alerts) {
    const alerts = sources.alerts;
    new Gauge({
      name: "relay_alert_firing",
      help: "1 while the relay's own alert rule is firing",
      labelNames: ["rule"],
      registers: [r],
      collect() {
        this.reset();
        for (const a of alerts()) this.set({ rule: a.rule }, a.firing ? 1 : 0);
      },
    });
  }
}
