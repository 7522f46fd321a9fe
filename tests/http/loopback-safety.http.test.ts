import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src-server/config/load";
import { startServer, type RunningServer } from "../../src-server/index";
import { sendRaw, type RawAnswer } from "../support/raw-http";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { USDC, WSOL } from "../support/sandbox";
import { get, newWallet, post } from "../support/wallet";

/**
 * Loopback safety (issue 15, docs/security.md): a web page the operator visits
 * cannot drive a relay on 127.0.0.1 with a "simple" cross-origin POST, nor
 * through DNS rebinding, nor frame the console.
 */

/** A request to `path` of the relay with exactly the headers given (Host included). */
const raw = (base: string, { path, ...opts }: { path: string } & Parameters<typeof sendRaw>[1]): Promise<RawAnswer> => sendRaw(`${base}${path}`, opts);

const loginBody = (): { wallet: string; signature: string; message: number } => {
  const w = newWallet();
  const t = Math.floor(Date.now() / 1000);
  return { wallet: w.address, signature: w.sign(String(t)), message: t };
};

let relay: RelayProcess;

beforeAll(async () => {
  relay = await startRelay({ RELAY_RATE_LIMITS: "off" });
});
afterAll(async () => {
  await relay?.stop();
  relay?.cleanup();
});

describe("a request body must be declared application/json", () => {
  it("refuses a text/plain /login with 415 and a message, and mints no token (the same signed login then succeeds once)", async () => {
    const body = loginBody();
    const refused = await raw(relay.url, { path: "/login", headers: { "content-type": "text/plain" }, body: JSON.stringify(body) });
    expect(refused.status).toBe(415);
    expect(refused.json).toEqual({ error: "UnsupportedMediaType", message: expect.stringContaining("application/json") });

    // Nothing was recorded: the timestamp was not consumed, so the JSON login with it is accepted, and only once.
    const ok = await post(`${relay.url}/login`, body);
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ id: expect.any(String) });
    expect((await post(`${relay.url}/login`, body)).status).toBe(400);
  });

  it("refuses a text/plain /sandbox/airdrop with 415 and credits nothing", async () => {
    const w = newWallet();
    const body = JSON.stringify({ network: "mainnet", wallet: w.address, mint: USDC, amount: 5000 });
    const balance = async (): Promise<string> => ((await get(`${relay.url}/sandbox/balance/mainnet/${w.address}/${USDC}`)).json as { amount: string }).amount;

    for (const contentType of [
      "text/plain",
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonx",
      "text/json",
    ]) {
      const r = await raw(relay.url, { path: "/sandbox/airdrop", headers: { "content-type": contentType }, body });
      expect(r.status, contentType).toBe(415);
      expect(r.json, contentType).toEqual({ error: "UnsupportedMediaType", message: expect.stringContaining("Content-Type: application/json") });
    }
    // No Content-Type at all, and a chunked text/plain body of unknown length.
    expect((await raw(relay.url, { path: "/sandbox/airdrop", body })).status).toBe(415);
    const chunked = await raw(relay.url, { path: "/sandbox/airdrop", headers: { "content-type": "text/plain" }, body, chunked: true });
    expect(chunked.status).toBe(415);
    expect(chunked.json).toEqual({ error: "UnsupportedMediaType", message: expect.any(String) });
    expect(await balance()).toBe("0");

    // The same body declared as JSON is credited.
    expect((await raw(relay.url, { path: "/sandbox/airdrop", headers: { "content-type": "application/json" }, body })).status).toBe(200);
    expect(await balance()).toBe("5000");
  });

  it("answers a relay endpoint in the relay result shape", async () => {
    for (const p of ["/relay", "/relay_swap"]) {
      const r = await raw(relay.url, { path: p, headers: { "content-type": "text/plain" }, body: "{}" });
      expect(r.status, p).toBe(415);
      expect(r.json, p).toEqual({ status: 415, error: "UnsupportedMediaType", message: expect.any(String) });
    }
  });

  it("accepts application/json with parameters, in any letter case", async () => {
    for (const contentType of ["application/json; charset=utf-8", "Application/JSON", "application/json;charset=UTF-8"]) {
      const r = await raw(relay.url, { path: "/login", headers: { "content-type": contentType }, body: JSON.stringify(loginBody()) });
      expect(r.status, contentType).toBe(200);
    }
  });

  it("still answers the spec's body-less POSTs, and empty bodies whatever their type", async () => {
    const merkle = `/get_merkle/${WSOL}/32/mainnet`;
    expect((await raw(relay.url, { path: merkle })).status).toBe(200);
    expect((await raw(relay.url, { path: merkle, headers: { "content-length": "0" } })).status).toBe(200);
    expect((await raw(relay.url, { path: merkle, headers: { "content-type": "text/plain" }, body: "" })).status).toBe(200);
    expect((await raw(relay.url, { path: merkle, headers: { "content-type": "text/plain" }, body: "", chunked: true })).status).toBe(200);
    expect((await post(`${relay.url}/get_proof/${WSOL}/32/0/mainnet`)).status).not.toBe(415);
    expect((await post(`${relay.url}/get_node/${WSOL}/32/1/mainnet`)).status).toBe(200);
    // get_nullifier's JSON body, as the spec sends it.
    const nullifier = await post(`${relay.url}/get_nullifier/${WSOL}/32/mainnet`, { nullifierHash: Array.from({ length: 32 }, () => 1) });
    expect(nullifier.status).toBe(200);
    expect(nullifier.json).toEqual({ address: null, json: null });
  });
});

describe("a loopback-bound relay answers only to loopback Host names (DNS rebinding)", () => {
  const port = (): string => new URL(relay.url).port;

  it("refuses a foreign Host with 421 and a message, on every path", async () => {
    for (const host of [
      "evil.example",
      `evil.example:${port()}`,
      "localhost.evil.example",
      `127.0.0.1.evil.example:${port()}`,
      "[2001:db8::1]",
      "bad host",
      "evil.example:80:80",
    ]) {
      const version = await raw(relay.url, { method: "GET", path: "/version", headers: { host } });
      expect(version.status, host).toBe(421);
      expect(version.json, host).toEqual({ error: "MisdirectedRequest", message: expect.stringContaining("http.publicHostnames") });
    }
    const w = newWallet();
    const airdrop = await raw(relay.url, {
      path: "/sandbox/airdrop",
      headers: { host: "evil.example", "content-type": "application/json" },
      body: JSON.stringify({ network: "mainnet", wallet: w.address, mint: USDC, amount: 7 }),
    });
    expect(airdrop.status).toBe(421);
    expect(((await get(`${relay.url}/sandbox/balance/mainnet/${w.address}/${USDC}`)).json as { amount: string }).amount).toBe("0");
    expect((await raw(relay.url, { path: `/get_merkle/${WSOL}/32/mainnet`, headers: { host: "evil.example" } })).status).toBe(421);
    const relayAnswer = await raw(relay.url, { path: "/relay", headers: { host: "evil.example", "content-type": "application/json" }, body: "{}" });
    expect(relayAnswer.json).toEqual({ status: 421, error: "MisdirectedRequest", message: expect.any(String) });
    expect((await raw(relay.url, { method: "GET", path: "/console/", headers: { host: "evil.example" } })).status).toBe(421);
  });

  it("answers 127.0.0.1, localhost and [::1], with or without a port", async () => {
    for (const host of [
      `127.0.0.1:${port()}`,
      `localhost:${port()}`,
      `[::1]:${port()}`,
      "127.0.0.1",
      "localhost",
      "LocalHost",
      "localhost.",
      "[::1]",
      `127.0.0.2:${port()}`,
    ]) {
      const r = await raw(relay.url, { method: "GET", path: "/version", headers: { host } });
      expect(r.status, host).toBe(200);
    }
  });
});

describe("http.publicHostnames and the console's headers", () => {
  let server: RunningServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "relay-loopback-"));
    const consoleDir = path.join(dir, "console");
    mkdirSync(path.join(consoleDir, "assets"), { recursive: true });
    writeFileSync(path.join(consoleDir, "index.html"), '<!doctype html><script type="module" src="/console/assets/app.js"></script>');
    writeFileSync(path.join(consoleDir, "assets", "app.js"), "export {};");
    const config = path.join(dir, "relay.json");
    writeFileSync(config, JSON.stringify({ http: { publicHostnames: ["Relay.Example.org"] } }));
    server = await startServer(
      loadConfig({ RELAY_CONFIG: config, RELAY_HOST: "127.0.0.1", RELAY_PORT: "0", RELAY_DATA_DIR: path.join(dir, "data"), RELAY_RATE_LIMITS: "off" }),
      {
        log: () => {},
        consoleDir,
      },
    );
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("answers a configured public name (any case, any port) and still refuses others", async () => {
    expect((await raw(server.url, { method: "GET", path: "/version", headers: { host: "relay.example.org" } })).status).toBe(200);
    expect((await raw(server.url, { method: "GET", path: "/version", headers: { host: "RELAY.example.org:443" } })).status).toBe(200);
    expect((await raw(server.url, { method: "GET", path: "/version", headers: { host: "evil.example" } })).status).toBe(421);
    expect((await raw(server.url, { method: "GET", path: "/version", headers: { host: "sub.relay.example.org" } })).status).toBe(421);
  });

  it("serves /console/ with a frame-ancestors 'none' CSP, nosniff and no-referrer", async () => {
    for (const p of ["/console/", "/console/index.html", "/console/assets/app.js", "/console/wallet"]) {
      const r = await raw(server.url, { method: "GET", path: p });
      expect(r.status, p).toBe(200);
      const csp = String(r.headers["content-security-policy"]);
      expect(csp, p).toContain("frame-ancestors 'none'");
      expect(csp, p).toContain("script-src 'self'");
      expect(csp, p).toContain("connect-src 'self'");
      expect(r.headers["x-content-type-options"], p).toBe("nosniff");
      expect(r.headers["referrer-policy"], p).toBe("no-referrer");
    }
  });

  it("validates the setting", () => {
    const withFile = (publicHostnames: unknown): (() => unknown) => {
      const f = path.join(dir, `bad-${Math.random()}.json`);
      writeFileSync(f, JSON.stringify({ http: { publicHostnames } }));
      return () => loadConfig({ RELAY_CONFIG: f });
    };
    expect(loadConfig({}).http.publicHostnames).toEqual([]);
    expect(withFile("relay.example.org")).toThrow(ConfigError);
    expect(withFile(["https://relay.example.org"])).toThrow(/http\.publicHostnames\[0\]/);
    expect(withFile(["relay.example.org:443"])).toThrow(ConfigError);
    expect(withFile([""])).toThrow(ConfigError);
  });
});
