/**
 * Alert notifications by webhook: a JSON POST per notification, in our own
 * shape or as a Slack (`text`) or Discord (`content`) message. Delivery runs
 * in the background: send() returns at once, a time-out or a non-2xx answer
 * is retried with exponential back-off (1 s, 2 s, 4 s, … up to 5 minutes,
 * maxRetries times), and nothing the webhook does can hold up a relay. The
 * URL is never logged or shown beyond its origin (it often carries a token).
 */
import { redactUrl } from "../../../src-shared/redact-url";
import type { AlertItem, WebhookDeliveryStatus } from "../../../src-shared/api/alerts";
import type { WebhookFormat } from "../../config/schema";

export type NotificationKind = "firing" | "repeat" | "resolved" | "test";

export interface AlertNotification {
  kind: NotificationKind;
  alert: AlertItem;
}

export interface WebhookOptions {
  url: string | null;
  format: WebhookFormat;
  timeoutMs: number;
  maxRetries: number;
  /** The relay's name in messages (its version). */
  source: string;
  log?: (line: string) => void;
  /** First retry delay; doubled each time (tests shorten it). */
  backoffMs?: number;
  fetch?: typeof globalThis.fetch;
  now?: () => number;
}

const LABEL: Record<NotificationKind, string> = { firing: "FIRING", repeat: "STILL FIRING", resolved: "RESOLVED", test: "TEST" };

/** The message text of a notification (Slack, Discord, and our JSON's `text`). */
export function notificationText(n: AlertNotification, source: string): string {
  const head = `[${LABEL[n.kind]}] ${n.alert.summary}`;
  return n.kind === "resolved"
    ? `${head} (resolved after ${Math.round(((n.alert.resolvedAt ?? n.alert.lastNotifiedAt) - n.alert.startedAt) / 60_000)} min) — ${source}`
    : `${head}\n${n.alert.detail} — ${source}`;
}

export function webhookBody(n: AlertNotification, format: WebhookFormat, source: string): unknown {
  const text = notificationText(n, source);
  if (format === "slack") return { text };
  if (format === "discord") return { content: text.slice(0, 2000) };
  return {
    kind: n.kind,
    text,
    source,
    alert: {
      id: n.alert.id,
      rule: n.alert.rule,
      subject: n.alert.subject,
      summary: n.alert.summary,
      detail: n.alert.detail,
      startedAt: new Date(n.alert.startedAt).toISOString(),
      resolvedAt: n.alert.resolvedAt === null ? null : new Date(n.alert.resolvedAt).toISOString(),
    },
  };
}

export class WebhookSender {
  private pendingCount = 0;
  private last: WebhookDeliveryStatus["last"] = null;
  private readonly fetch: typeof globalThis.fetch;
  private readonly now: () => number;
  private closed = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly opts: WebhookOptions) {
    this.fetch = opts.fetch ?? globalThis.fetch;
    this.now = opts.now ?? Date.now;
  }

  status(): WebhookDeliveryStatus {
    return {
      configured: this.opts.url !== null,
      origin: this.opts.url ? redactUrl(this.opts.url) : null,
      format: this.opts.format,
      last: this.last,
      pending: this.pendingCount,
    };
  }

  /** Queues a notification; returns at once. */
  send(n: AlertNotification): void {
    if (!this.opts.url || this.closed) return;
    this.pendingCount++;
    void this.deliver(n, 0);
  }

  /** The test button: one attempt, awaited, its result answered; a failure is retried in the background like any other. */
  async test(n: AlertNotification): Promise<{ ok: boolean; status: number | null; error: string | null }> {
    if (!this.opts.url) return { ok: false, status: null, error: "no webhook is configured (alerts.webhook.url)" };
    const r = await this.attempt(n);
    this.record(r, 1);
    if (!r.ok && this.opts.maxRetries > 0) {
      this.pendingCount++;
      this.later(n, 1);
    }
    return r;
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private async deliver(n: AlertNotification, attempt: number): Promise<void> {
    const r = await this.attempt(n);
    this.record(r, attempt + 1);
    if (r.ok || attempt >= this.opts.maxRetries || this.closed) {
      this.pendingCount--;
      if (!r.ok)
        this.opts.log?.(
          `alerts: webhook ${redactUrl(this.opts.url!)} gave up on ${n.alert.rule}/${n.alert.subject} (${n.kind}) after ${attempt + 1} attempts: ${r.error ?? `HTTP ${r.status}`}`,
        );
      return;
    }
    this.later(n, attempt + 1);
  }

  private later(n: AlertNotification, attempt: number): void {
    const delay = Math.min((this.opts.backoffMs ?? 1000) * 2 ** (attempt - 1), 300_000);
    const t = setTimeout(() => {
      this.timers.delete(t);
      void this.deliver(n, attempt);
    }, delay);
    t.unref();
    this.timers.add(t);
  }

  private record(r: { ok: boolean; status: number | null; error: string | null }, attempts: number): void {
    this.last = { at: this.now(), ok: r.ok, status: r.status, error: r.error, attempts };
  }

  private async attempt(n: AlertNotification): Promise<{ ok: boolean; status: number | null; error: string | null }> {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), this.opts.timeoutMs);
    try {
      const res = await this.fetch(this.opts.url!, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(webhookBody(n, this.opts.format, this.opts.source)),
        signal: ac.signal,
        redirect: "error",
      });
      await res.arrayBuffer().catch(() => undefined);
      return res.ok ? { ok: true, status: res.status, error: null } : { ok: false, status: res.status, error: `HTTP ${res.status}` };
    } catch (e) {
      const timedOut = ac.signal.aborted;
      return {
        ok: false,
        status: null,
        error: timedOut ? `no answer within ${this.opts.timeoutMs} ms` : (e as Error).message.replace(/https?:\/\/\S+/g, (u) => redactUrl(u)),
      };
    } finally {
      clearTimeout(timer);
    }
  }
}
