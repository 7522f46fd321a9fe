import { describe, expect, it } from "vitest";
import type { AlertItem } from "../../../src-shared/api/alerts";
import { WebhookSender, webhookBody } from "./webhook-sender";

const alert: AlertItem = {
  id: 7,
  rule: "fee-payer-runway",
  subject: "mainnet",
  summary: "Fee payer on mainnet is empty",
  detail: "0 SOL left",
  startedAt: 0,
  resolvedAt: null,
  lastNotifiedAt: 0,
  notifications: 1,
};

describe("webhook bodies", () => {
  it("is Slack's { text }, Discord's { content } or our JSON with the alert", () => {
    expect(webhookBody({ kind: "firing", alert }, "slack", "relay 1.0")).toEqual({ text: "[FIRING] Fee payer on mainnet is empty\n0 SOL left — relay 1.0" });
    expect(webhookBody({ kind: "firing", alert }, "discord", "relay 1.0")).toEqual({
      content: "[FIRING] Fee payer on mainnet is empty\n0 SOL left — relay 1.0",
    });
    expect(webhookBody({ kind: "repeat", alert }, "json", "relay 1.0")).toMatchObject({
      kind: "repeat",
      alert: { id: 7, rule: "fee-payer-runway", subject: "mainnet", startedAt: "1970-01-01T00:00:00.000Z", resolvedAt: null },
    });
  });
});

describe("WebhookSender", () => {
  it("retries a failed delivery with back-off until it is accepted, and gives up after maxRetries", async () => {
    const answers = [500, 503, 204];
    const calls: string[] = [];
    const fetch = (async (_url: string, init: RequestInit) => {
      calls.push(String(init.body));
      return new Response(null, { status: answers.shift() ?? 500 });
    }) as unknown as typeof globalThis.fetch;
    const s = new WebhookSender({
      url: "https://hooks.example.com/T0KEN",
      format: "json",
      timeoutMs: 1000,
      maxRetries: 5,
      source: "relay",
      backoffMs: 5,
      fetch,
    });
    s.send({ kind: "firing", alert });
    expect(s.status().pending).toBe(1);
    for (let i = 0; i < 50 && s.status().pending > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(calls).toHaveLength(3);
    expect(s.status()).toMatchObject({ pending: 0, origin: "https://hooks.example.com/…", last: { ok: true, status: 204, attempts: 3 } });

    const lines: string[] = [];
    const never = new WebhookSender({
      url: "https://hooks.example.com/T0KEN",
      format: "json",
      timeoutMs: 1000,
      maxRetries: 2,
      source: "relay",
      backoffMs: 5,
      fetch: (async () => new Response(null, { status: 500 })) as unknown as typeof globalThis.fetch,
      log: (l) => lines.push(l),
    });
    never.send({ kind: "firing", alert });
    for (let i = 0; i < 50 && never.status().pending > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(never.status()).toMatchObject({ pending: 0, last: { ok: false, status: 500, attempts: 3 } });
    expect(lines).toEqual([expect.stringContaining("gave up on fee-payer-runway/mainnet (firing) after 3 attempts")]);
    expect(lines.join()).not.toContain("T0KEN");
  });

  it("sends nothing without a URL, and the test button says so", async () => {
    const s = new WebhookSender({ url: null, format: "json", timeoutMs: 1000, maxRetries: 2, source: "relay" });
    s.send({ kind: "firing", alert });
    expect(s.status()).toMatchObject({ configured: false, pending: 0 });
    expect(await s.test({ kind: "test", alert })).toMatchObject({ ok: false, error: expect.stringMatching(/no webhook/) });
  });
});
