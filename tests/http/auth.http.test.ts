import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { get, newWallet, post } from "../support/wallet";

let relay: RelayProcess;
const now = (): number => Math.floor(Date.now() / 1000);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(async () => {
  relay = await startRelay({ RELAY_RATE_LIMITS: "off" });
});
afterAll(async () => {
  await relay?.stop();
  relay?.cleanup();
});

describe("POST /login", () => {
  it("returns a UUID token for a wallet that signed the current timestamp, and is_logged says true", async () => {
    const w = newWallet();
    const t = now();
    const r = await post(`${relay.url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t });
    expect(r.status).toBe(200);
    const { id } = r.json as { id: string };
    expect(id).toMatch(UUID);
    const logged = await get(`${relay.url}/is_logged/${id}`);
    expect(logged.status).toBe(200);
    expect(logged.text).toBe("true");
  });

  it("answers 400 Invalid signature when another key signed, or the signed text differs", async () => {
    const w = newWallet();
    const other = newWallet();
    const t = now();
    for (const body of [
      { wallet: w.address, signature: other.sign(String(t)), message: t },
      { wallet: w.address, signature: w.sign(String(t - 1)), message: t },
      { wallet: w.address, signature: "1111", message: t },
    ]) {
      const r = await post(`${relay.url}/login`, body);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ error: "Invalid signature" });
    }
  });

  it("answers 400 Message too old for a stale timestamp, one too far ahead, and a replay", async () => {
    const w = newWallet();
    const old = now() - 301;
    const stale = await post(`${relay.url}/login`, { wallet: w.address, signature: w.sign(String(old)), message: old });
    expect(stale.status).toBe(400);
    expect(stale.json).toMatchObject({ error: "Message too old" });
    const ahead = now() + 120;
    const future = await post(`${relay.url}/login`, { wallet: w.address, signature: w.sign(String(ahead)), message: ahead });
    expect(future.json).toMatchObject({ error: "Message too old" });
    const t = now();
    const body = { wallet: w.address, signature: w.sign(String(t)), message: t };
    expect((await post(`${relay.url}/login`, body)).status).toBe(200);
    const replay = await post(`${relay.url}/login`, body);
    expect(replay.status).toBe(400);
    expect(replay.json).toMatchObject({ error: "Message too old" });
  });

  it("accepts a timestamp 299 s old (the 300 s window)", async () => {
    const w = newWallet();
    const t = now() - 299;
    expect((await post(`${relay.url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t })).status).toBe(200);
  });

  const w = newWallet();
  const t = Math.floor(Date.now() / 1000);
  it.each([
    ["a non-object body", [1, 2]],
    ["a missing wallet", { signature: w.sign(String(t)), message: t }],
    ["a wallet that is not base58", { wallet: "0OIl" + w.address.slice(4), signature: w.sign(String(t)), message: t }],
    ["a wallet of 31 bytes", { wallet: "2".repeat(43), signature: w.sign(String(t)), message: t }],
    ["a 100,000-character wallet", { wallet: "2".repeat(100_000), signature: w.sign(String(t)), message: t }],
    ["a message as a string", { wallet: w.address, signature: w.sign(String(t)), message: String(t) }],
    ["a fractional message", { wallet: w.address, signature: w.sign(String(t)), message: t + 0.5 }],
    ["a numeric wallet", { wallet: 12345, signature: w.sign(String(t)), message: t }],
  ])("refuses %s with a 4xx naming the problem, never a 5xx", async (_name, body) => {
    const r = await post(`${relay.url}/login`, body);
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(["InvalidRequest", "Invalid signature", "PayloadTooLarge"]).toContain((r.json as { error: string }).error);
  });

  it("refuses invalid JSON with 400 InvalidRequest", async () => {
    const r = await post(`${relay.url}/login`, "{wallet:");
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: "InvalidRequest" });
  });
});

describe("GET /is_logged/{id}", () => {
  it.each([
    ["an unknown UUID", "7d444840-9dc0-11d1-b245-5ffdce74fad2"],
    ["not a UUID", "abc"],
    ["a huge id", "x".repeat(5000)],
  ])("answers 200 false for %s", async (_name, id) => {
    const r = await get(`${relay.url}/is_logged/${id}`);
    expect(r.status).toBe(200);
    expect(r.json).toBe(false);
  });
});

describe("token lifetime", () => {
  it("expires a token after auth.tokenTtlSec: is_logged turns false", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "relay-cfg-"));
    const cfg = path.join(dir, "config.json");
    // Expiry is counted in whole seconds from the second of issue: a TTL of 2 leaves at least one
    // full second for the first check, whatever the sub-second moment of the login.
    writeFileSync(cfg, JSON.stringify({ auth: { tokenTtlSec: 2 } }));
    const short = await startRelay({ RELAY_CONFIG: cfg, RELAY_RATE_LIMITS: "off" });
    try {
      const w = newWallet();
      const t = now();
      const { id } = (await post(`${short.url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t })).json as { id: string };
      expect((await get(`${short.url}/is_logged/${id}`)).json).toBe(true);
      await new Promise((r) => setTimeout(r, 3100));
      expect((await get(`${short.url}/is_logged/${id}`)).json).toBe(false);
    } finally {
      await short.stop();
      short.cleanup();
    }
  });
});
