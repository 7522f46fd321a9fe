/**
 * Running unattended (docs/operations.md): metrics, the fee-payer watch and
 * the relay-state event stream, wired here so that compose-relay.ts only hands
 * over what they read. Built before the chains (the RPC failover reports each
 * request), given its sources once everything else exists.
 */
import { statfsSync, statSync } from "node:fs";
import path from "node:path";
import { ALERT_RULES, type AdminAlerts, type AlertItem, type AlertRuleSettings } from "../../src-shared/api/alerts";
import type { Network } from "../../src-shared/networks";
import { err, ok, type Result } from "../../src-shared/result";
import type { AlertStore } from "../ports/alert-store";
import { WebhookSender, notificationText } from "../adapters/webhook/webhook-sender";
import { applyAlertRules } from "../config/load-ops";
import type { SanctionsStatus } from "../ports/sanctions";
import { AlertService } from "../services/alerts";
import type { HealthService } from "../services/health";
import { RelayMetrics, type MetricSources } from "../adapters/metrics-prom/relay-metrics";
import { SNAPSHOT_FILE, type DurableDb } from "../adapters/storage-sqljs/durable-db";
import type { RelayConfig } from "../config/schema";
import { clientAddress } from "../http/middleware/client-address";
import { requestLog, requestMessage, type RequestLog } from "../http/middleware/request-log";
import { cachedScrape, type MetricsScrape } from "../http/routes/metrics";
import type { AlertsConsole } from "../http/routes/admin/alerts";
import type { RelayLogLines } from "../http/routes/admin/relays";
import type { RelayLogger } from "../adapters/log-pino/relay-logger";
import type { RelayEvent, RevertEvent } from "../ports/relay-events";
import type { RelayStore } from "../ports/relay-store";
import type { RevertStore } from "../ports/revert-store";
import { FeePayerWatch } from "../services/fee-payer-watch";
import { observeRelayStore, observeRevertStore } from "../services/relay-events";

export interface OpsSources {
  /** The sql.js store's journal and snapshot sizes (metrics); null on an engine without them. */
  db: DurableDb | null;
  alerts: AlertStore;
  verifierQueueDepth(): number;
  indexer: MetricSources["indexer"];
  rpcEndpoints: MetricSources["rpcEndpoints"];
  rateLimits: MetricSources["rateLimits"];
  relayRejections: MetricSources["relayRejections"];
  /** Each network's fee-payer balance reader (null where the network has none to watch). */
  feePayerBalances: ReadonlyMap<Network, () => Promise<bigint | null>>;
  health: HealthService;
  sanctions(): SanctionsStatus;
  /** Unindexed deposits and drift per pool (the chain follower's view; the sandbox indexes on each deposit). */
  indexerLag(): { network: Network; mint: string; lagSec: number; lagDeposits: number; drift: string | null }[];
  /** Networks whose relays the program guard stopped. */
  programs?(): { network: Network; refusal: string }[];
  version: string;
}

export class Ops {
  readonly metrics: RelayMetrics;
  readonly scrape: MetricsScrape;
  private sources: OpsSources | null = null;
  private feePayers: FeePayerWatch | null = null;
  private alerts: AlertService | null = null;
  private webhook: WebhookSender | null = null;
  private readonly relayListeners: ((e: RelayEvent) => void)[] = [];
  private readonly revertListeners: ((e: RevertEvent) => void)[] = [];

  constructor(
    private readonly config: RelayConfig,
    private readonly log: (line: string) => void,
    /** The structured logger (startServer's); null when the relay is composed without one (in-process tests). */
    private readonly logger: RelayLogger | null = null,
  ) {
    const need = <T>(f: (s: OpsSources) => T, none: T): T => (this.sources ? f(this.sources) : none);
    this.metrics = new RelayMetrics({
      verifierQueueDepth: () => need((s) => s.verifierQueueDepth(), 0),
      indexer: () => need((s) => s.indexer(), []),
      feePayers: () => this.feePayers?.status() ?? [],
      rpcEndpoints: () => need((s) => s.rpcEndpoints(), []),
      rateLimits: () => need((s) => s.rateLimits(), []),
      relayRejections: () => need((s) => s.relayRejections(), {}),
      alerts: () => {
        const firing = new Set((this.alerts?.active() ?? []).map((a) => a.rule));
        return this.alerts ? ALERT_RULES.map((rule) => ({ rule, firing: firing.has(rule) })) : [];
      },
      store: () =>
        need(
          (s) => {
            if (!s.db) return { journalBytes: 0, snapshotBytes: null, lastSnapshotAt: null };
            let snapshotBytes: number | null;
            try {
              snapshotBytes = statSync(path.join(config.dataDir, SNAPSHOT_FILE)).size;
            } catch {
              snapshotBytes = null;
            }
            return { journalBytes: s.db.stats.journalBytes, snapshotBytes, lastSnapshotAt: s.db.stats.lastSnapshotAt };
          },
          { journalBytes: 0, snapshotBytes: null, lastSnapshotAt: null },
        ),
    });
    // Rendered at most once a second for the main port's /metrics and the metrics listener together.
    this.scrape = cachedScrape(this.metrics);
    this.relayListeners.push((e) => this.metrics.onRelay(e));
    this.revertListeners.push((e) => this.metrics.onRevert(e));
    // One line per relay and revert state change: ids, network, pool and state only (never a
    // recipient, depositor, nullifier or client address; docs/operations.md, "Logs").
    this.relayListeners.push((e) => {
      const s = e.state;
      const fields: Record<string, unknown> = { relayId: e.id, kind: e.kind, network: e.network, mint: e.mint, state: s.kind };
      if (s.kind === "verified") fields.verifyMs = s.verifyMs;
      if (s.kind === "confirmed") fields.signature = s.signature;
      if (s.kind === "failed") Object.assign(fields, { error: s.error, detail: s.detail.slice(0, 300) });
      if (s.kind === "confirmed" || s.kind === "failed") fields.totalMs = s.at - e.receivedAt;
      this.event(fields, `relay ${e.id}: ${s.kind}${s.kind === "failed" ? ` ${s.error}` : ""}`);
    });
    this.revertListeners.push((e) => {
      const s = e.state;
      this.event(
        { revertId: e.id, network: e.network, state: s.kind, ...(s.kind === "failed" ? { error: s.error } : {}) },
        `revert ${e.id}: ${s.kind}${s.kind === "failed" ? ` ${s.error}` : ""}`,
      );
    });
  }

  /** A structured line, or the plain message without the structured logger. */
  private event(fields: Record<string, unknown>, msg: string): void {
    if (this.logger) this.logger.event(fields, msg);
    else this.log(msg);
  }

  /** One line per request (first in the app). */
  requestLog(): RequestLog {
    return requestLog({
      done: (r) => this.metrics.onRequest(r.method, r.route, r.status, r.ms),
      requests: this.config.logs.requests,
      line: (r) => this.event({ ...r }, requestMessage(r)),
      clientIp: this.config.logs.clientIps ? clientAddress(this.config.http.trustProxy) : null,
    });
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

  /** Everything metrics read, once it exists; starts the fee-payer watch. */
  async attach(sources: OpsSources): Promise<void> {
    this.sources = sources;
    this.feePayers = new FeePayerWatch(sources.feePayerBalances);
    this.feePayers.start(this.config.metrics.feePayerSampleSec * 1000);
    const a = this.config.alerts;
    if (!a.enabled) return;
    const source = `relay ${sources.version}`;
    this.webhook = new WebhookSender({
      url: a.webhook.url,
      format: a.webhook.format,
      timeoutMs: a.webhook.timeoutMs,
      maxRetries: a.webhook.maxRetries,
      source,
      log: this.log,
    });
    const feePayers = this.feePayers;
    this.alerts = await AlertService.open({
      store: sources.alerts,
      configRules: a.rules,
      repeatMin: a.repeatMin,
      sources: {
        feePayers: () => feePayers.status(),
        indexer: () => sources.indexerLag(),
        failingChecks: async () =>
          (await sources.health.report()).checks.filter((c) => !c.ok).map((c) => ({ name: c.name, ...(c.detail ? { detail: c.detail } : {}) })),
        sanctions: () => {
          const st = sources.sanctions();
          // The last successful read: a check that found the list unchanged counts; a failed one does not.
          return { lastGoodAt: st.lastError ? st.loadedAt : (st.checkedAt ?? st.loadedAt), source: st.source };
        },
        programs: () => sources.programs?.() ?? [],
        disk: () => {
          try {
            const f = statfsSync(this.config.dataDir);
            return { freeBytes: f.bavail * f.bsize, totalBytes: f.blocks * f.bsize };
          } catch {
            return null;
          }
        },
      },
      notify: (kind, alert) => this.notify(kind, alert),
      log: this.log,
    });
    this.relayListeners.push((e) => this.alerts?.onRelay(e));
    this.alerts.start(a.evaluateSec * 1000);
  }

  /** Evaluates the alert rules now, not at the next tick (the program guard just stopped or resumed relays). */
  alertNow(): void {
    void this.alerts?.evaluate();
  }

  /** One line in the log per notification, and the webhook (which never holds anything up). */
  private notify(kind: "firing" | "repeat" | "resolved", alert: AlertItem): void {
    this.log(`alert ${kind}: ${alert.rule}/${alert.subject}: ${alert.summary}`);
    this.webhook?.send({ kind, alert });
  }

  /** The console's Alerts page and Settings (http/routes/admin/alerts.ts). */
  readonly alertsConsole: AlertsConsole = {
    view: () => this.alertsView(),
    setRules: (body) => (this.alerts ? this.changeRules(this.alerts, body) : null),
    sendTest: () => (this.webhook ? this.sendTest(this.webhook) : null),
  };

  /** The console's Relay detail: the log lines about one relay the structured logger keeps in memory since start. */
  get relayLog(): RelayLogLines {
    const logger = this.logger;
    return logger ? (id) => logger.linesOf(id) : null;
  }

  private async alertsView(): Promise<AdminAlerts> {
    const a = this.config.alerts;
    return {
      enabled: a.enabled && this.alerts !== null,
      active: this.alerts?.active() ?? [],
      history: (await this.alerts?.history(100)) ?? [],
      rules: this.alerts?.rules() ?? a.rules,
      configRules: a.rules,
      repeatMin: a.repeatMin,
      webhook: this.webhook?.status() ?? { configured: a.webhook.url !== null, origin: null, format: a.webhook.format, last: null, pending: 0 },
    };
  }

  /** Thresholds checked as the config file's are, the bad key named; the rules in force once saved and evaluated. */
  private async changeRules(alerts: AlertService, body: unknown): Promise<Result<AlertRuleSettings, string>> {
    let next;
    try {
      next = applyAlertRules("rules", alerts.rules(), body, (key, problem) => {
        throw new RuleError(`${key}: ${problem}`);
      });
    } catch (e) {
      if (e instanceof RuleError) return err(e.message);
      throw e;
    }
    const rules = await alerts.setRules(next);
    this.log(`alerts: rules changed by the operator: ${JSON.stringify(rules)}`);
    await alerts.evaluate();
    return ok(rules);
  }

  /** The test button: one notification, the webhook's first answer reported. */
  private sendTest(webhook: WebhookSender): ReturnType<WebhookSender["test"]> {
    const now = Date.now();
    const alert: AlertItem = {
      id: 0,
      rule: "health-red",
      subject: "test",
      summary: "Test notification from the relay console",
      detail: "If you read this, alert notifications reach you.",
      startedAt: now,
      resolvedAt: null,
      lastNotifiedAt: now,
      notifications: 1,
    };
    this.log(`alerts: test notification (${notificationText({ kind: "test", alert }, "console").split("\n")[0]})`);
    return webhook.test({ kind: "test", alert });
  }

  close(): Promise<void> {
    this.feePayers?.stop();
    this.webhook?.close();
    return this.alerts?.stop() ?? Promise.resolve();
  }
}

class RuleError extends Error {}
