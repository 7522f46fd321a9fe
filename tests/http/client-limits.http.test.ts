import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeBase58, parseSignature } from "../../src-shared/encoding/base58";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { rawRequest, type RawAnswer } from "../support/raw-http";
import { newWallet, type TestWallet } from "../support/wallet";

/**
 * docs/security.md, "Rate limits" and "Client address": limits count the client
 * address (after the trusted proxies only) and the token's wallet; fresh wallets,
 * fresh tokens and a forged X-Forwarded-For buy nothing. Each test sends from its
 * own loopback address (127.0.0.x), so the tests share a relay but not a client.
 */

const OPERATOR_TOKEN = "client-limits-operator-token-0123456789";

function configFile(content: unknown): string {
  const f = path.join(mkdtempSync(path.join(tmpdir(), "client-limits-")), "config.json");
  writeFileSync(f, JSON.stringify(content));
  return f;
}

const now = (): number => Math.floor(Date.now() / 1000);
const randomIpv4 = (): string => [...randomBytes(4)].map((b) => String(b)).join(".");

function login(url: string, w: TestWallet, from: string, opts: { message?: number; badSignature?: boolean; xff?: string } = {}): Promise<RawAnswer> {
  const message = opts.message ?? now();
  const signature = opts.badSignature ? encodeBase58(randomBytes(64)) : w.sign(String(message));
  return rawRequest(`${url}/login`, {
    body: { wallet: w.address, signature, message },
    localAddress: from,
    headers: opts.xff ? { "x-forwarded-for": opts.xff } : {},
  });
}

const adminWithWrongToken = (url: string, from: string, xff: string): Promise<RawAnswer> =>
  rawRequest(`${url}/admin/session`, {
    method: "GET",
    localAddress: from,
    headers: { authorization: "Bearer this-is-not-the-operator-token", "x-forwarded-for": xff },
  });

async function statuses(n: number, send: (i: number) => Promise<RawAnswer>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send(i)).status);
  return out;
}

describe("no proxy trusted (the default): the socket's address is the client", () => {
  let relay: RelayProcess;
  beforeAll(async () => {
    relay = await startRelay({
      RELAY_OPERATOR_TOKEN: OPERATOR_TOKEN,
      RELAY_CONFIG: configFile({ rateLimits: { tokensPerIpPerHour: 25, liveTokensPerWallet: 3 } }),
    });
  });
  afterAll(async () => {
    await relay?.stop();
    relay?.cleanup();
  });

  it("limits /login by address before the signature is checked: 30 bad signatures from fresh wallets, then 429 RateLimited", async () => {
    const from = "127.0.0.11";
    const answers = await statuses(30, () => login(relay.url, newWallet(), from, { badSignature: true }));
    expect(answers).toEqual(Array(30).fill(400));
    const refused = await login(relay.url, newWallet(), from);
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ error: "RateLimited" });
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(refused.headers["ratelimit-limit"]).toBe("30");
    expect(refused.headers["ratelimit-remaining"]).toBe("0");
    // Another address is another client.
    expect((await login(relay.url, newWallet(), "127.0.0.111")).status).toBe(200);
  });

  it("counts /relay by address whatever token is sent: ten relays with ten fresh wallets' tokens, the eleventh wallet is refused", async () => {
    const from = "127.0.0.12";
    const tokens: string[] = [];
    for (let i = 0; i < 11; i++) {
      const r = await login(relay.url, newWallet(), from);
      expect(r.status).toBe(200);
      tokens.push((r.json as { id: string }).id);
    }
    const relayWith = (token: string, source: string): Promise<RawAnswer> =>
      rawRequest(`${relay.url}/relay`, { body: {}, localAddress: source, headers: { "x-api-auth": token } });
    // An empty body is InvalidRequest (400), but only after the limit has counted it.
    const answers = await statuses(10, (i) => relayWith(tokens[i]!, from));
    expect(answers).toEqual(Array(10).fill(400));
    const refused = await relayWith(tokens[10]!, from);
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ status: 429, error: "RateLimited" });
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
  });

  it("counts /relay by wallet too: a wallet that used its ten relays is refused from a fresh address, which alone is not", async () => {
    const r = await login(relay.url, newWallet(), "127.0.0.18");
    const token = (r.json as { id: string }).id;
    const relayFrom = (source: string, headers: Record<string, string>): Promise<RawAnswer> =>
      rawRequest(`${relay.url}/relay`, { body: {}, localAddress: source, headers });
    expect(await statuses(10, (i) => relayFrom(`127.0.1.${i + 1}`, { "x-api-auth": token }))).toEqual(Array(10).fill(400));
    const refused = await relayFrom("127.0.0.19", { "x-api-auth": token });
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ status: 429, error: "RateLimited" });
    expect((await relayFrom("127.0.0.19", {})).status).toBe(400);
  });

  it("ignores a rotating X-Forwarded-For: /login and the operator-token lockout count the socket's address", async () => {
    const from = "127.0.0.13";
    const logins = await statuses(31, () => login(relay.url, newWallet(), from, { badSignature: true, xff: randomIpv4() }));
    expect(logins.slice(0, 30)).toEqual(Array(30).fill(400));
    expect(logins[30]).toBe(429);

    const admin = await statuses(25, () => adminWithWrongToken(relay.url, "127.0.0.14", randomIpv4()));
    expect(admin.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(admin.slice(20)).toEqual(Array(5).fill(429));
  });

  it("caps tokens: a wallet holds at most liveTokensPerWallet, an address gets at most tokensPerIpPerHour", async () => {
    const w = newWallet();
    const from = "127.0.0.15";
    const t = now();
    for (let i = 0; i < 3; i++) expect((await login(relay.url, w, from, { message: t - i })).status).toBe(200);
    const fourth = await login(relay.url, w, "127.0.0.16", { message: t - 3 });
    expect(fourth.status).toBe(429);
    expect(fourth.json).toMatchObject({ error: "RateLimited", message: expect.stringMatching(/3 live tokens/) });
    // Until the oldest token expires (auth.tokenTtlSec, a day by default).
    expect(Number(fourth.headers["retry-after"])).toBeGreaterThan(3600);

    // 25 tokens per address per hour (this relay's setting): 3 above and 22 more, then refused.
    const more = await statuses(22, () => login(relay.url, newWallet(), from));
    expect(more).toEqual(Array(22).fill(200));
    const over = await login(relay.url, newWallet(), from);
    expect(over.status).toBe(429);
    expect(over.json).toMatchObject({ error: "RateLimited", message: expect.stringMatching(/25 tokens in the last hour/) });
  });

  it("verifies login signatures natively: a signature whose S was increased by the group order is Invalid signature", async () => {
    const w = newWallet();
    const t = now();
    const parsed = parseSignature(w.sign(String(t)));
    if (!parsed.ok) throw new Error("the test wallet signed something that is not a signature");
    const sig = parsed.value;
    const L = (1n << 252n) + 27742317777372353535851937790883648493n;
    let s = 0n;
    for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(sig[i]!);
    const malleated = Uint8Array.from(sig);
    for (let i = 0; i < 32; i++) malleated[32 + i] = Number(((s + L) >> BigInt(8 * i)) & 0xffn);
    const r = await rawRequest(`${relay.url}/login`, {
      body: { wallet: w.address, signature: encodeBase58(malleated), message: t },
      localAddress: "127.0.0.17",
    });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: "Invalid signature" });
    // The canonical signature of the same login is accepted.
    expect((await login(relay.url, w, "127.0.0.17", { message: t })).status).toBe(200);
  });
});

describe("one proxy trusted (http.trustProxy 1): only the last X-Forwarded-For hop is the client", () => {
  let relay: RelayProcess;
  beforeAll(async () => {
    relay = await startRelay({ RELAY_OPERATOR_TOKEN: OPERATOR_TOKEN, RELAY_CONFIG: configFile({ http: { trustProxy: 1 } }) });
  });
  afterAll(async () => {
    await relay?.stop();
    relay?.cleanup();
  });

  it("counts the last hop: entries a client puts before it change nothing, another last hop is another client", async () => {
    const from = "127.0.0.21";
    const answers = await statuses(31, () => login(relay.url, newWallet(), from, { badSignature: true, xff: `${randomIpv4()}, 203.0.113.7` }));
    expect(answers.slice(0, 30)).toEqual(Array(30).fill(400));
    expect(answers[30]).toBe(429);
    expect((await login(relay.url, newWallet(), from, { badSignature: true, xff: "203.0.113.8" })).status).toBe(400);
  });

  it("keys the operator-token lockout on the last hop", async () => {
    const admin = await statuses(22, () => adminWithWrongToken(relay.url, "127.0.0.22", `${randomIpv4()}, 198.51.100.9`));
    expect(admin.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(admin.slice(20)).toEqual([429, 429]);
  });

  it("counts an IPv6 client by its /64: rotating the last 64 bits is one client", async () => {
    const answers = await statuses(31, (i) =>
      login(relay.url, newWallet(), "127.0.0.23", { badSignature: true, xff: `2001:db8:5:6:${(i + 1).toString(16)}::${i + 7}` }),
    );
    expect(answers.slice(0, 30)).toEqual(Array(30).fill(400));
    expect(answers[30]).toBe(429);
    expect((await login(relay.url, newWallet(), "127.0.0.23", { badSignature: true, xff: "2001:db8:5:7::1" })).status).toBe(400);
  });
});

describe("http.trustProxy true", () => {
  it("stops the start with exit 2 and says what to set instead", async () => {
    await expect(startRelay({ RELAY_CONFIG: configFile({ http: { trustProxy: true } }) })).rejects.toThrow(
      /exited with 2[\s\S]*http\.trustProxy: true is refused/,
    );
  });
});
