/**
 * The relay's own alerts against a running relay (sandbox): the fee payer is
 * drained with the sandbox's drill, the webhook at a local test server
 * receives the alert (after a 500 it retries), a relay lands while the
 * webhook does not answer, the alert resolves when the balance is back, and
 * the history is kept. Rules: refused at start naming the key, changed in the
 * console's Settings (PUT /admin/alerts/rules), and the test button.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminAlerts } from "../../src-shared/api/alerts";
import { relayHarness, type RelayHarness } from "../support/harness";
import { prepareWithdrawal, testRecipient } from "../support/proofs";
import { startRelay } from "../support/relay-process";
import { USDC } from "../support/sandbox";
import { sandboxTestChain } from "../support/test-chain";
import { newWallet, post, type TestWallet } from "../support/wallet";

const OPERATOR = "alerts-test-operator-token-0123456789";
let h: RelayHarness;
let hook: Server;
let hookUrl: string;
/** Bodies the webhook received, in order, and how it answers the next request. */
const received: { text: string; kind: string; rule: string }[] = [];
let mode: "ok" | "fail-once" | "hang" = "ok";
const held: ServerResponse[] = [];
let depositor: TestWallet;
let token: string;

const admin = async <T>(method: string, p: string, body?: unknown): Promise<{ status: number; json: T }> => {
  const r = await fetch(`${h.url}/admin${p}`, {
    method,
    headers: { authorization: `Bearer ${OPERATOR}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: r.status, json: (await r.json()) as T };
};
const until = async (what: string, check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};
const drill = (feePayerLamports: string | null) => admin("POST", "/sandbox/faults", { network: "mainnet", feePayerLamports });

beforeAll(async () => {
  hook = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString()));
    req.on("end", () => {
      const body = JSON.parse(text) as { text: string; kind: string; alert: { rule: string } };
      received.push({ text: body.text, kind: body.kind, rule: body.alert.rule });
      if (mode === "hang") return void held.push(res);
      if (mode === "fail-once") {
        mode = "ok";
        res.writeHead(500).end("boom");
        return;
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hooks/SECRET-PATH`;
  const dir = mkdtempSync(path.join(tmpdir(), "alerts-cfg-"));
  const file = path.join(dir, "relay.json");
  writeFileSync(
    file,
    JSON.stringify({
      metrics: { feePayerSampleSec: 1 },
      alerts: { evaluateSec: 1, repeatMin: 60, rules: { feePayerRunwayHours: 24 }, webhook: { url: hookUrl, format: "json", timeoutMs: 1500, maxRetries: 3 } },
    }),
  );
  const env = { RELAY_CONFIG: file, RELAY_OPERATOR_TOKEN: OPERATOR, RELAY_RATE_LIMITS: "off" };
  h = relayHarness(
    "sandbox",
    await startRelay(env),
    (d) => startRelay(env, d),
    (url) => sandboxTestChain(url, "mainnet"),
    "FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ",
  );
  depositor = newWallet();
  await h.chain.fund(depositor, 100_000_000, USDC);
  const t = Math.floor(Date.now() / 1000);
  token = ((await post(`${h.url}/login`, { wallet: depositor.address, signature: depositor.sign(String(t)), message: t })).json as { id: string }).id;
}, 120_000);
afterAll(async () => {
  for (const r of held) r.destroy();
  await h?.stop();
  await new Promise((r) => hook?.close(r));
});

describe("alerts: the fee payer drained and restored", () => {
  it("delivers the firing alert to the webhook, retrying after a 500, and lists it as active in the console's API", async () => {
    mode = "fail-once";
    expect((await drill("0")).status).toBe(200);
    await until("the webhook to receive the alert twice (a 500, then the retry)", () => received.filter((r) => r.kind === "firing").length >= 2);
    const firing = received.filter((r) => r.kind === "firing");
    expect(firing[0]).toMatchObject({ rule: "fee-payer-runway", text: expect.stringContaining("[FIRING] Fee payer on mainnet is empty") });
    expect(firing[1]!.text).toBe(firing[0]!.text);
    const view = (await admin<AdminAlerts>("GET", "/alerts")).json;
    expect(view.active).toEqual([expect.objectContaining({ rule: "fee-payer-runway", subject: "mainnet", resolvedAt: null })]);
    expect(view.webhook).toMatchObject({ configured: true, origin: `${new URL(hookUrl).origin}/…`, format: "json", last: { ok: true, attempts: 2 } });
    expect(JSON.stringify(view)).not.toContain("SECRET-PATH");
    expect(h.relay.output()).not.toContain("SECRET-PATH");
    expect(h.relay.output()).toContain("alert firing: fee-payer-runway/mainnet");
  }, 60_000);

  it("relays while the webhook does not answer (its delivery never holds a relay up)", async () => {
    mode = "hang";
    const before = received.length;
    const test = admin<{ ok: boolean }>("POST", "/alerts/test");
    await until("the test notification to reach the hanging webhook", () => received.length > before);
    const w = await prepareWithdrawal(h.url, depositor, USDC, { recipient: testRecipient("alerts-relay"), amount: 1_000_000, chain: h.chain });
    const r = await post(`${h.url}/relay`, w.body, { "x-api-auth": token });
    expect(r.status).toBe(200);
    // The hanging webhook times out (1.5 s): the test button reports it.
    expect((await test).json).toMatchObject({ ok: false, status: null, error: expect.stringMatching(/no answer within 1500 ms/) });
    for (const res of held.splice(0)) res.destroy();
    mode = "ok";
  }, 60_000);

  it("resolves when the balance is back, notifies the webhook, and keeps the alert in the history", async () => {
    expect((await drill(null)).status).toBe(200);
    await until("the resolution to reach the webhook", () => received.some((r) => r.kind === "resolved" && r.rule === "fee-payer-runway"));
    expect(received.find((r) => r.kind === "resolved")!.text).toContain("[RESOLVED] Fee payer on mainnet is empty");
    const view = (await admin<AdminAlerts>("GET", "/alerts")).json;
    expect(view.active).toEqual([]);
    expect(view.history[0]).toMatchObject({ rule: "fee-payer-runway", subject: "mainnet", resolvedAt: expect.any(Number), notifications: 2 });
    // Metrics follow the alert.
    expect(await (await fetch(h.relay.metricsUrl!)).text()).toContain('relay_alert_firing{rule="fee-payer-runway"} 0');
  }, 60_000);

  it("keeps the history across a restart", async () => {
    await h.restart();
    const view = (await admin<AdminAlerts>("GET", "/alerts")).json;
    expect(view.history.some((a) => a.rule === "fee-payer-runway" && a.resolvedAt !== null)).toBe(true);
  }, 60_000);
});

describe("alerts: rules", () => {
  it("changes a threshold from the console's Settings and keeps it across a restart; a bad value is refused naming the key", async () => {
    const bad = await admin<{ error: string; message: string }>("PUT", "/alerts/rules", { feePayerRunwayHours: -3 });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: "InvalidRequest", message: expect.stringMatching(/^rules\.feePayerRunwayHours: must be a number from/) });
    const unknown = await admin<{ message: string }>("PUT", "/alerts/rules", { nope: 1 });
    expect(unknown.json.message).toMatch(/^rules\.nope: is not a known setting/);
    const ok = await admin<{ rules: AdminAlerts["rules"] }>("PUT", "/alerts/rules", { feePayerRunwayHours: 72, diskFreePercent: null });
    expect(ok.status).toBe(200);
    expect(ok.json.rules).toMatchObject({ feePayerRunwayHours: 72, diskFreePercent: null });
    await h.restart();
    const view = (await admin<AdminAlerts>("GET", "/alerts")).json;
    expect(view.rules).toMatchObject({ feePayerRunwayHours: 72, diskFreePercent: null });
    expect(view.configRules).toMatchObject({ feePayerRunwayHours: 24, diskFreePercent: 5 });
  }, 60_000);

  it("sends a test notification from the test button and reports the webhook's answer", async () => {
    const before = received.length;
    const r = await admin<{ ok: boolean; status: number }>("POST", "/alerts/test");
    expect(r.json).toEqual({ ok: true, status: 204, error: null });
    expect(received[before]).toMatchObject({ kind: "test", text: expect.stringContaining("[TEST]") });
  });

  it("needs the operator token", async () => {
    expect((await fetch(`${h.url}/admin/alerts`)).status).toBe(401);
    expect((await fetch(`${h.url}/admin/alerts/test`, { method: "POST" })).status).toBe(401);
  });

  it.each([
    [{ alerts: { rules: { feePayerRunwayHours: "soon" } } }, "alerts.rules.feePayerRunwayHours"],
    [{ alerts: { rules: { relayFailureWindowMin: null } } }, "alerts.rules.relayFailureWindowMin"],
    [{ alerts: { rules: { lowBalance: 3 } } }, "alerts.rules.lowBalance"],
    [{ alerts: { webhook: { url: "http://hooks.example.com/x" } } }, "alerts.webhook.url"],
    [{ alerts: { webhook: { format: "teams" } } }, "alerts.webhook.format"],
  ])(
    "refuses to start with an invalid alert setting %j, naming %s",
    async (cfg, key) => {
      const dir = mkdtempSync(path.join(tmpdir(), "alerts-bad-"));
      const file = path.join(dir, "relay.json");
      writeFileSync(file, JSON.stringify(cfg));
      await expect(startRelay({ RELAY_CONFIG: file })).rejects.toThrow(new RegExp(`config ${key.replace(/\./g, "\\.")}: `));
    },
    60_000,
  );
});
