/**
 * The relay's front door against the real relay process (docs/security.md,
 * "Cross-site requests" and "Rate limits"): requests a page on another origin
 * makes the operator's browser send are refused 403 before anything counts
 * them; requests without an operator token do not feed the sign-in lockout;
 * a rate limit refuses before a byte of the body is read; an IPv6 /48 shares
 * one budget across its /64s.
 */
import http from "node:http";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, sendRaw, type RawAnswer } from "../support/raw-http";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { USDC } from "../support/sandbox";
import { newWallet, type TestWallet } from "../support/wallet";

const OPERATOR = "front-door-test-operator-token-0123456789";
const configFile = (content: unknown): string => {
  const f = path.join(mkdtempSync(path.join(tmpdir(), "front-door-")), "relay.json");
  writeFileSync(f, JSON.stringify(content));
  return f;
};
const now = (): number => Math.floor(Date.now() / 1000);
const signedLogin = (w: TestWallet, t = now()) => ({ wallet: w.address, signature: w.sign(String(t)), message: t });
/** What a page on evil.example makes the browser send with a form POST: Origin, a form type, no body. */
const formPost = (url: string, from: string): Promise<RawAnswer> =>
  sendRaw(url, {
    headers: { origin: "http://evil.example", "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "cross-site" },
    body: "",
    localAddress: from,
  });
/** What an <img> on evil.example makes the browser send: a GET with no Origin, Sec-Fetch-Site cross-site. */
const imgGet = (url: string, from: string): Promise<RawAnswer> =>
  sendRaw(url, { method: "GET", headers: { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors", "sec-fetch-dest": "image" }, localAddress: from });
const admin = (relay: RelayProcess, from: string, authorization?: string): Promise<RawAnswer> =>
  sendRaw(`${relay.url}/admin/session`, { method: "GET", headers: authorization ? { authorization } : {}, localAddress: from });

describe("cross-site requests and the sign-in lockout", () => {
  let relay: RelayProcess;
  beforeAll(async () => {
    relay = await startRelay({ RELAY_OPERATOR_TOKEN: OPERATOR });
  }, 60_000);
  afterAll(async () => {
    await relay?.stop();
    relay?.cleanup();
  });

  it("refuses 40 cross-site form POSTs to /login with 403 CrossOriginRequest and counts none: the address then logs in", async () => {
    const from = "127.0.0.31";
    for (let i = 0; i < 40; i++) {
      const r = await formPost(`${relay.url}/login`, from);
      expect(r.status, `request ${i}`).toBe(403);
      expect(r.json).toMatchObject({ error: "CrossOriginRequest", message: expect.stringContaining("http.allowedOrigins") });
      expect(r.headers["ratelimit-remaining"]).toBeUndefined();
    }
    const ok = await rawRequest(`${relay.url}/login`, { body: signedLogin(newWallet()), localAddress: from });
    expect(ok.status).toBe(200);
    expect(ok.headers["ratelimit-remaining"]).toBe("29");
  });

  it("refuses cross-site <img> GETs to the operator's endpoints and counts none: the operator then signs in", async () => {
    const from = "127.0.0.32";
    for (let i = 0; i < 30; i++) {
      for (const p of ["/admin/session", "/admin/relays", "/health/detail", "/metrics"]) expect((await imgGet(`${relay.url}${p}`, from)).status, p).toBe(403);
    }
    expect((await admin(relay, from, `Bearer ${OPERATOR}`)).status).toBe(200);
  });

  it("answers a request's own origin and one without Origin; refuses another in the endpoint's shape, /relay and the front door's reads too", async () => {
    const from = "127.0.0.33";
    const own = await rawRequest(`${relay.url}/login`, { body: signedLogin(newWallet()), headers: { origin: relay.url }, localAddress: from });
    expect(own.status).toBe(200);
    const relayAnswer = await rawRequest(`${relay.url}/relay`, { body: {}, headers: { origin: "http://127.0.0.1:1" }, localAddress: from });
    expect(relayAnswer.status).toBe(403);
    expect(relayAnswer.json).toMatchObject({ status: 403, error: "CrossOriginRequest" });
    const read = `${relay.url}/get_merkle/${USDC}/32/mainnet`;
    const before = await sendRaw(read, { localAddress: from });
    expect(before.status).toBe(200);
    const remaining = Number(before.headers["ratelimit-remaining"]);
    for (let i = 0; i < 5; i++) expect((await formPost(read, from)).status).toBe(403);
    expect(Number((await sendRaw(read, { localAddress: from })).headers["ratelimit-remaining"])).toBe(remaining - 1);
    // A link followed to a public endpoint is a person reading it: answered.
    const link = await sendRaw(`${relay.url}/version`, {
      method: "GET",
      headers: { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" },
    });
    expect(link.status).toBe(200);
  });

  it("does not count requests without an operator token toward the lockout; wrong tokens still lock the address out", async () => {
    const from = "127.0.0.34";
    for (let i = 0; i < 40; i++) expect((await admin(relay, from)).status).toBe(401);
    expect((await admin(relay, from, `Bearer ${OPERATOR}`)).status).toBe(200);
    const wrong = [];
    for (let i = 0; i < 21; i++) wrong.push((await admin(relay, from, "Bearer not-the-operator-token-at-all")).status);
    expect(wrong.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(wrong[20]).toBe(429);
    const locked = await admin(relay, from, `Bearer ${OPERATOR}`);
    expect(locked.status).toBe(429);
    expect(locked.json).toMatchObject({ message: "too many failed sign-ins; wait and try again" });
  });
});

describe("http.allowedOrigins", () => {
  it("answers a configured origin besides the relay's own, and still refuses any other", async () => {
    const relay = await startRelay({ RELAY_CONFIG: configFile({ http: { allowedOrigins: ["https://console.example.org"] } }) });
    try {
      const login = (origin: string) => rawRequest(`${relay.url}/login`, { body: signedLogin(newWallet()), headers: { origin } });
      expect((await login("https://console.example.org")).status).toBe(200);
      expect((await login(relay.url)).status).toBe(200);
      expect((await login("https://other.example.org")).status).toBe(403);
    } finally {
      await relay.stop();
      relay.cleanup();
    }
  }, 60_000);
});

describe("rate limits before the body and per IPv6 /48", () => {
  let relay: RelayProcess;
  beforeAll(async () => {
    // ipv6Per48Multiple at its default, 8: a /48 makes 16 is_logged a minute.
    relay = await startRelay({ RELAY_CONFIG: configFile({ http: { trustProxy: 1 }, rateLimits: { perEndpoint: { login: 3, is_logged: 2 } } }) });
  }, 60_000);
  afterAll(async () => {
    await relay?.stop();
    relay?.cleanup();
  });

  it("refuses a request over its limit before reading its body: 429 while the 28 KB body is still unsent", async () => {
    const xff = "198.51.100.40";
    for (let i = 0; i < 3; i++) expect((await rawRequest(`${relay.url}/login`, { body: {}, headers: { "x-forwarded-for": xff } })).status).toBe(400);
    const started = Date.now();
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${relay.url}/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(28 * 1024), "x-forwarded-for": xff },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on("error", reject);
      req.flushHeaders();
      // No byte of the body is ever sent: a parser that waits for it answers only at the request time-out (30 s).
    });
    expect(status).toBe(429);
    expect(Date.now() - started).toBeLessThan(5000);
  }, 15_000);

  it("refuses every /64 of a /48 once the /48 made eight times the per-client limit; another /48 is answered", async () => {
    const isLogged = (xff: string) => sendRaw(`${relay.url}/is_logged/nope`, { method: "GET", headers: { "x-forwarded-for": xff } });
    const statuses: number[] = [];
    for (let i = 0; i < 16; i++) statuses.push((await isLogged(`2001:db8:7:${(i >> 1) + 1}::${i + 1}`)).status);
    expect(statuses).toEqual(Array(16).fill(200));
    const refused = await isLogged("2001:db8:7:99::1");
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ error: "RateLimited" });
    expect((await isLogged("2001:db8:8:1::1")).status).toBe(200);
  });
});
