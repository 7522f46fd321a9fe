import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bigIntToBytes32, FIELD_MODULUS } from "../../src-shared/encoding/field";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { airdrop, deposit, depositBody, randomCommitment, USDC, WSOL } from "../support/sandbox";
import { get, newWallet, post } from "../support/wallet";

let relay: RelayProcess;

beforeAll(async () => {
  relay = await startRelay({ RELAY_RATE_LIMITS: "off" });
});
afterAll(async () => {
  await relay?.stop();
  relay?.cleanup();
});

const balance = async (wallet: string, mint = WSOL, network = "mainnet"): Promise<string> =>
  ((await get(`${relay.url}/sandbox/balance/${network}/${wallet}/${mint}`)).json as { amount: string }).amount;

describe("sandbox ledger", () => {
  it("credits an airdrop and answers a real 64-byte base58 transaction signature", async () => {
    const w = newWallet();
    const r = await post(`${relay.url}/sandbox/airdrop`, { network: "devnet", wallet: w.address, mint: USDC, amount: 5000 });
    expect(r.status).toBe(200);
    expect((r.json as { signature: string }).signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
    expect(await balance(w.address, USDC, "devnet")).toBe("5000");
    expect(await balance(w.address, USDC, "mainnet")).toBe("0");
  });

  it("indexes a deposit signed by its depositor, moving the amount to the vault", async () => {
    const w = newWallet();
    await airdrop(relay.url, w, 10_000);
    const before = (await post(`${relay.url}/get_merkle/${WSOL}/32/mainnet`)).json as { json: { nextIndex: number } };
    const d = await deposit(relay.url, w, randomCommitment(), 4000);
    expect(d.status).toBe("indexed");
    expect(d.leafIndex).toBe(before.json.nextIndex);
    expect(await balance(w.address)).toBe("6000");
    const after = (await post(`${relay.url}/get_merkle/${WSOL}/32/mainnet`)).json as { json: { nextIndex: number } };
    expect(after.json.nextIndex).toBe(before.json.nextIndex + 1);
  });

  it.each([
    ["a zero commitment", () => new Array(32).fill(0)],
    ["a commitment equal to the field modulus", () => Array.from(bigIntToBytes32(FIELD_MODULUS))],
    ["a commitment of all 0xff", () => new Array(32).fill(255)],
  ])("leaves %s failed (funds in the vault, no leaf)", async (_name, make) => {
    const w = newWallet();
    await airdrop(relay.url, w, 100);
    const before = (await post(`${relay.url}/get_merkle/${WSOL}/32/mainnet`)).json as { json: { nextIndex: number } };
    const d = await deposit(relay.url, w, make(), 100);
    expect(d).toMatchObject({ status: "failed", leafIndex: null });
    expect(await balance(w.address)).toBe("0");
    const after = (await post(`${relay.url}/get_merkle/${WSOL}/32/mainnet`)).json as { json: { nextIndex: number } };
    expect(after.json.nextIndex).toBe(before.json.nextIndex);
  });

  it("fails a second deposit of a commitment already in the tree", async () => {
    const w = newWallet();
    await airdrop(relay.url, w, 200);
    const c = randomCommitment();
    expect((await deposit(relay.url, w, c, 100)).status).toBe("indexed");
    expect((await deposit(relay.url, w, c, 100)).status).toBe("failed");
  });

  it("opens a pool on the first deposit of a new mint", async () => {
    const w = newWallet();
    const mint = newWallet().address;
    expect((await post(`${relay.url}/get_merkle/${mint}/32/mainnet`)).status).toBe(404);
    await airdrop(relay.url, w, 100, mint);
    expect((await deposit(relay.url, w, randomCommitment(), 100, mint)).leafIndex).toBe(0);
    expect((await post(`${relay.url}/get_merkle/${mint}/32/mainnet`)).status).toBe(200);
  });

  it("refuses a deposit signed by another wallet with 400 InvalidSignature and moves nothing", async () => {
    const w = newWallet();
    const thief = newWallet();
    await airdrop(relay.url, w, 100);
    const body = depositBody(w, randomCommitment(), 100);
    body.signature = thief.sign("Deposit: mainnet");
    const r = await post(`${relay.url}/sandbox/deposit`, body);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: "InvalidSignature" });
    expect(await balance(w.address)).toBe("100");
  });

  it("refuses a deposit above the balance with 400 InsufficientFunds", async () => {
    const w = newWallet();
    await airdrop(relay.url, w, 10);
    const r = await post(`${relay.url}/sandbox/deposit`, depositBody(w, randomCommitment(), 11));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: "InsufficientFunds" });
  });

  const w = newWallet();
  it.each([
    ["an unknown network", { ...depositBody(w, randomCommitment(), 1), network: "testnet" }, "InvalidNetwork"],
    ["a bad mint", { ...depositBody(w, randomCommitment(), 1), mint: "xyz0" }, "InvalidMint"],
    ["a negative amount", { ...depositBody(w, randomCommitment(), 1), amount: -5 }, "InvalidRequest"],
    ["an amount as text", { ...depositBody(w, randomCommitment(), 1), amount: "5" }, "InvalidRequest"],
    ["an amount above 2^53", { ...depositBody(w, randomCommitment(), 1), amount: 2 ** 60 }, "InvalidRequest"],
    ["a 31-byte commitment", { ...depositBody(w, randomCommitment(), 1), commitment: new Array(31).fill(1) }, "InvalidRequest"],
    ["a commitment byte of 256", { ...depositBody(w, randomCommitment(), 1), commitment: [256, ...new Array(31).fill(1)] }, "InvalidRequest"],
    ["a wallet that is not base58", { ...depositBody(w, randomCommitment(), 1), wallet: "I".repeat(44) }, "InvalidRequest"],
    ["a short signature", { ...depositBody(w, randomCommitment(), 1), signature: "abc" }, "InvalidSignature"],
  ])("refuses %s with 400 %s", async (_name, body, error) => {
    const r = await post(`${relay.url}/sandbox/deposit`, body);
    expect(r.status).toBe(400);
    expect((r.json as { error: string }).error).toBe(error);
  });
});
