/**
 * Issue 25 over HTTP: a sandbox pool's minimum deposit, from the relay's
 * config file (networks.<n>.sandbox), refuses a smaller deposit with 400
 * InvalidRequest naming the minimum, and moves nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { airdrop, depositBody, randomPrecommitment, USDC, WSOL } from "../support/sandbox";
import { get, newWallet, post } from "../support/wallet";

let dir: string;
let relay: RelayProcess;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "min-deposit-"));
  const config = path.join(dir, "relay.json");
  writeFileSync(config, JSON.stringify({ networks: { mainnet: { sandbox: { minDeposit: { [WSOL]: "10000000" } } } } }));
  relay = await startRelay({ RELAY_CONFIG: config, RELAY_RATE_LIMITS: "off" }, path.join(dir, "data"));
});
afterAll(async () => {
  await relay?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("POST /sandbox/deposit below the pool's minimum", () => {
  it("answers 400 InvalidRequest naming the minimum and moves nothing; the minimum itself is indexed", async () => {
    const w = newWallet();
    await airdrop(relay.url, w, 20_000_000, WSOL);
    const below = await post(`${relay.url}/sandbox/deposit`, depositBody(w, randomPrecommitment(), 9_999_999, WSOL));
    expect(below.status).toBe(400);
    expect(below.json).toMatchObject({ error: "InvalidRequest", message: expect.stringContaining("minimum deposit of 10000000") });
    const balance = await get(`${relay.url}/sandbox/balance/mainnet/${w.address}/${WSOL}`);
    expect(balance.json).toEqual({ amount: "20000000" });
    const at = await post(`${relay.url}/sandbox/deposit`, depositBody(w, randomPrecommitment(), 10_000_000, WSOL));
    expect(at.status).toBe(200);
    expect(at.json).toMatchObject({ status: "indexed", leafIndex: 0 });
  });

  it("takes any positive amount in a pool the config names no minimum for", async () => {
    const w = newWallet();
    await airdrop(relay.url, w, 1, USDC);
    const r = await post(`${relay.url}/sandbox/deposit`, depositBody(w, randomPrecommitment(), 1, USDC));
    expect(r.status).toBe(200);
  });
});
