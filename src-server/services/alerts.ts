/**
 * The relay's own alert rules (docs/operations.md, "Alerts"): evaluated on a
 * timer; an alert fires once when its condition starts (one per rule and
 * subject: a network, a pool, the relay), is notified again every repeatMin
 * while it lasts, and resolves when the condition ends. Every alert is kept
 * in the store from firing to resolution; one still open at a restart keeps
 * firing (it is not notified again as new). Notifications go to the
 * listeners (the webhook, the log); the console reads active() and history().
 */
import type { AlertItem, AlertRule, AlertRuleSettings } from "../../src-shared/api/alerts";
import type { Network } from "../../src-shared/networks";
import type { AlertStore } from "../ports/alert-store";
import type { FeePayerStatus } from "../ports/fee-payer-status";
import type { RelayEvent } from "../ports/relay-events";

export interface AlertSources {
  feePayers(): FeePayerStatus[];
  indexer(): { network: Network; mint: string; lagSec: number; lagDeposits: number; drift: string | null }[];
  /** The failing /health checks now (empty when green). */
  failingChecks(): Promise<{ name: string; detail?: string }[]>;
  /** The sanctions list: when it was last read successfully (null: never). */
  sanctions(): { lastGoodAt: number | null; source: string };
  /** Free space of the data dir's disk, null when the platform cannot tell. */
  disk(): { freeBytes: number; totalBytes: number } | null;
  /** Networks whose relays the program guard stopped: the deployed pool program is not the key's (services/program-guard.ts). */
  programs?(): { network: Network; refusal: string }[];
}

export type AlertNotificationKind = "firing" | "repeat" | "resolved";

export interface AlertServiceDeps {
  store: AlertStore;
  /** The config's thresholds; the store's overrides (the console) apply on top. */
  configRules: AlertRuleSettings;
  repeatMin: number;
  sources: AlertSources;
  notify: (kind: AlertNotificationKind, alert: AlertItem) => void;
  log?: (line: string) => void;
  now?: () => number;
}

/** A condition now true: what it is about and how to say it. */
interface Condition {
  rule: AlertRule;
  subject: string;
  summary: string;
  detail: string;
}

const hours = (ms: number) => ms / 3600_000;
const fmt = (n: number, digits = 1) => (Number.isInteger(n) ? String(n) : n.toFixed(digits));

export class AlertService {
  private readonly now: () => number;
  private readonly open = new Map<string, AlertItem>();
  private readonly verdicts: { at: number; failed: boolean }[] = [];
  private redSince: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  /** What was firing before a restart keeps firing (not fired again), under the operator's thresholds as stored. */
  static async open(deps: AlertServiceDeps): Promise<AlertService> {
    const [overrides, open] = await Promise.all([deps.store.ruleOverrides(), deps.store.open()]);
    return new AlertService(deps, overrides, open);
  }

  private constructor(
    private readonly deps: AlertServiceDeps,
    private overrides: Partial<AlertRuleSettings>,
    open: AlertItem[],
  ) {
    this.now = deps.now ?? Date.now;
    for (const a of open) this.open.set(`${a.rule}|${a.subject}`, a);
  }

  /** The thresholds in force. */
  rules(): AlertRuleSettings {
    return { ...this.deps.configRules, ...this.overrides };
  }

  /** The console's change (already checked): stored, in force from the next evaluation. */
  async setRules(next: AlertRuleSettings): Promise<AlertRuleSettings> {
    const o: Partial<AlertRuleSettings> = {};
    for (const [k, v] of Object.entries(next) as [keyof AlertRuleSettings, number | null][]) {
      if (this.deps.configRules[k] !== v) (o as Record<string, number | null>)[k] = v;
    }
    await this.deps.store.setRuleOverrides(o);
    this.overrides = o;
    return this.rules();
  }

  active(): AlertItem[] {
    return [...this.open.values()].sort((a, b) => a.startedAt - b.startedAt);
  }

  history(limit = 100): Promise<AlertItem[]> {
    return this.deps.store.recent(limit);
  }

  /** A relay's verdict, for the failure-rate rule. */
  onRelay(e: RelayEvent): void {
    if (e.state.kind !== "confirmed" && e.state.kind !== "failed") return;
    this.verdicts.push({ at: e.state.at, failed: e.state.kind === "failed" });
    if (this.verdicts.length > 100_000) this.verdicts.splice(0, this.verdicts.length - 100_000);
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.evaluate(), intervalMs);
    this.timer.unref();
    void this.evaluate();
  }

  stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    return this.running ?? Promise.resolve();
  }

  /** One evaluation of every rule; concurrent calls share one. */
  evaluate(): Promise<void> {
    this.running ??= this.evaluateOnce()
      .catch((e: unknown) => this.deps.log?.(`alerts: evaluation failed: ${(e as Error).message}`))
      .finally(() => (this.running = null));
    return this.running;
  }

  private async evaluateOnce(): Promise<void> {
    const now = this.now();
    const conditions = await this.conditions(now);
    const seen = new Set<string>();
    for (const c of conditions) {
      const key = `${c.rule}|${c.subject}`;
      seen.add(key);
      const open = this.open.get(key);
      if (!open) {
        const a = await this.deps.store.fire({
          rule: c.rule,
          subject: c.subject,
          summary: c.summary,
          detail: c.detail,
          startedAt: now,
          lastNotifiedAt: now,
          notifications: 1,
        });
        this.open.set(key, a);
        this.deps.notify("firing", a);
      } else if (now - open.lastNotifiedAt >= this.deps.repeatMin * 60_000) {
        await this.deps.store.notified(open.id, now, c.summary, c.detail);
        const a = { ...open, summary: c.summary, detail: c.detail, lastNotifiedAt: now, notifications: open.notifications + 1 };
        this.open.set(key, a);
        this.deps.notify("repeat", a);
      } else if (open.summary !== c.summary || open.detail !== c.detail) {
        this.open.set(key, { ...open, summary: c.summary, detail: c.detail });
      }
    }
    // Conditions that ended, and those of a rule the operator turned off, resolve.
    for (const [key, open] of [...this.open]) {
      if (seen.has(key)) continue;
      await this.deps.store.resolve(open.id, now);
      this.open.delete(key);
      this.deps.notify("resolved", { ...open, resolvedAt: now, lastNotifiedAt: now, notifications: open.notifications + 1 });
    }
  }

  private async conditions(now: number): Promise<Condition[]> {
    const r = this.rules();
    const s = this.deps.sources;
    const out: Condition[] = [];

    // Always on: a program that is not the key's is never a threshold question.
    for (const p of s.programs?.() ?? []) {
      out.push({
        rule: "deployed-program",
        subject: p.network,
        summary: `Relays stopped on ${p.network}: the deployed pool program changed`,
        detail: p.refusal,
      });
    }

    if (r.feePayerRunwayHours !== null) {
      for (const f of s.feePayers()) {
        if (f.runwayHours === null || f.runwayHours >= r.feePayerRunwayHours) continue;
        const sol = f.lamports === null ? "?" : fmt(Number(f.lamports) / 1e9, 4);
        out.push({
          rule: "fee-payer-runway",
          subject: f.network,
          summary: f.runwayHours === 0 ? `Fee payer on ${f.network} is empty` : `Fee payer on ${f.network} runs dry in ${fmt(f.runwayHours)} h`,
          detail: `${sol} SOL left; ${fmt(Number(f.spentLast24h) / 1e9, 4)} SOL spent in the last 24 h; alert below ${fmt(r.feePayerRunwayHours)} h of runway. Top up the fee payer.`,
        });
      }
    }

    if (r.indexerLagSec !== null) {
      for (const p of s.indexer()) {
        if (p.drift) {
          out.push({
            rule: "indexer-lag",
            subject: `${p.network}/${p.mint}`,
            summary: `Indexer root drift on ${p.network}/${p.mint}`,
            detail: `${p.drift}; proofs of this pool are refused until it is rebuilt.`,
          });
        } else if (p.lagSec > r.indexerLagSec) {
          out.push({
            rule: "indexer-lag",
            subject: `${p.network}/${p.mint}`,
            summary: `Indexer ${p.lagSec} s behind on ${p.network}/${p.mint}`,
            detail: `${p.lagDeposits} deposits on chain not yet indexed for ${p.lagSec} s (alert above ${r.indexerLagSec} s).`,
          });
        }
      }
    }

    if (r.relayFailurePercent !== null) {
      const from = now - r.relayFailureWindowMin * 60_000;
      while (this.verdicts.length && this.verdicts[0]!.at < now - 24 * 3600_000) this.verdicts.shift();
      const inWindow = this.verdicts.filter((v) => v.at >= from);
      const failed = inWindow.filter((v) => v.failed).length;
      if (inWindow.length >= r.relayFailureMinRelays && (failed * 100) / inWindow.length > r.relayFailurePercent) {
        out.push({
          rule: "relay-failures",
          subject: "relay",
          summary: `${Math.round((failed * 100) / inWindow.length)}% of relays failed in the last ${r.relayFailureWindowMin} min`,
          detail: `${failed} of ${inWindow.length} relays that reached a verdict failed (alert above ${fmt(r.relayFailurePercent)}% of at least ${r.relayFailureMinRelays}).`,
        });
      }
    }

    if (r.healthRedMin !== null) {
      const failing = await s.failingChecks();
      if (failing.length === 0) this.redSince = null;
      else {
        this.redSince ??= now;
        const minutes = (now - this.redSince) / 60_000;
        if (minutes > r.healthRedMin) {
          out.push({
            rule: "health-red",
            subject: "relay",
            summary: `/health red for ${Math.floor(minutes)} min`,
            detail: `Failing: ${failing.map((c) => (c.detail ? `${c.name} (${c.detail.slice(0, 160)})` : c.name)).join("; ")}.`,
          });
        }
      }
    }

    if (r.sanctionsAgeHours !== null) {
      const l = s.sanctions();
      const age = l.lastGoodAt === null ? null : hours(now - l.lastGoodAt);
      if (age === null || age > r.sanctionsAgeHours) {
        out.push({
          rule: "sanctions-age",
          subject: "relay",
          summary: age === null ? "No sanctions list loaded" : `Sanctions list ${fmt(age)} h old`,
          detail: `${l.source}: ${age === null ? "never read successfully; relays fail until one loads" : `last read successfully ${fmt(age)} h ago`} (alert above ${fmt(r.sanctionsAgeHours)} h).`,
        });
      }
    }

    if (r.diskFreePercent !== null) {
      const d = s.disk();
      if (d && d.totalBytes > 0) {
        const free = (d.freeBytes * 100) / d.totalBytes;
        if (free < r.diskFreePercent) {
          out.push({
            rule: "disk-space",
            subject: "relay",
            summary: `Store disk ${fmt(free)}% free`,
            detail: `${Math.round(d.freeBytes / 1024 / 1024)} MiB of ${Math.round(d.totalBytes / 1024 / 1024)} MiB free on the data dir's disk (alert below ${fmt(r.diskFreePercent)}%); the store stops writing when it is full.`,
          });
        }
      }
    }
    return out;
  }
}
