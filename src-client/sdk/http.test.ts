import { createServer, type AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { RelayClient } from "./http";
import { amountToWire } from "./requests";
import { parseRetryAfter } from "./transport";

const WSOL = "So11111111111111111111111111111111111111112";

type Reply = { status: number; body: string; headers?: Record<string, string> };

/** A fetch that answers from a script and records the requests it saw. */
function scripted(replies: Reply[]): { fetch: typeof fetch; seen: { url: string; init: RequestInit | undefined }[] } {
  const seen: { url: string; init: RequestInit | undefined }[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(input), init });
    const r = replies.shift();
    if (!r) throw new Error("unexpected request");
    return new Response(r.body, { status: r.status, headers: r.headers });
  }) as typeof fetch;
  return { fetch: fetchImpl, seen };
}

/** A loopback port that was free a moment ago: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const json = (status: number, v: unknown, headers?: Record<string, string>): Reply => ({ status, body: JSON.stringify(v), headers });

describe("RelayClient transport", () => {
  it("builds the spec's paths and decodes byte arrays", async () => {
    const root = new Array(32).fill(0).map((_, i) => i);
    const s = scripted([json(200, { address: "Tree111", json: { root, nextIndex: 3, depth: 32 } })]);
    const c = new RelayClient({ baseUrl: "http://relay.test/", fetch: s.fetch });
    const r = await c.getMerkle(WSOL, "devnet");
    expect(s.seen[0]!.url).toBe(`http://relay.test/get_merkle/${WSOL}/32/devnet`);
    expect(s.seen[0]!.init?.method).toBe("POST");
    expect(r).toEqual({ ok: true, status: 200, value: { address: "Tree111", json: { root: Uint8Array.from(root), nextIndex: 3, depth: 32 } } });
  });

  it("returns the relay's error name and message with the status, without throwing", async () => {
    const s = scripted([
      json(404, { error: "PoolNotFound", message: "no pool" }),
      json(400, { status: 400, error: "InvalidRoot" }),
      { status: 403, body: "OFAC check failed", headers: { "content-type": "text/plain" } },
      json(400, { error: "Message too old", message: "replayed" }),
    ]);
    const c = new RelayClient({ baseUrl: "http://relay.test", fetch: s.fetch, authToken: "tok" });
    expect(await c.getMerkle(WSOL, "mainnet")).toEqual({ ok: false, status: 404, error: "PoolNotFound", message: "no pool" });
    const relay = await c.relay({
      nullifierHash: new Uint8Array(32),
      proof: new Uint8Array(256),
      root: new Uint8Array(32),
      recipient: WSOL,
      depositSize: 5n,
      mint: WSOL,
      changeCommitment: Uint8Array.from({ length: 32 }, (_, i) => i),
    });
    expect(relay).toEqual({ ok: false, status: 400, error: "InvalidRoot" });
    expect(new Headers(s.seen[1]!.init?.headers).get("x-api-auth")).toBe("tok");
    const body = JSON.parse(String(s.seen[1]!.init?.body)) as Record<string, unknown>;
    expect(body).toMatchObject({ depth: 32, depositSize: 5, network: "mainnet", mint: WSOL });
    // Protocol v3: the change leaf goes as 32 bytes.
    expect(body.changeCommitment).toEqual(Array.from({ length: 32 }, (_, i) => i));
    expect((body.proof as number[]).length).toBe(256);
    expect(await c.getOfacSignature("mainnet", "tok")).toEqual({ ok: false, status: 403, error: "OFAC check failed" });
    expect(await c.login({ wallet: WSOL, signature: "x", message: 1 })).toMatchObject({ ok: false, status: 400, error: "Message too old" });
  });

  it("reports a 2xx answer of the wrong shape as BadResponse", async () => {
    const s = scripted([
      json(200, { address: "T", json: { root: [1, 2], nextIndex: 0, depth: 32 } }),
      json(200, { signature: "s", status: "indexed", leafIndex: null }),
    ]);
    const c = new RelayClient({ baseUrl: "http://relay.test", fetch: s.fetch });
    expect(await c.getMerkle(WSOL, "mainnet")).toMatchObject({ ok: false, status: 200, error: "BadResponse", message: expect.stringMatching(/root/) });
    const dep = await c.sandboxDeposit({ network: "mainnet", mint: WSOL, amount: 1, precommitment: new Uint8Array(32), wallet: WSOL, signature: "s" });
    expect(dep).toMatchObject({ ok: false, error: "BadResponse" });
  });

  it("sends v2 fields: a deposit's precommitment, a withdrawal's fee and relayer, a swap's minOut as decimal text", async () => {
    const leaf = new Array(32).fill(0).map((_, i) => i);
    const sig = { status: 200, signature: "5sig" };
    const s = scripted([
      json(200, { signature: "d", status: "indexed", leafIndex: 3, commitment: leaf }),
      json(200, { signature: "d", status: "failed", leafIndex: null, commitment: null }),
      json(200, { signature: "d", status: "indexed", leafIndex: 3 }),
      json(200, { signature: "d", status: "indexed", leafIndex: 3, commitment: null }),
      json(200, sig),
      json(200, sig),
      json(200, { default: { bps: 25, floor: "1000" }, pools: {}, relayers: { mainnet: WSOL, devnet: null } }),
      json(200, { default: { bps: 25, floor: "1000" }, pools: {}, relayers: { mainnet: "nope" } }),
    ]);
    const c = new RelayClient({ baseUrl: "http://relay.test", fetch: s.fetch });
    const pre = new Uint8Array(32).fill(7);
    const deposit = { network: "mainnet" as const, mint: WSOL, amount: 1, precommitment: pre, wallet: WSOL, signature: "s" };
    expect(await c.sandboxDeposit(deposit)).toEqual({
      ok: true,
      status: 200,
      value: { signature: "d", status: "indexed", leafIndex: 3, commitment: Uint8Array.from(leaf) },
    });
    expect(JSON.parse(String(s.seen[0]!.init?.body))).toEqual({
      network: "mainnet",
      mint: WSOL,
      amount: 1,
      precommitment: Array.from(pre),
      wallet: WSOL,
      signature: "s",
    });
    expect(await c.sandboxDeposit(deposit)).toMatchObject({ ok: true, value: { status: "failed", commitment: null } });
    // A relay older than v2 answers no commitment; an indexed deposit must name the leaf it inserted.
    expect(await c.sandboxDeposit(deposit)).toMatchObject({ ok: false, error: "BadResponse", message: expect.stringMatching(/commitment is missing/) });
    expect(await c.sandboxDeposit(deposit)).toMatchObject({ ok: false, error: "BadResponse", message: expect.stringMatching(/indexed deposit/) });

    const w = {
      nullifierHash: new Uint8Array(32),
      proof: new Uint8Array(256),
      root: new Uint8Array(32),
      recipient: WSOL,
      depositSize: 1_000_000n,
      network: "devnet" as const,
      changeCommitment: new Uint8Array(32).fill(7),
    };
    await c.relay({ ...w, mint: WSOL, fee: 2500n, relayer: WSOL });
    expect(JSON.parse(String(s.seen[4]!.init?.body))).toMatchObject({ mint: WSOL, fee: 2500, relayer: WSOL, network: "devnet" });
    await c.relaySwap({ ...w, input_mint: WSOL, output_mint: WSOL, fee: 2500, relayer: WSOL, minOut: (1n << 64n) - 1n });
    expect(JSON.parse(String(s.seen[5]!.init?.body))).toMatchObject({
      input_mint: WSOL,
      output_mint: WSOL,
      fee: 2500,
      relayer: WSOL,
      minOut: "18446744073709551615",
    });
    expect(() => c.relaySwap({ ...w, input_mint: WSOL, output_mint: WSOL, minOut: 1n << 64n })).toThrow(RangeError);

    // GET /fees: the relayer of each network; null means none.
    expect(await c.fees()).toMatchObject({ ok: true, value: { relayers: { mainnet: WSOL } } });
    expect(await c.fees()).toMatchObject({ ok: false, error: "BadResponse", message: expect.stringMatching(/relayers\.mainnet/) });
  });

  it("treats /health's 503 as an answer", async () => {
    const s = scripted([
      { status: 200, body: "ok" },
      { status: 503, body: "unhealthy: store: down" },
    ]);
    const c = new RelayClient({ baseUrl: "http://relay.test", fetch: s.fetch });
    expect(await c.health()).toEqual({ ok: true, status: 200, value: { healthy: true, status: 200, text: "ok" } });
    expect(await c.health()).toEqual({ ok: true, status: 503, value: { healthy: false, status: 503, text: "unhealthy: store: down" } });
  });

  it("hands back a 429 with retryAfterSec by default, and waits it out when asked", async () => {
    const limited = json(429, { error: "RateLimited" }, { "retry-after": "2" });
    const ok = json(200, { address: null, json: null });
    const s1 = scripted([limited]);
    const c1 = new RelayClient({ baseUrl: "http://relay.test", fetch: s1.fetch });
    expect(await c1.getNullifier(WSOL, new Uint8Array(32), "mainnet")).toEqual({ ok: false, status: 429, error: "RateLimited", retryAfterSec: 2 });

    const slept: number[] = [];
    const s2 = scripted([limited, limited, ok]);
    const c2 = new RelayClient({ baseUrl: "http://relay.test", fetch: s2.fetch, retryOn429: true, sleep: async (ms) => void slept.push(ms) });
    expect(await c2.getNullifier(WSOL, new Uint8Array(32), "mainnet")).toEqual({ ok: true, status: 200, value: { address: null, json: null } });
    expect(slept).toEqual([2000, 2000]);

    const s3 = scripted([json(429, { error: "RateLimited" }, { "retry-after": "120" })]);
    const c3 = new RelayClient({ baseUrl: "http://relay.test", fetch: s3.fetch, retryOn429: { maxWaitMs: 5000 }, sleep: async () => {} });
    expect(await c3.version()).toMatchObject({ ok: false, status: 429, retryAfterSec: 120 });

    const s4 = scripted([limited, limited]);
    const c4 = new RelayClient({ baseUrl: "http://relay.test", fetch: s4.fetch, retryOn429: { maxRetries: 1 }, sleep: async () => {} });
    expect(await c4.version()).toMatchObject({ ok: false, status: 429 });
    expect(s4.seen.length).toBe(2);
  });

  it("times out and names unreachable relays", async () => {
    const hanging = ((_: string, init?: RequestInit) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)))) as typeof fetch;
    const c = new RelayClient({ baseUrl: "http://relay.test", fetch: hanging, timeoutMs: 50 });
    expect(await c.version()).toMatchObject({ ok: false, status: 0, error: "Timeout" });

    const down = new RelayClient({ baseUrl: `http://127.0.0.1:${await closedPort()}`, timeoutMs: 5000 });
    expect(await down.version()).toMatchObject({ ok: false, status: 0, error: "NetworkError", message: expect.stringMatching(/ECONNREFUSED/) });
  });

  it("parses Retry-After in both forms and refuses amounts JSON cannot carry", () => {
    expect(parseRetryAfter("7")).toBe(7);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 3_000)).toBe(7);
    expect(parseRetryAfter("soon")).toBeNull();
    expect(amountToWire(5n)).toBe(5);
    expect(() => amountToWire(2n ** 53n)).toThrow(RangeError);
    expect(() => amountToWire(1.5)).toThrow(RangeError);
  });
});
