/**
 * Fees under protocol v2, against a real relay process: a wallet proves for
 * the fee GET /fees publishes, so when the operator raises it the replaced fee
 * stays acceptable for fees.graceSec and proofs in flight still land; after
 * that they are FeeTooLow, saying what the fee is. Fee changes survive a restart.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareWithdrawal, testRecipient, type PreparedWithdrawal } from "../support/proofs";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { airdrop, USDC } from "../support/sandbox";
import { get, newWallet, post } from "../support/wallet";

const TOKEN = "fees-test-operator-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const GRACE_SEC = 3;

let relay: RelayProcess;
let env: Record<string, string>;
let auth: string;
let inGrace: PreparedWithdrawal;
let late: PreparedWithdrawal;

const relayAs = (body: unknown) => post(`${relay.url}/relay`, body, { "x-api-auth": auth });
const fees = async () =>
  (await get(`${relay.url}/fees`)).json as {
    default: { bps: number };
    pools: Record<string, Record<string, { bps: number; floor: string }>>;
    graceSec: number;
  };

beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "fees-http-"));
  const cfg = path.join(dir, "config.json");
  writeFileSync(cfg, JSON.stringify({ fees: { graceSec: GRACE_SEC } }));
  env = { RELAY_CONFIG: cfg, RELAY_OPERATOR_TOKEN: TOKEN, RELAY_RATE_LIMITS: "off" };
  relay = await startRelay(env);
  const w = newWallet();
  await airdrop(relay.url, w, 10_000_000, USDC);
  const t = Math.floor(Date.now() / 1000);
  auth = ((await post(`${relay.url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t })).json as { id: string }).id;
  // Both proved for the fee published now: 25 bps of 1 000 000.
  inGrace = await prepareWithdrawal(relay.url, w, USDC, { recipient: testRecipient("fees-in-grace"), amount: 1_000_000 });
  late = await prepareWithdrawal(relay.url, w, USDC, { recipient: testRecipient("fees-late"), amount: 1_000_000 });
  expect([inGrace.terms.fee, late.terms.fee]).toEqual([2_500n, 2_500n]);
}, 120_000);
afterAll(async () => {
  await relay?.stop();
  relay?.cleanup();
});

describe("a fee increase with proofs in flight", () => {
  it("publishes the operator's new fee at once, with the grace period", async () => {
    const r = await post(`${relay.url}/admin/fees`, { network: "mainnet", mint: USDC, bps: 50, floor: "0" }, admin);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ pools: [{ network: "mainnet", mint: USDC, bps: 50, floor: "0" }], graceSec: GRACE_SEC });
    expect(await fees()).toMatchObject({ pools: { mainnet: { [USDC]: { bps: 50, floor: "0" } } }, graceSec: GRACE_SEC });
  });

  it("still relays a proof made for the replaced fee within the grace period, charging that fee", async () => {
    const r = await relayAs(inGrace.body);
    expect(r.status).toBe(200);
    expect(BigInt(((await get(`${relay.url}/sandbox/balance/mainnet/${inGrace.body.recipient}/${USDC}`)).json as { amount: string }).amount)).toBe(997_500n);
  });

  it("charges the new fee to a body that names none: a proof for the old fee then fails InvalidProof", async () => {
    const { fee: _f, relayer: _r, ...body } = late.body;
    const r = await relayAs(body);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status: 400, error: "InvalidProof" });
  });

  it("refuses the replaced fee after the grace period with 400 FeeTooLow giving the new fee, and the note stays withdrawable", async () => {
    await new Promise((resolve) => setTimeout(resolve, GRACE_SEC * 1000 + 300));
    const r = await relayAs(late.body);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status: 400, error: "FeeTooLow", message: expect.stringContaining("fee of 5000") });
    const n = await post(`${relay.url}/get_nullifier/${USDC}/32/mainnet`, { nullifierHash: late.body.nullifierHash });
    expect(n.json).toEqual({ address: null, json: null });
  });
});

describe("POST /admin/fees", () => {
  it("needs the operator token", async () => {
    const r = await post(`${relay.url}/admin/fees`, { network: "mainnet", mint: USDC, bps: 1 });
    expect(r.status).toBe(401);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["an unknown network", { network: "testnet", bps: 10 }, "InvalidNetwork"],
    ["a mint that is not a key", { network: "mainnet", mint: "x", bps: 10 }, "InvalidMint"],
    ["bps above 10 000", { network: "mainnet", mint: USDC, bps: 10_001 }, "InvalidRequest"],
    ["a fractional bps", { network: "mainnet", mint: USDC, bps: 1.5 }, "InvalidRequest"],
    ["a negative floor", { network: "mainnet", mint: USDC, bps: 10, floor: "-1" }, "InvalidRequest"],
  ])("refuses %s with 400 %s and changes nothing", async (_name, body, error) => {
    const r = await post(`${relay.url}/admin/fees`, body, admin);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error });
    expect((await fees()).pools.mainnet![USDC]).toEqual({ bps: 50, floor: "0" });
  });

  it("keeps the operator's fees across a restart, and goes back to the config file's on reset", async () => {
    const dataDir = relay.dataDir;
    expect(await relay.stop()).toBe(0);
    relay = await startRelay(env, dataDir);
    expect((await fees()).pools.mainnet![USDC]).toEqual({ bps: 50, floor: "0" });
    const r = await post(`${relay.url}/admin/fees`, { network: "mainnet", mint: USDC, reset: true }, admin);
    expect(r.status).toBe(200);
    expect((await fees()).pools.mainnet).toEqual({});
    expect((await fees()).default).toMatchObject({ bps: 25 });
  });
});
