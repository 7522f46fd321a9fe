import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { USDC } from "../support/sandbox";
import { newWallet, post } from "../support/wallet";
import { postFrom } from "../support/raw-http";

let relay: RelayProcess;

beforeAll(async () => {
  relay = await startRelay();
});
afterAll(async () => {
  await relay?.stop();
  relay?.cleanup();
});

describe("per-endpoint rate limits (spec table; docs/security.md)", () => {
  it("refuses the 61st get_merkle in a minute with 429, Retry-After and RateLimit headers; other clients are unaffected", async () => {
    const url = `${relay.url}/get_merkle/${USDC}/32/mainnet`;
    for (let i = 1; i <= 60; i++) {
      const r = await post(url);
      expect(r.status, `request ${i}`).toBe(200);
      expect(r.headers.get("ratelimit-remaining")).toBe(String(60 - i));
    }
    const refused = await post(url);
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ error: "RateLimited" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(refused.headers.get("ratelimit-limit")).toBe("60");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");

    // Another IP is another client.
    expect(await postFrom("127.0.0.2", url)).toBe(200);

    // A token does not take a request out of its address's count (docs/security.md, "Rate limits").
    const w = newWallet();
    const t = Math.floor(Date.now() / 1000);
    const { id } = (await post(`${relay.url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t })).json as { id: string };
    expect((await post(url, undefined, { "x-api-auth": id })).status).toBe(429);

    // Limits are per endpoint: get_node (120/min) still answers this IP.
    expect((await post(`${relay.url}/get_node/${USDC}/32/1/mainnet`)).status).toBe(200);
  });
});
