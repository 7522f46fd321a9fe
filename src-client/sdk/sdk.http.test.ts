import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import bs58 from "bs58";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { computeLeaf } from "../../src-shared/crypto/protocol";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { sandboxDepositMessage } from "../../src-shared/messages";
import { runCli } from "../cli/run";
import { captureIo, runCaptured } from "../cli/test-support";
import { depositAndSaveNote, sandboxDeposit } from "./deposit";
import { relayFee } from "./fees";
import { RelayClient } from "./http";
import { Keypair, readKeypairFile, writeKeypairFile } from "./keypair";
import { login } from "./login";
import { changeNoteOf, createNote, loadNote, saveNote, type DepositNote } from "./note";
import { followChain, relayLedger } from "./follow";
import { getNoteNullifier, getNoteProof } from "./tree";
import { verifyWithdrawalProof, type WithdrawalProof } from "./prove";
import { withdraw } from "./withdraw";
import { prepareWithdrawal, testRecipient } from "../../tests/support/proofs";
import { startRelay, type RelayProcess } from "../../tests/support/relay-process";

/** /health/detail takes the relay's operator token. */
const OPERATOR_TOKEN = "sdk-test-operator-token-0123456789";

const WSOL = "So11111111111111111111111111111111111111112";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const BASE58_SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{80,90}$/;

describe("SDK against the real relay process", () => {
  let dir: string;
  let relay: RelayProcess;
  let client: RelayClient;
  let hasher: FieldHasher;
  let wallet: Keypair;
  const notes: DepositNote[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sdk-http-"));
    [relay, hasher] = await Promise.all([
      startRelay({ RELAY_RATE_LIMITS: "off", RELAY_OPERATOR_TOKEN: OPERATOR_TOKEN }, path.join(dir, "data")),
      createPoseidonHasher(),
    ]);
    client = new RelayClient({ baseUrl: relay.url, timeoutMs: 15_000 });
  });

  afterAll(async () => {
    if (relay && relay.child.exitCode === null) await relay.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keygen: a keypair file round-trips with 0600", () => {
    const file = path.join(dir, "wallet.json");
    expect(writeKeypairFile(file, Keypair.generate()).ok).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const kp = readKeypairFile(file);
    if (!kp.ok) throw new Error(kp.error);
    wallet = kp.value;
  });

  it("login: the token is valid; a replayed timestamp is refused with the spec's error", async () => {
    const unixSeconds = Math.floor(Date.now() / 1000);
    const token = await login(client, wallet, { unixSeconds });
    if (!token.ok) throw new Error(JSON.stringify(token));
    expect(token.value).toMatch(/^[0-9a-f-]{36}$/);
    expect(await client.isLogged(token.value)).toEqual({ ok: true, status: 200, value: true });
    expect(await client.isLogged("00000000-0000-0000-0000-000000000000")).toEqual({ ok: true, status: 200, value: false });
    expect(await login(client, wallet, { unixSeconds })).toMatchObject({ ok: false, status: 400, error: "Message too old" });
    // Without an explicit timestamp, a second login in the same second signs the next second instead of failing.
    const again = await login(new RelayClient({ baseUrl: relay.url }), wallet);
    expect(again).toMatchObject({ ok: true, status: 200, value: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it("airdrop credits the wallet", async () => {
    const r = await client.sandboxAirdrop({ network: "mainnet", wallet: wallet.address, mint: WSOL, amount: 10_000_000n });
    expect(r.ok).toBe(true);
    expect(await client.sandboxBalance("mainnet", wallet.address, WSOL)).toMatchObject({ ok: true, value: { amount: 10_000_000n } });
  });

  it("deposit: two notes are indexed at leaves 0 and 1, at the leaves the notes expect; the saved note records it", async () => {
    for (let i = 0; i < 2; i++) {
      const created = await createNote({ network: "mainnet", mint: WSOL, amount: 1_000_000n, hasher });
      if (!created.ok) throw new Error(created.error);
      const file = path.join(dir, "notes", `note-${i}.json`);
      const r = await depositAndSaveNote(client, wallet, created.value, file);
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      expect(r.value.deposit).toMatchObject({ status: "indexed", leafIndex: i, wallet: wallet.address });
      // The pool computed the leaf from the precommitment, the amount it moved and the mint: the note's own.
      const leaf = await client.getNode(WSOL, 2 ** 32 + i, "mainnet");
      expect(leaf).toMatchObject({ ok: true, value: { json: { value: created.value.commitment } } });
      expect(created.value.commitment).toEqual(computeLeaf(hasher, created.value.precommitment, 1_000_000n, bs58.decode(WSOL)));
      expect(r.value.deposit!.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);
      const saved = await loadNote(file, hasher);
      expect(saved.ok && saved.value.deposit).toEqual(r.value.deposit);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      notes.push(r.value);
    }
    expect(await client.sandboxBalance("mainnet", wallet.address, WSOL)).toMatchObject({ ok: true, value: { amount: 8_000_000n } });
  });

  it("get_merkle's nextIndex counts the deposits", async () => {
    const m = await client.getMerkle(WSOL, "mainnet");
    if (!m.ok) throw new Error(JSON.stringify(m));
    expect(m.value.json).toMatchObject({ nextIndex: 2, depth: 32 });
    expect(m.value.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
  });

  it("each note's proof rebuilds the relay's root locally", async () => {
    const m = await client.getMerkle(WSOL, "mainnet");
    if (!m.ok) throw new Error(JSON.stringify(m));
    for (const [i, note] of notes.entries()) {
      const p = await getNoteProof(client, note, { hasher });
      if (!p.ok) throw new Error(JSON.stringify(p.error));
      expect(p.value.leafIndex).toBe(i);
      expect(p.value.root).toEqual(m.value.json.root);
      expect(p.value.path).toHaveLength(32);
    }
  });

  it("get_nullifier of an unspent note answers {address:null,json:null}", async () => {
    expect(await getNoteNullifier(client, notes[0]!)).toEqual({ ok: true, status: 200, value: { address: null, json: null } });
    // The wire form exactly as the spec writes it, not only as the SDK decodes it.
    const res = await fetch(`${relay.url}/get_nullifier/${WSOL}/32/mainnet`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ nullifierHash: Array.from(notes[0]!.nullifierHash) }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ address: null, json: null });
  });

  it("an all-zero precommitment leaves the deposit failed, without a leaf", async () => {
    const precommitment = new Uint8Array(32);
    const r = await client.sandboxDeposit({
      network: "mainnet",
      mint: WSOL,
      amount: 1000n,
      precommitment,
      wallet: wallet.address,
      signature: encodeBase58(wallet.sign(sandboxDepositMessage("mainnet", WSOL, 1000n, precommitment))),
    });
    expect(r).toMatchObject({ ok: true, value: { status: "failed", leafIndex: null, commitment: null } });
    expect(await client.getMerkle(WSOL, "mainnet")).toMatchObject({ ok: true, value: { json: { nextIndex: 2 } } });
  });

  it("a repeated precommitment (the same leaf) fails; its note gets no proof, and an unfunded deposit is refused", async () => {
    const again = await sandboxDeposit(client, wallet, { ...notes[0]!, deposit: null });
    if (!again.ok) throw new Error(JSON.stringify(again));
    expect(again.value.deposit).toMatchObject({ status: "failed", leafIndex: null });
    expect(await getNoteProof(client, again.value, { hasher })).toMatchObject({
      ok: false,
      error: { kind: "no-leaf", message: expect.stringMatching(/revert/) },
    });

    const created = await createNote({ network: "mainnet", mint: USDC, amount: 5n, hasher });
    if (!created.ok) throw new Error(created.error);
    expect(await sandboxDeposit(client, wallet, created.value)).toMatchObject({ ok: false, status: 400, error: "InsufficientFunds" });
  });

  it("spec errors come back typed, without throwing", async () => {
    expect(await client.getProof(WSOL, 2, "mainnet")).toMatchObject({ ok: false, status: 400, error: "IndexOutOfRange" });
    expect(await client.getMerkle("7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU", "mainnet")).toMatchObject({ ok: false, status: 404, error: "PoolNotFound" });
    expect(await client.getNode(WSOL, 1, "mainnet")).toMatchObject({ ok: true });
    expect(await client.health()).toEqual({ ok: true, status: 200, value: { healthy: true, status: 200, text: "ok" } });
    expect(await client.healthDetail("not-the-operator-token-at-all")).toMatchObject({ ok: false, status: 401, error: "Unauthorized" });
    const detail = await client.healthDetail(OPERATOR_TOKEN);
    expect(detail.ok && detail.value.networks?.every((n) => n.sandbox)).toBe(true);
    const networks = await client.networks();
    expect(networks.ok && networks.value.map((n) => [n.name, n.sandbox])).toEqual([
      ["mainnet", true],
      ["devnet", true],
    ]);
    const v = await client.version();
    expect(v.ok && v.value).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("CLI health: the networks from /networks without the operator token, every check of /health/detail with it", async () => {
    const plain = captureIo(dir, relay.url);
    expect(await runCli(["health", "--json"], plain)).toBe(0);
    const without = JSON.parse(plain.out()) as { healthy: boolean; checks: unknown; networks: { name: string; sandbox: boolean }[] };
    expect(without).toMatchObject({ healthy: true, checks: null });
    expect(without.networks.map((n) => [n.name, n.sandbox])).toEqual([
      ["mainnet", true],
      ["devnet", true],
    ]);

    const operator = captureIo(dir, relay.url);
    expect(await runCli(["health", "--operator-token", OPERATOR_TOKEN], operator)).toBe(0);
    expect(operator.out()).toMatch(/^ok\n/);
    expect(operator.out()).toMatch(/ {2}ok {3}store: /);
    expect(operator.out()).toContain("network mainnet: sandbox chain (test funds only)");
  });

  it("/relay without a valid x-api-auth answers 401 Unauthorized, HTTP status = body status", async () => {
    const body = {
      nullifierHash: Array(32).fill(1),
      proof: Array(256).fill(0),
      root: Array(32).fill(1),
      recipient: wallet.address,
      depth: 32,
      depositSize: 1_000_000,
      mint: WSOL,
      network: "mainnet" as const,
      changeCommitment: Array(32).fill(2),
    };
    const noToken: Record<string, string> = {};
    for (const headers of [noToken, { "x-api-auth": "00000000-0000-0000-0000-000000000000" }]) {
      const res = await fetch(`${relay.url}/relay`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ status: 401, error: "Unauthorized" });
    }
    const anonymous = new RelayClient({ baseUrl: relay.url });
    expect(
      await anonymous.relay({
        ...body,
        nullifierHash: new Uint8Array(32).fill(1),
        root: new Uint8Array(32).fill(1),
        proof: new Uint8Array(256),
        depositSize: 1_000_000n,
        changeCommitment: new Uint8Array(32).fill(2),
      }),
    ).toMatchObject({
      ok: false,
      status: 401,
      error: "Unauthorized",
    });
  });

  it("withdraw part of a note: the recipient gets the part less its fee, the nullifier is spent, and the change leaf is where the relay says", async () => {
    const recipient = Keypair.generate().address;
    const fees = await client.fees();
    if (!fees.ok) throw new Error(JSON.stringify(fees));
    expect(fees.value.default).toMatchObject({ bps: expect.any(Number), floor: expect.any(BigInt) });
    const setting = fees.value.pools.mainnet?.[WSOL] ?? fees.value.default;
    const depositSize = 500_000n;
    const proportional = (depositSize * BigInt(setting.bps)) / 10_000n;
    const fee = proportional > setting.floor ? proportional : setting.floor;
    expect(relayFee(fees.value, "mainnet", WSOL, depositSize)).toMatchObject({ fee, toRecipient: depositSize - fee });

    // A fresh client with no token: withdraw logs in with the wallet first.
    const fresh = new RelayClient({ baseUrl: relay.url, timeoutMs: 30_000 });
    const stages: string[] = [];
    const r = await withdraw(fresh, notes[0]!, recipient, { wallet, hasher, amount: depositSize, onStage: (s) => stages.push(s) });
    if (!r.ok) throw new Error(JSON.stringify(r.error, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)));
    console.log(`withdraw: proving took ${r.value.proof.provingMs} ms`);
    expect(stages).toEqual(["login", "nullifier", "fees", "merkle", "prove", "relay"]);
    expect(fresh.authToken).toMatch(/^[0-9a-f-]{36}$/);
    // Proved for, and sent with, this relay's mainnet key and its published fee.
    expect(fees.value.relayers.mainnet).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(r.value.terms).toEqual({ relayer: fees.value.relayers.mainnet, fee, toRecipient: depositSize - fee, minOut: null });
    expect(r.value.proof).toMatchObject({ relayer: fees.value.relayers.mainnet, fee, swap: null });
    expect(r.value.proof.publicSignals).toHaveLength(7);
    // Two deposits at leaves 0 and 1: the change leaf went to 2, and it is what the note's chain rule gives for 500 000 left.
    expect(r.value.changeLeafIndex).toBe(2);
    expect(r.value.change).toMatchObject({ amount: 500_000n, change: { leafIndex: 2, piece: 1 } });
    expect(r.value.change.commitment).toEqual(changeNoteOf(hasher, notes[0]!, depositSize).commitment);
    expect(await client.getNode(WSOL, 2 ** 32 + 2, "mainnet")).toMatchObject({ ok: true, value: { json: { value: r.value.change.commitment } } });
    expect(r.value.signature).toMatch(BASE58_SIGNATURE);
    expect(r.value.proof.proof).toHaveLength(256);
    expect(await verifyWithdrawalProof(r.value.proof.proof, r.value.proof.publicSignals)).toEqual({ ok: true, value: true });

    expect(await client.sandboxBalance("mainnet", recipient, WSOL)).toMatchObject({ ok: true, value: { amount: depositSize - fee } });

    const spent = await getNoteNullifier(client, notes[0]!);
    expect(spent).toMatchObject({ ok: true, status: 200, value: { address: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/), json: { spent: true } } });
    // The wire form exactly as the spec writes it.
    const res = await fetch(`${relay.url}/get_nullifier/${WSOL}/32/mainnet`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ nullifierHash: Array.from(notes[0]!.nullifierHash) }),
    });
    expect(await res.json()).toEqual({ address: spent.ok ? spent.value.address : null, json: { spent: true } });

    // The same withdrawal again, byte for byte: the relay refuses it with the spec's error.
    const p = r.value.proof;
    const again = await fresh.relay({
      nullifierHash: p.nullifierHash,
      proof: p.proof,
      root: p.root,
      recipient,
      depositSize: p.amount,
      mint: p.mint,
      network: p.network,
      changeCommitment: p.changeCommitment,
    });
    expect(again).toMatchObject({ ok: false, status: 400, error: "NullifierAlreadySpent" });
    const raw = await fetch(`${relay.url}/relay`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-auth": fresh.authToken! },
      body: JSON.stringify({
        nullifierHash: Array.from(p.nullifierHash),
        proof: Array.from(p.proof),
        root: Array.from(p.root),
        recipient,
        depth: 32,
        depositSize: Number(p.amount),
        mint: WSOL,
        changeCommitment: Array.from(p.changeCommitment),
      }),
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toMatchObject({ status: 400, error: "NullifierAlreadySpent" });
    expect(await client.sandboxBalance("mainnet", recipient, WSOL)).toMatchObject({ ok: true, value: { amount: depositSize - fee } });

    // withdraw() itself stops before proving when get_nullifier already says spent.
    expect(await withdraw(fresh, notes[0]!, recipient, { wallet, hasher })).toMatchObject({ ok: false, error: { stage: "spent" } });

    // The original note alone finds its change through the relay: get_nullifier among decoys, then the leaves after it.
    const followed = await followChain(hasher, notes[0]!, relayLedger(client, hasher));
    if (!followed.ok) throw new Error(followed.error.kind);
    expect(followed.value.pieces).toMatchObject([{ piece: 0, amount: 500_000n, remaining: 500_000n, changeLeafIndex: 2 }]);
    expect(followed.value.current.commitment).toEqual(r.value.change.commitment);
  });

  it("with a bad token the relay answers 401 before verifying; a proof is refused for another recipient, amount, fee or relayer", async () => {
    const note = notes[1]!;
    // No wallet to log in with: the bad token is sent as is, and the proof comes back with the refusal.
    const refused = await withdraw(new RelayClient({ baseUrl: relay.url, authToken: "not-a-token", timeoutMs: 30_000 }), note, Keypair.generate().address, {
      hasher,
    });
    expect(refused).toMatchObject({ ok: false, error: { stage: "relay", failure: { status: 401, error: "Unauthorized" } } });
    if (refused.ok || refused.error.stage !== "relay") return;
    const p = refused.error.proof;

    // The request the proof was made for; each change below is refused.
    const same = {
      nullifierHash: p.nullifierHash,
      proof: p.proof,
      root: p.root,
      recipient: p.recipient,
      depositSize: p.amount,
      mint: p.mint,
      changeCommitment: p.changeCommitment,
    };
    const stolen = await client.relay({ ...same, recipient: Keypair.generate().address });
    expect(stolen).toMatchObject({ ok: false, status: 400, error: "InvalidProof" });
    const otherAmount = await client.relay({ ...same, depositSize: p.amount - 1n });
    expect(otherAmount).toMatchObject({ ok: false, status: 400, error: "InvalidProof" });
    // Protocol v3: the change leaf is bound too; keeping another change (a larger remainder) is refused, and the message names the protocol.
    const otherChange = await client.relay({ ...same, changeCommitment: changeNoteOf(hasher, note, 1n).commitment });
    expect(otherChange).toMatchObject({ ok: false, status: 400, error: "InvalidProof", message: expect.stringMatching(/protocol v3/) });
    // Protocol v2: the fee and the relayer are bound too. A relay (or anyone) charging more than the proof says is refused.
    expect(await client.relay({ ...same, fee: p.fee + 1n, relayer: p.relayer })).toMatchObject({ ok: false, status: 400, error: "InvalidProof" });
    expect(await client.relay({ ...same, fee: p.amount, relayer: p.relayer })).toMatchObject({ ok: false, status: 400, error: "InvalidProof" });
    expect(await client.relay({ ...same, fee: p.fee - 1n, relayer: p.relayer })).toMatchObject({ ok: false, status: 400, error: "FeeTooLow" });
    const otherRelayer = await client.relay({ ...same, fee: p.fee, relayer: Keypair.generate().address });
    expect(otherRelayer).toMatchObject({ ok: false, status: 400, error: "InvalidRequest", message: expect.stringMatching(/^relayer/) });
    expect(!otherRelayer.ok && otherRelayer.message).toContain(p.relayer);
    expect(await getNoteNullifier(client, note)).toMatchObject({ ok: true, value: { address: null, json: null } });

    // Fee and relayer left out: the relay takes its published fee and its own key, the terms the proof was made for.
    const intended = await client.relay(same);
    expect(intended).toMatchObject({ ok: true, status: 200, value: { status: 200, signature: expect.stringMatching(BASE58_SIGNATURE), changeLeafIndex: 3 } });
  });

  it("tests/support/proofs.ts prepares a /relay body the relay accepts (devnet pool)", async () => {
    await client.sandboxAirdrop({ network: "devnet", wallet: wallet.address, mint: WSOL, amount: 2_000_000n });
    const testWallet = { address: wallet.address, sign: (m: string) => encodeBase58(wallet.sign(m)) };
    const recipient = testRecipient("sdk.http.test");
    const prepared = await prepareWithdrawal(relay.url, testWallet, WSOL, { recipient, network: "devnet", amount: 1_500_000 });
    console.log(`tests/support/proofs.ts: ${prepared.cached ? "cached proof checked" : "proved"} in ${prepared.provingMs} ms (${prepared.cacheFile})`);
    expect(prepared.deposit.leafIndex).toBe(0);
    const fees = await client.fees();
    if (!fees.ok) throw new Error(JSON.stringify(fees));
    const quote = relayFee(fees.value, "devnet", WSOL, 1_500_000n)!;
    expect(prepared.body).toMatchObject({
      recipient,
      depth: 32,
      depositSize: 1_500_000,
      mint: WSOL,
      network: "devnet",
      fee: Number(quote.fee),
      relayer: fees.value.relayers.devnet,
    });
    expect(prepared.body).not.toHaveProperty("minOut");
    expect(prepared.swapBody).toBeUndefined();
    expect(prepared.body.proof).toHaveLength(256);
    const res = await fetch(`${relay.url}/relay`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-auth": client.authToken! },
      body: JSON.stringify(prepared.body),
    });
    const answer = (await res.json()) as { status: number; signature?: string };
    expect(res.status).toBe(200);
    expect(answer).toMatchObject({ status: 200, signature: expect.stringMatching(BASE58_SIGNATURE) });
    expect(await client.sandboxBalance("devnet", recipient, WSOL)).toMatchObject({ ok: true, value: { amount: quote.toRecipient } });
  });

  it("tests/support/proofs.ts proves for a swap: the /relay_swap body carries minOut; the recipient receives at least it", async () => {
    await client.sandboxAirdrop({ network: "devnet", wallet: wallet.address, mint: WSOL, amount: 1_000_000n });
    expect(await client.sandboxSwapPool({ network: "devnet", mintA: WSOL, mintB: USDC, reserveA: 1_000_000_000n, reserveB: 5_000_000_000n })).toMatchObject({
      ok: true,
    });
    const testWallet = { address: wallet.address, sign: (m: string) => encodeBase58(wallet.sign(m)) };
    const recipient = testRecipient("sdk.http.test-swap");
    const prepared = await prepareWithdrawal(relay.url, testWallet, WSOL, { recipient, network: "devnet", amount: 1_000_000, swap: { outputMint: USDC } });
    const fees = await client.fees();
    if (!fees.ok) throw new Error(JSON.stringify(fees));
    const fee = relayFee(fees.value, "devnet", WSOL, 1_000_000n)!;
    const q = await client.quote({ inputMint: WSOL, outputMint: USDC, amount: fee.toRecipient, network: "devnet" });
    if (!q.ok) throw new Error(JSON.stringify(q));
    const minOut = q.value.otherAmountThreshold!;
    expect(prepared.terms).toEqual({ relayer: fees.value.relayers.devnet, fee: fee.fee, swap: { outputMint: USDC, minOut: BigInt(minOut) } });
    expect(prepared.body).toMatchObject({ mint: WSOL, minOut, fee: Number(fee.fee) });
    expect(prepared.swapBody).toMatchObject({
      input_mint: WSOL,
      output_mint: USDC,
      minOut,
      fee: Number(fee.fee),
      relayer: fees.value.relayers.devnet,
      network: "devnet",
    });
    expect(prepared.swapBody).not.toHaveProperty("mint");
    const post = (p: string, body: unknown) =>
      fetch(`${relay.url}${p}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-auth": client.authToken! },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, json: (await r.json()) as Record<string, unknown> }));
    // The same proof under a lower minOut, or as a plain /relay, is another statement: refused, nothing spent.
    expect(await post("/relay_swap", { ...prepared.swapBody, minOut: "1" })).toMatchObject({ status: 400, json: { error: "InvalidProof" } });
    const { minOut: _m, ...plain } = prepared.body;
    expect(await post("/relay", plain)).toMatchObject({ status: 400, json: { error: "InvalidProof" } });
    expect(await post("/relay_swap", prepared.swapBody)).toMatchObject({
      status: 200,
      json: { status: 200, signature: expect.stringMatching(BASE58_SIGNATURE) },
    });
    const got = await client.sandboxBalance("devnet", recipient, USDC);
    expect(got.ok && got.value.amount >= BigInt(minOut)).toBe(true);
  });

  it("the CLI: deposit 3,000,000, withdraw 1,000,000 to one recipient, 500,000 to another, then the rest; the original note file alone recovers the chain", async () => {
    const cwd = path.join(dir, "cli");
    const run = (argv: string[], answer?: string) => runCaptured(argv, cwd, relay.url, answer);
    expect((await run(["keygen", "--out", "id.json"])).code).toBe(0);
    expect((await run(["keygen", "--out", "login.json"])).code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(cwd, "id.json"), "utf8"))).toHaveLength(64);
    expect((await run(["login", "--keypair", "id.json", "--json"])).out).toContain('"isLogged": true');
    expect((await run(["airdrop", "--keypair", "id.json", "--mint", USDC, "--amount", "5000000"])).code).toBe(0);

    const dep = await run(["deposit", "--keypair", "id.json", "--mint", USDC, "--amount", "3000000", "--note", "note.json", "--json"]);
    expect(dep.code).toBe(0);
    const deposited = JSON.parse(dep.out) as { file: string; deposit: { status: string; leafIndex: number } };
    expect(deposited.deposit).toMatchObject({ status: "indexed" });
    expect(dep.out).not.toMatch(/"secret"|"nullifier"/);
    const noteFile = path.join(cwd, "note.json");
    // A backup of the original deposit note, before any piece: it alone must recover the chain later.
    copyFileSync(noteFile, path.join(cwd, "original.json"));
    expect(JSON.parse(readFileSync(noteFile, "utf8"))).toMatchObject({ version: 3, state: "confirmed", value: "3000000", isChange: false, piece: 0 });
    expect((await run(["balance", "--keypair", "id.json", "--mint", USDC])).out.trim()).toBe("2000000");
    const nobody = async () =>
      (JSON.parse((await run(["balance", "--wallet", Keypair.generate().address, "--mint", USDC, "--json"])).out) as { wallet: string }).wallet;
    const [alice, bob, carol] = [await nobody(), await nobody(), await nobody()];

    const cliFees = await client.fees();
    if (!cliFees.ok) throw new Error(JSON.stringify(cliFees));
    const feeOf = (a: bigint) => relayFee(cliFees.value, "mainnet", USDC, a)!.fee;

    // prove (inspection only) saves a v3 proof of a part and the exact /relay request; nothing is sent.
    const proved = await run(["prove", "--note", "note.json", "--recipient", alice, "--amount", "1000000", "--out", "proof.json", "--json"]);
    expect(proved.code).toBe(0);
    const saved = JSON.parse(readFileSync(path.join(cwd, "proof.json"), "utf8")) as { request: Record<string, unknown>; publicSignalNames: string[] };
    expect(saved).toMatchObject({ protocol: 3, depositSize: "1000000", fee: feeOf(1_000_000n).toString(), swap: null, endpoint: "/relay", verified: true });
    expect(saved.publicSignalNames).toEqual(["root", "nullifierHash", "recipient", "amount", "mint", "extDataHash", "changeCommitment"]);
    expect(saved.request).toMatchObject({
      recipient: alice,
      depositSize: 1_000_000,
      mint: USDC,
      fee: Number(feeOf(1_000_000n)),
      relayer: cliFees.value.relayers.mainnet,
    });
    expect(saved.request.changeCommitment).toHaveLength(32);
    // The spent leaf, its index and the note's value stay out of the file.
    expect(JSON.stringify(saved)).not.toMatch(/leafIndex|"commitment"|secret|3000000|2000000/);

    // Nothing is sent without a yes: no terminal, or a no.
    const before = readFileSync(noteFile, "utf8");
    const unasked = await run(["relay", "--note", "note.json", "--keypair", "login.json", "--recipient", alice, "--amount", "1000000"]);
    expect(unasked).toMatchObject({ code: 2, err: expect.stringMatching(/pass --yes/) });
    // The exact anonymity set, from the relay's public leaf list: change leaves and deposits of at least 1,000,000.
    const listed = await client.getLeaves(USDC, "mainnet");
    if (!listed.ok) throw new Error(JSON.stringify(listed));
    const couldHold = listed.value.json.leaves.filter((l) => l.kind === "change" || BigInt(l.amount ?? "0") >= 1_000_000n).length;
    expect(couldHold).toBeGreaterThan(0);
    expect(unasked.err).toContain(
      `piece 1: 1000000, fee ${feeOf(1_000_000n)}, the recipient receives ${1_000_000n - feeOf(1_000_000n)}; anonymity set ${couldHold} lea${couldHold === 1 ? "f" : "ves"}\n`,
    );
    expect(unasked.err).not.toContain("at most");
    const declined = await run(["relay", "--note", "note.json", "--keypair", "login.json", "--recipient", alice, "--amount", "1000000"], "n");
    expect(declined).toMatchObject({ code: 1, err: expect.stringMatching(/not confirmed/) });
    expect(readFileSync(noteFile, "utf8")).toBe(before);

    // 1,000,000 to alice, confirmed at the prompt.
    const first = await run(["relay", "--note", "note.json", "--keypair", "login.json", "--recipient", alice, "--amount", "1000000", "--json"], "y");
    expect(first).toMatchObject({ code: 0, err: expect.stringContaining("proving the withdrawal") });
    const a1 = JSON.parse(first.out) as { pieces: { changeLeafIndex: number }[] };
    expect(a1).toMatchObject({
      withdrawn: true,
      recipient: alice,
      depositSize: "1000000",
      fee: feeOf(1_000_000n).toString(),
      left: "2000000",
      pieces: [{ depositSize: "1000000" }],
    });
    expect((await run(["balance", "--wallet", alice, "--mint", USDC])).out.trim()).toBe((1_000_000n - feeOf(1_000_000n)).toString());
    expect(JSON.parse(readFileSync(noteFile, "utf8"))).toMatchObject({
      state: "confirmed",
      value: "2000000",
      isChange: true,
      piece: 1,
      leafIndex: a1.pieces[0]!.changeLeafIndex,
      pending: null,
    });

    // 500,000 to bob.
    const second = await run(["relay", "--note", "note.json", "--keypair", "login.json", "--recipient", bob, "--amount", "500000", "--yes", "--json"]);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.out)).toMatchObject({ depositSize: "500000", left: "1500000" });
    expect((await run(["balance", "--wallet", bob, "--mint", USDC])).out.trim()).toBe((500_000n - feeOf(500_000n)).toString());

    // The rest to carol: 1,500,000 goes as two standard pieces, each paying its fee.
    const rest = await run(["relay", "--note", "note.json", "--keypair", "login.json", "--recipient", carol, "--yes", "--json"]);
    expect(rest.code).toBe(0);
    expect(rest.err).toContain("in 2 pieces");
    const fees3 = feeOf(1_000_000n) + feeOf(500_000n);
    expect(JSON.parse(rest.out)).toMatchObject({
      depositSize: "1500000",
      fee: fees3.toString(),
      left: "0",
      pieces: [{ depositSize: "1000000" }, { depositSize: "500000" }],
    });
    expect((await run(["balance", "--wallet", carol, "--mint", USDC])).out.trim()).toBe((1_500_000n - fees3).toString());
    expect(JSON.parse(readFileSync(noteFile, "utf8"))).toMatchObject({ state: "confirmed", value: "0", piece: 4 });
    expect(await run(["relay", "--note", "note.json", "--keypair", "login.json", "--recipient", carol, "--yes"])).toMatchObject({
      code: 1,
      err: expect.stringMatching(/holds nothing/),
    });

    // The original note file alone: the CLI follows the four withdrawals and finds nothing left.
    const recovered = await run(["note", "--note", "original.json", "--json"]);
    expect(recovered.code).toBe(0);
    const chain = JSON.parse(recovered.out) as { value: string; spent: boolean; leafIndex: number; pieces: { amount: string; remaining: string }[] };
    expect(chain).toMatchObject({ value: "0", mint: USDC, network: "mainnet", spent: true, isChange: true, piece: 4 });
    expect(chain.pieces.map((x) => [x.amount, x.remaining])).toEqual([
      ["1000000", "2000000"],
      ["500000", "1500000"],
      ["1000000", "500000"],
      ["500000", "0"],
    ]);
    expect(chain.leafIndex).toBe(JSON.parse(readFileSync(noteFile, "utf8")).leafIndex);
    expect(JSON.parse((await run(["note", "--note", "note.json", "--json"])).out)).toMatchObject({ value: "0", spent: false, pieces: [] });
    // --local reads the file alone: the original still says 3,000,000 as written.
    expect(JSON.parse((await run(["note", "--note", "original.json", "--local", "--json"])).out)).toMatchObject({ value: "3000000", spent: null });

    // The proof saved earlier, sent as is, is refused: its note was spent.
    const login = JSON.parse((await run(["login", "--keypair", "id.json", "--json"])).out) as { token: string };
    const replay = await fetch(`${relay.url}/relay`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-auth": login.token },
      body: JSON.stringify(saved.request),
    });
    expect({ status: replay.status, body: await replay.json() }).toMatchObject({ status: 400, body: { status: 400, error: "NullifierAlreadySpent" } });
    expect(await run(["deposit", "--keypair", "id.json", "--mint", USDC, "--amount", "99999999"])).toMatchObject({
      code: 1,
      err: expect.stringMatching(/InsufficientFunds/),
    });
    expect(await run(["merkle", "--mint", USDC, "--url", "http://127.0.0.1:9"])).toMatchObject({ code: 3 });
  });

  it("a note file left pending by a process that died resolves against the relay: back to the note when nothing was sent, to the change when it landed", async () => {
    const cwd = path.join(dir, "crash");
    mkdirSync(cwd, { recursive: true });
    const run = (argv: string[]) => runCaptured(argv, cwd, relay.url);
    await client.sandboxAirdrop({ network: "mainnet", wallet: wallet.address, mint: WSOL, amount: 2_000_000n });
    const created = await createNote({ network: "mainnet", mint: WSOL, amount: 2_000_000n, hasher });
    if (!created.ok) throw new Error(created.error);
    const file = path.join(cwd, "note.json");
    const deposited = await depositAndSaveNote(client, wallet, created.value, file);
    if (!deposited.ok) throw new Error(JSON.stringify(deposited.error));
    const note = deposited.value;
    const recipient = Keypair.generate().address;
    const died = path.join(cwd, "died-before-sending.json");
    const diedAfter = path.join(cwd, "died-after-sending.json");
    // What a wallet writes before sending: the change note, and the note it spends under `pending`.
    const pendingOf = (p: WithdrawalProof) => ({
      ...p.change,
      pending: {
        spends: note,
        amount: p.amount,
        fee: p.fee,
        recipient,
        relayer: p.relayer,
        swap: null,
        changeCommitment: p.changeCommitment,
        since: new Date().toISOString(),
      },
    });

    // The process dies after writing the pending change note, before the request goes out.
    const notSent = await withdraw(client, note, recipient, {
      wallet,
      hasher,
      amount: 1_000_000n,
      beforeRelay: (p) => {
        const saved = saveNote(died, pendingOf(p));
        return saved.ok ? { ok: false, error: "the process died here" } : saved;
      },
    });
    expect(notSent).toMatchObject({ ok: false, error: { stage: "save", message: "the process died here" } });
    expect(JSON.parse(readFileSync(died, "utf8"))).toMatchObject({ state: "pending", value: "1000000" });
    const back = await run(["note", "--note", died, "--update", "--json"]);
    expect(back.code, back.err).toBe(0);
    expect(back.err).toContain("did not land (its note is unspent): the file goes back to that note");
    expect(JSON.parse(back.out)).toMatchObject({ value: "2000000", spent: false, pieces: [], isChange: false, state: "confirmed" });
    expect(JSON.parse(readFileSync(died, "utf8"))).toMatchObject({ state: "confirmed", value: "2000000", piece: 0 });

    // The process dies after sending, before it could confirm: the withdrawal landed, the file still says pending.
    const sent = await withdraw(client, note, recipient, {
      wallet,
      hasher,
      amount: 1_000_000n,
      beforeRelay: (p) => saveNote(diedAfter, pendingOf(p)),
    });
    if (!sent.ok) throw new Error(JSON.stringify(sent.error, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)));
    expect(JSON.parse(readFileSync(diedAfter, "utf8"))).toMatchObject({ state: "pending", leafIndex: null });
    const forward = await run(["note", "--note", diedAfter, "--update", "--json"]);
    expect(forward.code, forward.err).toBe(0);
    expect(forward.err).toContain("pending withdrawal of 1000000 landed");
    expect(JSON.parse(forward.out)).toMatchObject({
      value: "1000000",
      spent: true,
      leafIndex: sent.value.changeLeafIndex,
      pieces: [{ amount: "1000000", remaining: "1000000" }],
    });
    expect(JSON.parse(readFileSync(diedAfter, "utf8"))).toMatchObject({
      state: "confirmed",
      value: "1000000",
      piece: 1,
      leafIndex: sent.value.changeLeafIndex,
    });
  });

  it("stops gracefully on SIGTERM", async () => {
    expect(await relay.stop()).toBe(0);
  });
});
