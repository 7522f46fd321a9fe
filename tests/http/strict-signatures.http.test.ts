import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { newWallet, post } from "../support/wallet";

/** The identity point (issue 25): a key whose discrete log everyone knows. */
const IDENTITY_WALLET = "4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM";
/** R = the identity, S = 0: satisfies the cofactorless equation [S]B = R + [k]A for the identity key and every message. */
const FIXED_SIGNATURE = encodeBase58(Uint8Array.from({ length: 64 }, (_, i) => (i === 0 ? 1 : 0)));

let relay: RelayProcess;

beforeAll(async () => {
  relay = await startRelay({ RELAY_RATE_LIMITS: "off" });
});
afterAll(async () => {
  await relay?.stop();
  relay?.cleanup();
});

describe("POST /login refuses what Solana's verify_strict refuses", () => {
  it("answers 400 Invalid signature for the small-order wallet's one fixed signature, whatever the timestamp", async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const t of [now, now - 10, now + 5]) {
      const r = await post(`${relay.url}/login`, { wallet: IDENTITY_WALLET, signature: FIXED_SIGNATURE, message: t });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ error: "Invalid signature" });
    }
  });

  it("still logs an ordinary wallet in", async () => {
    const w = newWallet();
    const t = Math.floor(Date.now() / 1000);
    const r = await post(`${relay.url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ id: expect.any(String) });
  });
});
