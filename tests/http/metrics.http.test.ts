/**
 * GET /metrics against a running relay (sandbox): Prometheus text whose
 * relay counters and stage histogram move with real relays, rate-limit
 * rejections per endpoint, the fee payer's balance during the drill, and the
 * access rule: a scraper on this machine without a token, anyone else (a
 * proxied request, or with loopbackWithoutToken off) only with the operator
 * token.
 */
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxHarness, type RelayHarness } from "../support/harness";
import { prepareWithdrawal, testRecipient } from "../support/proofs";
import { startRelay } from "../support/relay-process";
import { USDC } from "../support/sandbox";
import { newWallet, post, type TestWallet } from "../support/wallet";

const OPERATOR = "metrics-test-operator-token-0123456789";
let h: RelayHarness;
let depositor: TestWallet;
let token: string;

const scrape = async (headers: Record<string, string> = {}, url = h.url): Promise<{ status: number; type: string | null; text: string }> => {
  const r = await fetch(`${url}/metrics`, { headers });
  return { status: r.status, type: r.headers.get("content-type"), text: await r.text() };
};
/** The value of one sample (name plus its exact label set as printed), 0 when absent. */
const sample = (text: string, series: string): number => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
};
const login = async (w: TestWallet): Promise<string> => {
  const t = Math.floor(Date.now() / 1000);
  return ((await post(`${h.url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t })).json as { id: string }).id;
};

beforeAll(async () => {
  h = await sandboxHarness({ RELAY_OPERATOR_TOKEN: OPERATOR });
  depositor = newWallet();
  await h.chain.fund(depositor, 100_000_000, USDC);
  token = await login(depositor);
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

describe("GET /metrics", () => {
  it("answers Prometheus text on loopback without a token, with process metrics", async () => {
    const m = await scrape();
    expect(m.status).toBe(200);
    expect(m.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(m.text).toContain("# TYPE relay_relays_total counter");
    expect(m.text).toContain("relay_process_resident_memory_bytes");
    expect(m.text).toMatch(/relay_store_journal_bytes \d+/);
    expect(m.text).toMatch(/relay_verifier_queue_depth \d+/);
  });

  it("moves the relay counters and the stage histogram with real relays: one confirmed, one refused InvalidProof", async () => {
    const before = await scrape();
    const confirmed = 'relay_relays_total{network="mainnet",kind="relay",outcome="confirmed",error=""}';
    const invalid = 'relay_relays_rejected_total{error="InvalidProof"}';
    const w = await prepareWithdrawal(h.url, depositor, USDC, { recipient: testRecipient("metrics-1"), amount: 1_000_000, chain: h.chain });
    const bad = structuredClone(w.body);
    bad.proof[5] = bad.proof[5]! ^ 1;
    expect((await post(`${h.url}/relay`, bad, { "x-api-auth": token })).json).toMatchObject({ error: "InvalidProof" });
    expect((await post(`${h.url}/relay`, w.body, { "x-api-auth": token })).status).toBe(200);
    const after = await scrape();
    expect(sample(after.text, confirmed) - sample(before.text, confirmed)).toBe(1);
    expect(sample(after.text, invalid) - sample(before.text, invalid)).toBe(1);
    for (const stage of ["verify", "submit", "confirm"]) {
      const count = `relay_stage_seconds_count{stage="${stage}"}`;
      expect(sample(after.text, count)).toBeGreaterThan(sample(before.text, count));
    }
    // No recipient, nullifier or depositor in any label.
    expect(after.text).not.toContain(w.body.recipient);
    expect(after.text).not.toContain(depositor.address);
  }, 120_000);

  it("shows the sandbox fee payer's balance only during the drill", async () => {
    expect((await scrape()).text).not.toMatch(/^relay_fee_payer_lamports\{network="mainnet"\}/m);
    const r = await fetch(`${h.url}/admin/sandbox/faults`, {
      method: "POST",
      headers: { authorization: `Bearer ${OPERATOR}`, "content-type": "application/json" },
      body: JSON.stringify({ network: "mainnet", feePayerLamports: "0" }),
    });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { faults: { network: string; feePayerLamports: string | null }[] }).faults).toContainEqual({
      network: "mainnet",
      chainDown: false,
      feePayerLamports: "0",
    });
  });

  it("refuses a proxied request (X-Forwarded-For) without the operator token with 401, and serves it with the token", async () => {
    const proxied = await scrape({ "x-forwarded-for": "203.0.113.9" });
    expect(proxied.status).toBe(401);
    expect(JSON.parse(proxied.text)).toMatchObject({ error: "Unauthorized" });
    expect(proxied.text).not.toContain("relay_relays_total");
    expect((await scrape({ "x-forwarded-for": "203.0.113.9", authorization: "Bearer wrong-token-wrong-token-wrong" })).status).toBe(401);
    const withToken = await scrape({ "x-forwarded-for": "203.0.113.9", authorization: `Bearer ${OPERATOR}` });
    expect(withToken.status).toBe(200);
    expect(withToken.text).toContain("relay_relays_total");
  });

  it("counts rate-limit rejections per endpoint", async () => {
    const name = 'relay_rate_limit_rejections_total{endpoint="get_node"}';
    const before = sample((await scrape()).text, name);
    let refused = 0;
    for (let i = 0; i < 130 && refused === 0; i++) {
      const r = await post(`${h.url}/get_node/${USDC}/32/1/mainnet`);
      if (r.status === 429) refused++;
    }
    expect(refused).toBe(1);
    expect(sample((await scrape()).text, name) - before).toBeGreaterThanOrEqual(1);
  });
});

describe("GET /metrics with metrics.loopbackWithoutToken off", () => {
  it("needs the operator token even on loopback", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "metrics-cfg-"));
    const file = path.join(dir, "relay.json");
    writeFileSync(file, JSON.stringify({ metrics: { loopbackWithoutToken: false } }));
    const relay = await startRelay({ RELAY_CONFIG: file, RELAY_OPERATOR_TOKEN: OPERATOR });
    try {
      expect((await scrape({}, relay.url)).status).toBe(401);
      expect((await scrape({ authorization: `Bearer ${OPERATOR}` }, relay.url)).status).toBe(200);
    } finally {
      await relay.stop();
      relay.cleanup();
    }
  }, 60_000);

  it("refuses to start on an unknown metrics setting, naming the key", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "metrics-cfg-"));
    const file = path.join(dir, "relay.json");
    writeFileSync(file, JSON.stringify({ metrics: { public: true } }));
    await expect(startRelay({ RELAY_CONFIG: file })).rejects.toThrow(/config metrics\.public: is not a known setting/);
  }, 60_000);
});
