/**
 * GET /metrics against a running relay (sandbox): Prometheus text whose
 * relay counters and stage histogram move with real relays, rate-limit
 * rejections per endpoint, the fee payer's balance during the drill, and the
 * access rule: the metrics listener (its own port, loopback) without a token,
 * the main port only with the operator token, whoever asks (a local nginx's
 * stock proxy_pass included). The text is rendered at most once a second.
 */
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src-server/config/load";
import { startServer } from "../../src-server/index";
import { sandboxHarness, type RelayHarness } from "../support/harness";
import { prepareWithdrawal, testRecipient } from "../support/proofs";
import { startRelay } from "../support/relay-process";
import { USDC } from "../support/sandbox";
import { sendRaw } from "../support/raw-http";
import { newWallet, post, type TestWallet } from "../support/wallet";

const OPERATOR = "metrics-test-operator-token-0123456789";
let h: RelayHarness;
let depositor: TestWallet;
let token: string;

/** The metrics listener by default; `url` a relay's main port. */
const scrape = async (headers: Record<string, string> = {}, url?: string): Promise<{ status: number; type: string | null; text: string }> => {
  const r = await fetch(url ? `${url}/metrics` : h.relay.metricsUrl!, { headers });
  return { status: r.status, type: r.headers.get("content-type"), text: await r.text() };
};
/** A scrape after the cached text (one second) has expired: counters moved since the last one show. */
const freshScrape = async (): Promise<{ status: number; type: string | null; text: string }> => {
  await new Promise((r) => setTimeout(r, 1100));
  return scrape();
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
  it("answers Prometheus text on the metrics listener without a token, with process metrics", async () => {
    expect(h.relay.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(h.relay.metricsUrl).not.toContain(new URL(h.url).host);
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
    const after = await freshScrape();
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

  it("answers the main port's /metrics only with the operator token: not to a direct loopback request, not to a local nginx's stock proxy_pass", async () => {
    const direct = await scrape({}, h.url);
    expect(direct.status).toBe(401);
    expect(JSON.parse(direct.text)).toMatchObject({ error: "Unauthorized" });
    // nginx's default proxy_pass: Host 127.0.0.1:<port>, no X-Forwarded-For, from a loopback peer.
    const nginx = await sendRaw(`${h.url}/metrics`, { method: "GET", headers: { host: new URL(h.url).host, connection: "close" } });
    expect(nginx.status).toBe(401);
    expect(nginx.text).not.toContain("relay_relays_total");
    const withToken = await scrape({ authorization: `Bearer ${OPERATOR}` }, h.url);
    expect(withToken.status).toBe(200);
    expect(withToken.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(withToken.text).toContain("relay_relays_total");
  });

  it("keeps the metrics listener to this machine's own scraper: a rebound Host is 421, a page of another origin 403, and it serves /metrics alone", async () => {
    const port = new URL(h.relay.metricsUrl!).port;
    const rebound = await sendRaw(h.relay.metricsUrl!, { method: "GET", headers: { host: `evil.example:${port}` } });
    expect(rebound.status).toBe(421);
    expect(rebound.text).not.toContain("relay_");
    const crossSite = await sendRaw(h.relay.metricsUrl!, { method: "GET", headers: { origin: "http://evil.example" } });
    expect(crossSite.status).toBe(403);
    expect(crossSite.json).toMatchObject({ error: "CrossOriginRequest" });
    const img = await sendRaw(h.relay.metricsUrl!, { method: "GET", headers: { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors" } });
    expect(img.status).toBe(403);
    expect((await sendRaw(h.relay.metricsUrl!.replace(/\/metrics$/, "/admin/relays"), { method: "GET" })).status).toBe(404);
    expect((await sendRaw(h.relay.metricsUrl!, { method: "POST" })).status).toBe(405);
  });

  it("renders the text at most once a second: scrapes within a second get the same text though requests were answered between them", async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const first = (await scrape()).text;
    for (let i = 0; i < 5; i++) await fetch(`${h.url}/version`);
    const second = (await scrape({ authorization: `Bearer ${OPERATOR}` }, h.url)).text;
    expect(second).toBe(first);
    const later = (await freshScrape()).text;
    expect(later).not.toBe(first);
  });

  it("refuses a proxied request (X-Forwarded-For) without the operator token with 401, and serves it with the token", async () => {
    const proxied = await scrape({ "x-forwarded-for": "203.0.113.9" }, h.url);
    expect(proxied.status).toBe(401);
    expect(JSON.parse(proxied.text)).toMatchObject({ error: "Unauthorized" });
    expect(proxied.text).not.toContain("relay_relays_total");
    expect((await scrape({ "x-forwarded-for": "203.0.113.9", authorization: "Bearer wrong-token-wrong-token-wrong" }, h.url)).status).toBe(401);
    const withToken = await scrape({ "x-forwarded-for": "203.0.113.9", authorization: `Bearer ${OPERATOR}` }, h.url);
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
    expect(sample((await freshScrape()).text, name) - before).toBeGreaterThanOrEqual(1);
  });

  it("closes the metrics listener when the relay stops", async () => {
    const relay = await startRelay({ RELAY_OPERATOR_TOKEN: OPERATOR });
    const url = relay.metricsUrl!;
    expect((await fetch(url)).status).toBe(200);
    expect(await relay.stop()).toBe(0);
    relay.cleanup();
    await expect(fetch(url)).rejects.toThrow();
  }, 60_000);
});

describe("the metrics listener's settings", () => {
  it("has none with RELAY_METRICS_PORT=off; the main port still answers with the token", async () => {
    const relay = await startRelay({ RELAY_METRICS_PORT: "off", RELAY_OPERATOR_TOKEN: OPERATOR });
    try {
      expect(relay.metricsUrl).toBeNull();
      expect((await scrape({ authorization: `Bearer ${OPERATOR}` }, relay.url)).status).toBe(200);
    } finally {
      await relay.stop();
      relay.cleanup();
    }
  }, 60_000);

  it("stops the start when a port the operator set is taken, and skips a taken default port with a warning", async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      await expect(startRelay({ RELAY_METRICS_PORT: String(port) })).rejects.toThrow(new RegExp(`metrics listener on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
      const dir = mkdtempSync(path.join(tmpdir(), "metrics-default-"));
      const loaded = loadConfig({ RELAY_PORT: "0", RELAY_DATA_DIR: dir, RELAY_RATE_LIMITS: "off" });
      const lines: string[] = [];
      const running = await startServer({ ...loaded, metrics: { ...loaded.metrics, port } }, { log: (l) => lines.push(l) });
      try {
        expect(running.metricsUrl).toBeNull();
        expect(lines.join("\n")).toContain(`metrics: 127.0.0.1:${port} is in use; no metrics listener`);
      } finally {
        await running.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  }, 60_000);

  it("refuses metrics.loopbackWithoutToken true, the exemption a local reverse proxy opened to everyone", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "metrics-cfg-"));
    const file = path.join(dir, "relay.json");
    writeFileSync(file, JSON.stringify({ metrics: { loopbackWithoutToken: true } }));
    await expect(startRelay({ RELAY_CONFIG: file })).rejects.toThrow(/config metrics\.loopbackWithoutToken: true is no longer supported/);
  }, 60_000);

  it("refuses to start on an unknown metrics setting, naming the key", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "metrics-cfg-"));
    const file = path.join(dir, "relay.json");
    writeFileSync(file, JSON.stringify({ metrics: { public: true } }));
    await expect(startRelay({ RELAY_CONFIG: file })).rejects.toThrow(/config metrics\.public: is not a known setting/);
  }, 60_000);
});
