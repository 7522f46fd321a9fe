/**
 * Structured logs of a running relay (sandbox): JSON lines on stdout and in
 * <dataDir>/logs/relay.log, one per request (with a request id, answered as
 * X-Request-Id) and one per relay state change; after a real withdrawal no
 * line holds both the depositor and the recipient, none holds a nullifier
 * next to a client address, client addresses appear only when the operator
 * turns them on, and no secret or URL path is written. The console's Relay
 * detail reads that relay's lines.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { relayHarness, type RelayHarness } from "../support/harness";
import { prepareWithdrawal, testRecipient, type PreparedWithdrawal } from "../support/proofs";
import { startRelay } from "../support/relay-process";
import { USDC } from "../support/sandbox";
import { sandboxTestChain } from "../support/test-chain";
import { get, newWallet, post, type TestWallet } from "../support/wallet";

const OPERATOR = "logs-test-operator-token-0123456789abcdef";
const JUPITER_KEY = "jupiter-api-key-5ecr3t-0123456789";
const HOOK = "https://hooks.example.com/services/T000/B000/W3BH00K5ECRET";
/** The plain lines scripts wait for (start and stop); everything else is JSON. */
const PLAIN = [/^relay \S+ listening on http:\/\/\S+ \(console: /, /^SIGTERM: stopping$/, /^stopped; store flushed$/];

let h: RelayHarness;
let depositor: TestWallet;
let token: string;
let w: PreparedWithdrawal;
let relayId: string;
let logFile: string;

const lines = (text: string): string[] => text.split("\n").filter((l) => l.trim() !== "");
const parsed = (text: string) =>
  lines(text)
    .filter((l) => !PLAIN.some((p) => p.test(l)))
    .map((l) => JSON.parse(l) as Record<string, unknown> & { msg: string });

beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "logs-cfg-"));
  const file = path.join(dir, "relay.json");
  writeFileSync(file, JSON.stringify({ alerts: { webhook: { url: HOOK, format: "slack" } } }));
  const env = { RELAY_CONFIG: file, RELAY_OPERATOR_TOKEN: OPERATOR, RELAY_JUPITER_API_KEY: JUPITER_KEY, RELAY_RATE_LIMITS: "off" };
  h = relayHarness(
    "sandbox",
    await startRelay(env),
    (d) => startRelay(env, d),
    (url) => sandboxTestChain(url, "mainnet"),
    "FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ",
  );
  logFile = path.join(h.relay.dataDir, "logs", "relay.log");
  depositor = newWallet();
  await h.chain.fund(depositor, 100_000_000, USDC);
  const t = Math.floor(Date.now() / 1000);
  token = ((await post(`${h.url}/login`, { wallet: depositor.address, signature: depositor.sign(String(t)), message: t })).json as { id: string }).id;
  w = await prepareWithdrawal(h.url, depositor, USDC, { recipient: testRecipient("logs-recipient"), amount: 1_000_000, chain: h.chain });
  const r = await post(`${h.url}/relay`, w.body, { "x-api-auth": token });
  expect(r.status).toBe(200);
  await get(`${h.url}/is_logged/${token}`);
  const page = (await (await fetch(`${h.url}/admin/relays?limit=5`, { headers: { authorization: `Bearer ${OPERATOR}` } })).json()) as {
    items: { id: string; signature: string | null }[];
  };
  relayId = page.items.find((i) => i.signature === (r.json as { signature: string }).signature)!.id;
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

describe("structured logs", () => {
  it("writes JSON lines to stdout and to the rotated file in the data dir, keeping the plain `listening on` line", () => {
    const out = h.relay.output();
    expect(lines(out).some((l) => PLAIN[0]!.test(l))).toBe(true);
    const json = parsed(out);
    expect(json.length).toBeGreaterThan(10);
    for (const l of json) expect(l).toMatchObject({ level: expect.stringMatching(/^(info|warn|error)$/), time: expect.any(Number), msg: expect.any(String) });
    expect(existsSync(logFile)).toBe(true);
    const file = parsed(readFileSync(logFile, "utf8"));
    expect(file.some((l) => l.msg.startsWith("config: host="))).toBe(true);
  });

  it("logs one line per request that is not a successful read, with a request id (also answered as X-Request-Id), by route pattern, without the client address", async () => {
    const r = await post(`${h.url}/login`, { wallet: "not-a-wallet", signature: "x", message: 1 });
    expect(r.status).toBe(400);
    const reqId = r.headers.get("x-request-id");
    expect(reqId).toMatch(/^[0-9a-f-]{36}$/);
    await new Promise((res) => setTimeout(res, 100));
    const line = parsed(h.relay.output()).find((l) => l.reqId === reqId);
    expect(line).toMatchObject({ method: "POST", route: "/login", status: 400, ms: expect.any(Number) });
    expect(line).not.toHaveProperty("ip");
    expect(parsed(h.relay.output()).find((l) => l.route === "/relay" && l.status === 200)).toBeDefined();
    for (const l of parsed(h.relay.output()).filter((x) => x.reqId)) expect(JSON.stringify(l)).not.toMatch(/127\.0\.0\.1|::1|::ffff/);
  });

  it("leaves successful reads (GET, get_*, is_logged) out of the log by default: /metrics counts them", async () => {
    const version = await fetch(`${h.url}/version`);
    const reqId = version.headers.get("x-request-id");
    expect(reqId).toMatch(/^[0-9a-f-]{36}$/);
    await new Promise((res) => setTimeout(res, 100));
    const json = parsed(h.relay.output());
    expect(json.find((l) => l.reqId === reqId)).toBeUndefined();
    expect(json.find((l) => l.route === "/is_logged/:id")).toBeUndefined();
    expect(json.find((l) => typeof l.route === "string" && l.route.startsWith("/get_") && l.status === 200)).toBeUndefined();
    const metrics = await (await fetch(h.relay.metricsUrl!)).text();
    expect(metrics).toMatch(/^relay_http_requests_total\{method="GET",route="\/version",status="200"\} [1-9]/m);
    expect(metrics).toMatch(/^relay_http_requests_total\{method="GET",route="\/is_logged\/:id",status="200"\} [1-9]/m);
    expect(metrics).toMatch(/^relay_http_request_seconds_count\{route="\/version"\} [1-9]/m);
  });

  it("logs one line per relay state change, and the console reads that relay's lines", async () => {
    const states = parsed(h.relay.output())
      .filter((l) => l.relayId === relayId && typeof l.state === "string")
      .map((l) => l.state);
    expect(states).toEqual(["received", "verified", "submitted", "confirmed"]);
    const r = await fetch(`${h.url}/admin/relays/${relayId}/log`, { headers: { authorization: `Bearer ${OPERATOR}` } });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { lines: { state?: string; msg: string }[] };
    expect(body.lines.map((l) => l.state).filter(Boolean)).toEqual(["received", "verified", "submitted", "confirmed"]);
    expect((await fetch(`${h.url}/admin/relays/${relayId}/log`)).status).toBe(401);
  });

  it("never holds the depositor and the recipient in one line, nor a nullifier with a client address", () => {
    const nullifierHex = Buffer.from(w.body.nullifierHash).toString("hex");
    for (const text of [h.relay.output(), readFileSync(logFile, "utf8")]) {
      for (const l of lines(text)) {
        expect(l.includes(depositor.address) && l.includes(w.body.recipient), l).toBe(false);
        if (l.includes(nullifierHex)) expect(l, l).not.toMatch(/127\.0\.0\.1|::1|"ip"/);
      }
    }
  });

  it("writes no secret and no URL path: operator token, API key, webhook URL, auth token", () => {
    for (const text of [h.relay.output(), readFileSync(logFile, "utf8")]) {
      for (const secret of [OPERATOR, JUPITER_KEY, "W3BH00K5ECRET", "/services/T000", token]) expect(text).not.toContain(secret);
    }
    expect(h.relay.output()).toContain("https://hooks.example.com/…");
  });
});

describe("structured logs with logs.clientIps on and logs.requests all", () => {
  it("puts the client address in request lines, and logs successful reads too", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "logs-ips-"));
    const file = path.join(dir, "relay.json");
    writeFileSync(file, JSON.stringify({ logs: { clientIps: true, file: false, requests: "all" } }));
    const relay = await startRelay({ RELAY_CONFIG: file });
    try {
      const reqId = (await fetch(`${relay.url}/version`)).headers.get("x-request-id");
      await new Promise((res) => setTimeout(res, 100));
      expect(parsed(relay.output()).find((l) => l.reqId === reqId)).toMatchObject({
        route: "/version",
        status: 200,
        ip: expect.stringMatching(/127\.0\.0\.1/),
      });
      expect(existsSync(path.join(relay.dataDir, "logs", "relay.log"))).toBe(false);
    } finally {
      await relay.stop();
      relay.cleanup();
    }
  }, 60_000);
});
