import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { pubkeyToField } from "../../src-shared/crypto/pubkey-field";
import { parsePublicKey } from "../../src-shared/encoding/base58";
import { bigIntToBytes32, FIELD_MODULUS } from "../../src-shared/encoding/field";
import { sandboxDepositMessage } from "../../src-shared/messages";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { airdrop, deposit, depositBody, randomPrecommitment, USDC, WSOL } from "../support/sandbox";
import { get, newWallet, post } from "../support/wallet";

let relay: RelayProcess;
let hasher: FieldHasher;

beforeAll(async () => {
  [relay, hasher] = await Promise.all([startRelay({ RELAY_RATE_LIMITS: "off" }), createPoseidonHasher()]);
});
afterAll(async () => {
  await relay?.stop();
  relay?.cleanup();
});

/** Poseidon(precommitment, amount, mintField), written out here rather than through the code under test. */
const expectedLeaf = (precommitment: number[], amount: number, mint: string): number[] => {
  const m = parsePublicKey(mint);
  if (!m.ok) throw new Error(mint);
  return Array.from(hasher.hash([Uint8Array.from(precommitment), bigIntToBytes32(BigInt(amount)), pubkeyToField(hasher, m.value)]));
};
/** The relay's copy of leaf `index` (get_node's heap index 2^32 + index at depth 32). */
const leafAt = async (mint: string, index: number): Promise<number[]> =>
  ((await post(`${relay.url}/get_node/${mint}/32/${2 ** 32 + index}/mainnet`)).json as { json: { value: number[] } }).json.value;

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
    const pre = randomPrecommitment();
    const d = await deposit(relay.url, w, pre, 4000);
    expect(d.status).toBe("indexed");
    expect(d.leafIndex).toBe(before.json.nextIndex);
    expect(d.commitment).toEqual(expectedLeaf(pre, 4000, WSOL));
    expect(await balance(w.address)).toBe("6000");
    const after = (await post(`${relay.url}/get_merkle/${WSOL}/32/mainnet`)).json as { json: { nextIndex: number } };
    expect(after.json.nextIndex).toBe(before.json.nextIndex + 1);
  });

  it("answers concurrent deposits of many wallets each with its own leaf, already in the relay's tree and provable, and debits each wallet once", async () => {
    const mint = newWallet().address;
    const wallets = Array.from({ length: 6 }, () => newWallet());
    for (const w of wallets) await airdrop(relay.url, w, 1000, mint);
    const pres = Array.from({ length: 24 }, () => randomPrecommitment());
    const answers = await Promise.all(pres.map((pre, i) => deposit(relay.url, wallets[i % wallets.length]!, pre, 10, mint)));
    expect(new Set(answers.map((d) => d.leafIndex))).toEqual(new Set(pres.map((_, i) => i)));
    for (const [i, d] of answers.entries()) {
      expect(d.status).toBe("indexed");
      expect(d.commitment).toEqual(expectedLeaf(pres[i]!, 10, mint));
      expect(await leafAt(mint, d.leafIndex!)).toEqual(d.commitment);
      const proof = await post(`${relay.url}/get_proof/${mint}/32/${d.leafIndex}/mainnet`);
      expect(proof.status).toBe(200);
    }
    const merkle = (await post(`${relay.url}/get_merkle/${mint}/32/mainnet`)).json as { json: { nextIndex: number } };
    expect(merkle.json.nextIndex).toBe(24);
    for (const w of wallets) expect(await balance(w.address, mint)).toBe(String(1000 - 4 * 10));
  });

  it("answers the leaf the pool computed, Poseidon(precommitment, amount, mintField), and puts exactly that leaf in the tree", async () => {
    const w = newWallet();
    const mint = newWallet().address;
    await airdrop(relay.url, w, 7, mint);
    const pre = randomPrecommitment();
    const d = await deposit(relay.url, w, pre, 7, mint);
    expect(d).toEqual({
      signature: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/),
      status: "indexed",
      leafIndex: 0,
      commitment: expectedLeaf(pre, 7, mint),
    });
    expect(await leafAt(mint, 0)).toEqual(expectedLeaf(pre, 7, mint));
    // The note's leaf binds the 7 it paid: the leaf of a larger claim is another value, and not in the tree.
    expect(expectedLeaf(pre, 8, mint)).not.toEqual(d.commitment);
    expect(pre).not.toEqual(d.commitment);
  });

  it.each([
    ["a zero precommitment", () => new Array(32).fill(0)],
    ["a precommitment equal to the field modulus", () => Array.from(bigIntToBytes32(FIELD_MODULUS))],
    ["a precommitment of all 0xff", () => new Array(32).fill(255)],
  ])("leaves %s failed (funds in the vault, no leaf, commitment null), not a 400", async (_name, make) => {
    const w = newWallet();
    await airdrop(relay.url, w, 100);
    const before = (await post(`${relay.url}/get_merkle/${WSOL}/32/mainnet`)).json as { json: { nextIndex: number } };
    const d = await deposit(relay.url, w, make(), 100);
    expect(d).toMatchObject({ status: "failed", leafIndex: null, commitment: null });
    expect(await balance(w.address)).toBe("0");
    const after = (await post(`${relay.url}/get_merkle/${WSOL}/32/mainnet`)).json as { json: { nextIndex: number } };
    expect(after.json.nextIndex).toBe(before.json.nextIndex);
  });

  it("fails a second deposit whose leaf is already in the tree, answering that leaf; the same precommitment with another amount is another leaf", async () => {
    const w = newWallet();
    await airdrop(relay.url, w, 300);
    const pre = randomPrecommitment();
    const first = await deposit(relay.url, w, pre, 100);
    expect(first.status).toBe("indexed");
    expect(await deposit(relay.url, w, pre, 100)).toMatchObject({ status: "failed", leafIndex: null, commitment: first.commitment });
    const other = await deposit(relay.url, w, pre, 99);
    expect(other).toMatchObject({ status: "indexed", commitment: expectedLeaf(pre, 99, WSOL) });
    expect(await balance(w.address)).toBe("1");
  });

  it("opens a pool on the first deposit of a new mint", async () => {
    const w = newWallet();
    const mint = newWallet().address;
    expect((await post(`${relay.url}/get_merkle/${mint}/32/mainnet`)).status).toBe(404);
    await airdrop(relay.url, w, 100, mint);
    expect((await deposit(relay.url, w, randomPrecommitment(), 100, mint)).leafIndex).toBe(0);
    expect((await post(`${relay.url}/get_merkle/${mint}/32/mainnet`)).status).toBe(200);
  });

  it("refuses a deposit signed by another wallet with 400 InvalidSignature and moves nothing", async () => {
    const w = newWallet();
    const thief = newWallet();
    await airdrop(relay.url, w, 100);
    const body = depositBody(w, randomPrecommitment(), 100);
    body.signature = thief.sign("Deposit: mainnet");
    const r = await post(`${relay.url}/sandbox/deposit`, body);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: "InvalidSignature" });
    expect(await balance(w.address)).toBe("100");
  });

  it("refuses a deposit above the balance with 400 InsufficientFunds", async () => {
    const w = newWallet();
    await airdrop(relay.url, w, 10);
    const r = await post(`${relay.url}/sandbox/deposit`, depositBody(w, randomPrecommitment(), 11));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: "InsufficientFunds" });
  });

  const w = newWallet();
  it.each([
    ["an unknown network", { ...depositBody(w, randomPrecommitment(), 1), network: "testnet" }, "InvalidNetwork"],
    ["a bad mint", { ...depositBody(w, randomPrecommitment(), 1), mint: "xyz0" }, "InvalidMint"],
    ["a negative amount", { ...depositBody(w, randomPrecommitment(), 1), amount: -5 }, "InvalidRequest"],
    ["an amount as text", { ...depositBody(w, randomPrecommitment(), 1), amount: "5" }, "InvalidRequest"],
    ["an amount above 2^53", { ...depositBody(w, randomPrecommitment(), 1), amount: 2 ** 60 }, "InvalidRequest"],
    ["a 31-byte precommitment", { ...depositBody(w, randomPrecommitment(), 1), precommitment: new Array(31).fill(1) }, "InvalidRequest"],
    ["a 33-byte precommitment", { ...depositBody(w, randomPrecommitment(), 1), precommitment: new Array(33).fill(1) }, "InvalidRequest"],
    ["a precommitment byte of 256", { ...depositBody(w, randomPrecommitment(), 1), precommitment: [256, ...new Array(31).fill(1)] }, "InvalidRequest"],
    ["a precommitment byte of 1.5", { ...depositBody(w, randomPrecommitment(), 1), precommitment: [1.5, ...new Array(31).fill(1)] }, "InvalidRequest"],
    ["a precommitment as hex text", { ...depositBody(w, randomPrecommitment(), 1), precommitment: "ab".repeat(32) }, "InvalidRequest"],
    ["a wallet that is not base58", { ...depositBody(w, randomPrecommitment(), 1), wallet: "I".repeat(44) }, "InvalidRequest"],
    ["a short signature", { ...depositBody(w, randomPrecommitment(), 1), signature: "abc" }, "InvalidSignature"],
  ])("refuses %s with 400 %s", async (_name, body, error) => {
    const r = await post(`${relay.url}/sandbox/deposit`, body);
    expect(r.status).toBe(400);
    expect((r.json as { error: string }).error).toBe(error);
  });

  it.each([
    [
      "missing",
      () => {
        const { precommitment: _, ...body } = depositBody(w, randomPrecommitment(), 1);
        return body;
      },
    ],
    ["31 bytes", () => ({ ...depositBody(w, randomPrecommitment(), 1), precommitment: new Array(31).fill(1) })],
    ["with a negative byte", () => ({ ...depositBody(w, randomPrecommitment(), 1), precommitment: [-1, ...new Array(31).fill(1)] })],
  ])("names precommitment in the 400 when it is %s", async (_name, make) => {
    const r = await post(`${relay.url}/sandbox/deposit`, make());
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: "InvalidRequest", message: expect.stringContaining("precommitment") });
  });
});

describe("a protocol v1 deposit body", () => {
  it("is refused with 400 InvalidRequest naming commitment and asking for a precommitment, moving nothing", async () => {
    const w = newWallet();
    const mint = newWallet().address;
    await airdrop(relay.url, w, 100, mint);
    const commitment = randomPrecommitment();
    // Exactly what a v1 client sent: its own leaf, signed as such.
    const v1 = {
      network: "mainnet",
      mint,
      amount: 100,
      commitment,
      wallet: w.address,
      signature: w.sign(sandboxDepositMessage("mainnet", mint, 100, Uint8Array.from(commitment))),
    };
    const r = await post(`${relay.url}/sandbox/deposit`, v1);
    expect(r.status).toBe(400);
    const answer = r.json as { error: string; message: string };
    expect(answer.error).toBe("InvalidRequest");
    expect(answer.message).toMatch(/\bcommitment\b/);
    expect(answer.message).toContain("precommitment");
    // Sending both is no better: a body naming a commitment is a v1 body.
    const both = await post(`${relay.url}/sandbox/deposit`, { ...depositBody(w, commitment, 100, mint), commitment });
    expect(both.status).toBe(400);
    expect(both.json).toMatchObject({ error: "InvalidRequest", message: expect.stringContaining("commitment") });
    expect(await balance(w.address, mint)).toBe("100");
    // Not even the pool was opened.
    expect((await post(`${relay.url}/get_merkle/${mint}/32/mainnet`)).status).toBe(404);
  });
});
