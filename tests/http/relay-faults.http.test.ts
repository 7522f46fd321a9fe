import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src-server/config/load";
import { startServer, type RunningServer } from "../../src-server/index";
import type { ChainBackend } from "../../src-server/ports/chain";
import { prepareWithdrawal, testRecipient, type PreparedWithdrawal } from "../support/proofs";
import { airdrop, USDC } from "../support/sandbox";
import { newWallet, post } from "../support/wallet";

let server: RunningServer;
let dir: string;
let token: string;
let prepared: PreparedWithdrawal;
let second: PreparedWithdrawal;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "relay-faults-"));
  server = await startServer(loadConfig({ RELAY_PORT: "0", RELAY_DATA_DIR: dir, RELAY_RATE_LIMITS: "off" }), { log: () => {} });
  const w = newWallet();
  await airdrop(server.url, w, 10_000_000, USDC);
  const t = Math.floor(Date.now() / 1000);
  token = ((await post(`${server.url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t })).json as { id: string }).id;
  prepared = await prepareWithdrawal(server.url, w, USDC, { recipient: testRecipient("relay-faults"), amount: 2_000_000 });
  second = await prepareWithdrawal(server.url, w, USDC, { recipient: testRecipient("relay-faults-2"), amount: 2_000_000 });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("relay submission faults (chain fault injected in-process)", () => {
  it("answers 500 RelayFailed when the chain says the transaction did not land, records the failure, releases the nullifier, and a retry succeeds", async () => {
    const chain = server.relay.chains.get("mainnet") as ChainBackend;
    const real = chain.submitWithdrawal.bind(chain);
    const seenAtSubmit: string[] = [];
    chain.submitWithdrawal = async () => {
      // What the console sees at the moment of submission: the record already exists.
      const rec = (await server.relay.relayStore.recent(1))[0];
      seenAtSubmit.push(rec?.status ?? "none");
      return { ok: false, rejection: "Failed", detail: "blockhash expired on every attempt" };
    };
    try {
      const r = await post(`${server.url}/relay`, prepared.body, { "x-api-auth": token });
      expect(r.status).toBe(500);
      expect(r.json).toMatchObject({ status: 500, error: "RelayFailed" });
    } finally {
      chain.submitWithdrawal = real;
    }
    expect(seenAtSubmit).toEqual(["submitted"]);

    const failed = (await server.relay.relayStore.recent(1))[0]!;
    expect(failed.status).toBe("failed");
    expect(failed.error).toBe("RelayFailed");
    expect(failed.steps.map((s) => s.kind)).toEqual(["received", "verified", "submitted", "failed"]);
    expect(failed.fee).toBe(5000n);
    expect(JSON.stringify(failed, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))).not.toMatch(/127\.0\.0\.1|::ffff/);

    const retry = await post(`${server.url}/relay`, prepared.body, { "x-api-auth": token });
    expect(retry.status).toBe(200);
    const done = (await server.relay.relayStore.recent(1))[0]!;
    expect(done.status).toBe("confirmed");
    expect(done.signature).toBe((retry.json as { signature: string }).signature);
    expect(done.steps.map((s) => s.kind)).toEqual(["received", "verified", "submitted", "confirmed"]);
  });

  it("keeps the nullifier locked when the submission's outcome is unknown (a throw, or the Unknown verdict), so a retry cannot double-submit", async () => {
    const chain = server.relay.chains.get("mainnet") as ChainBackend;
    const real = chain.submitWithdrawal.bind(chain);
    chain.submitWithdrawal = async () => {
      throw new Error("RPC node unreachable after sending");
    };
    try {
      const r = await post(`${server.url}/relay`, second.body, { "x-api-auth": token });
      expect(r.json).toMatchObject({ status: 500, error: "RelayFailed" });
      const retry = await post(`${server.url}/relay`, second.body, { "x-api-auth": token });
      expect(retry.json).toMatchObject({ status: 400, error: "NullifierAlreadySpent", message: "a relay of this nullifier is in flight" });
    } finally {
      chain.submitWithdrawal = real;
    }
  });

  it("maps a definitive chain refusal to the spec error and never double-spends", async () => {
    const r = await post(`${server.url}/relay`, prepared.body, { "x-api-auth": token });
    expect(r.json).toMatchObject({ status: 400, error: "NullifierAlreadySpent" });
  });
});
