import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareDemo } from "../../src-localnet/demo";
import { startLocalValidator, type LocalValidator } from "../../src-localnet/validator";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { DEFAULT_POOL_PROGRAM_ID, poolNullifierAddress, poolTreeAddress } from "../../src-shared/pool-program";
import { cachedProver } from "../../tests/support/proofs";
import { startRecordingProxy, type RecordingProxy } from "../../tests/support/recording-proxy";
import { startRelay, type RelayProcess } from "../../tests/support/relay-process";
import { runCaptured } from "../cli/test-support";
import { chainConnection, mintTestTokens, requestSol, tokenBalanceOf } from "./chain";
import { chainDeposit } from "./chain-deposit";
import { RelayClient } from "./http";
import { Keypair, writeKeypairFile } from "./keypair";
import { chainNoteProof } from "./lookup";
import { readPoolHistory } from "./chain-history";
import { chainLedger, followChain } from "./follow";
import { createNote, saveNote, type DepositNote } from "./note";
import { withdraw } from "./withdraw";

/**
 * On a solana network the wallet reads the tree and the nullifier from the
 * chain (the local validator over JSON-RPC): the relay, behind a recording
 * proxy, is asked for its public root and the withdrawal, never get_proof or
 * get_nullifier (docs/privacy.md).
 */
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const DEPOSIT = 1_000_000n;
const FEE = (DEPOSIT * 25n) / 10_000n; // the relay's default 25 bps

let validator: LocalValidator;
let relay: RelayProcess;
let proxy: RecordingProxy;
let dir: string;
let rpc: string;
let hasher: FieldHasher;
const notes: DepositNote[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "privacy-localnet-"));
  hasher = await createPoseidonHasher();
  validator = await startLocalValidator({ port: 0, slotMs: 50, poolProgramId: DEFAULT_POOL_PROGRAM_ID });
  rpc = validator.rpcUrl;
  const config = await prepareDemo(path.join(dir, "data-localnet"), validator, DEFAULT_POOL_PROGRAM_ID);
  relay = await startRelay({ RELAY_CONFIG: config, RELAY_RATE_LIMITS: "off" });
  proxy = await startRecordingProxy(relay.url);

  const connection = chainConnection(rpc);
  const depositor = Keypair.generate();
  const sol = await requestSol(connection, depositor.address, 1_000_000_000n);
  if (!sol.ok) throw new Error(sol.error);
  const minted = await mintTestTokens(rpc, depositor.address, USDC, DEPOSIT * 4n);
  if (!minted.ok) throw new Error(minted.error.message);
  for (let i = 0; i < 4; i++) {
    const created = await createNote({ network: "mainnet", mint: USDC, amount: DEPOSIT, hasher });
    if (!created.ok) throw new Error(created.error);
    const d = await chainDeposit(connection, depositor, created.value, { hasher });
    if (!d.ok) throw new Error(JSON.stringify(d.error));
    notes.push(d.value.note);
  }
  // The relay indexes the deposits from the chain; the withdrawals below prove against a root it knows.
  const direct = new RelayClient({ baseUrl: relay.url });
  for (let i = 0; i < 120; i++) {
    const m = await direct.getMerkle(USDC, "mainnet");
    if (m.ok && m.value.json.nextIndex >= 4) break;
    await new Promise((r) => setTimeout(r, 250));
  }
}, 180_000);

afterAll(async () => {
  await proxy?.close();
  await relay?.stop();
  await validator?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("withdraw() with the chain lookup on the local validator", () => {
  it("rebuilds the note's path from the pool's history and checks the nullifier account over RPC: zero get_proof or get_nullifier reach the relay", async () => {
    const note = notes[2]!;
    const recipient = Keypair.generate().address;
    const client = new RelayClient({ baseUrl: proxy.url, timeoutMs: 30_000 });
    proxy.requests.length = 0;
    const part = 400_000n;
    const partFee = 1000n; // 25 bps of 400,000 is 1,000
    const r = await withdraw(client, note, recipient, {
      wallet: Keypair.generate(),
      hasher,
      amount: part,
      lookup: { kind: "chain", rpc },
      prove: { prover: cachedProver().prover },
    });
    if (!r.ok) throw new Error(JSON.stringify(r.error, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)));
    expect(r.value.merkle).toMatchObject({ leafIndex: 2, address: poolTreeAddress(DEFAULT_POOL_PROGRAM_ID, USDC) });
    expect(r.value.terms.fee).toBe(partFee);
    expect(await tokenBalanceOf(chainConnection(rpc), recipient, USDC)).toBe(part - partFee);
    expect(r.value.change).toMatchObject({ amount: DEPOSIT - part, change: { leafIndex: 4, piece: 1 } });

    const endpoints = proxy.requests.map((q) => q.endpoint);
    expect(endpoints.filter((e) => e === "get_proof" || e === "get_nullifier" || e === "get_node")).toEqual([]);
    // What the relay was asked: a login, its fees, its public root, and the withdrawal.
    expect([...new Set(endpoints)].sort()).toEqual(["fees", "get_merkle", "login", "relay"]);
    // The nullifier account the SDK looks up is the one the withdrawal created.
    const spent = await chainConnection(rpc).getAccountInfo(new PublicKey(poolNullifierAddress(DEFAULT_POOL_PROGRAM_ID, USDC, note.nullifierHash)));
    expect(spent).not.toBeNull();
    // And withdraw() refuses the spent note from the chain's answer, before proving, still without asking the relay.
    proxy.requests.length = 0;
    const again = await withdraw(client, note, recipient, { hasher, lookup: { kind: "chain", rpc } });
    expect(again).toMatchObject({ ok: false, error: { stage: "spent", address: poolNullifierAddress(DEFAULT_POOL_PROGRAM_ID, USDC, note.nullifierHash) } });
    expect(proxy.requests.map((q) => q.endpoint)).toEqual([]);

    // The change note's path comes from the chain too: its change leaf read from the withdrawal's instruction data.
    for (let i = 0; i < 120; i++) {
      const m = await client.getMerkle(USDC, "mainnet");
      if (m.ok && m.value.json.nextIndex >= 5) break;
      await new Promise((res) => setTimeout(res, 250));
    }
    const history = await readPoolHistory(chainConnection(rpc), DEFAULT_POOL_PROGRAM_ID, poolTreeAddress(DEFAULT_POOL_PROGRAM_ID, USDC));
    expect(history.leaves.get(4)).toMatchObject({ kind: "change", commitment: r.value.change.commitment, amount: null });
    expect(history.withdrawals.get(Buffer.from(note.nullifierHash).toString("hex"))).toMatchObject({
      amount: part,
      fee: partFee,
      recipient,
      changeLeafIndex: 4,
    });
    const second = Keypair.generate().address;
    proxy.requests.length = 0;
    const rest = await withdraw(client, r.value.change, second, {
      wallet: Keypair.generate(),
      hasher,
      lookup: { kind: "chain", rpc },
      prove: { prover: cachedProver().prover },
    });
    if (!rest.ok) throw new Error(JSON.stringify(rest.error, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)));
    expect(rest.value.merkle).toMatchObject({ leafIndex: 4 });
    expect(await tokenBalanceOf(chainConnection(rpc), second, USDC)).toBe(DEPOSIT - part - 1500n);
    expect(proxy.requests.map((q) => q.endpoint).filter((e) => e === "get_proof" || e === "get_nullifier" || e === "get_node")).toEqual([]);
    // The original note alone, followed on the chain: two withdrawals, nothing left.
    const followed = await followChain(hasher, note, chainLedger(rpc));
    if (!followed.ok) throw new Error(followed.error.kind);
    expect(followed.value.pieces.map((p) => [p.amount, p.recipient, p.changeLeafIndex])).toEqual([
      [part, recipient, 4],
      [DEPOSIT - part, second, 5],
    ]);
    expect(followed.value.current.amount).toBe(0n);
  }, 180_000);

  it("a note whose leaf the chain holds with another commitment, or a relay on another program, is refused before proving", async () => {
    const client = new RelayClient({ baseUrl: proxy.url, timeoutMs: 30_000 });
    const wrongLeaf = { ...notes[0]!, deposit: { ...notes[0]!.deposit!, leafIndex: 1 } };
    expect(await chainNoteProof(chainConnection(rpc), DEFAULT_POOL_PROGRAM_ID, client, wrongLeaf, hasher)).toMatchObject({
      ok: false,
      error: { kind: "mismatch", message: expect.stringContaining("not this note's commitment") },
    });
    const otherProgram = Keypair.generate().address;
    expect(await chainNoteProof(chainConnection(rpc), otherProgram, client, notes[0]!, hasher)).toMatchObject({
      ok: false,
      error: { kind: "mismatch", message: expect.stringContaining(`program ${otherProgram} has no pool`) },
    });
  });

  it("relay-cli relay --rpc withdraws with the chain lookup: the relay gets no get_proof or get_nullifier", async () => {
    expect(writeKeypairFile(path.join(dir, "login.json"), Keypair.generate()).ok).toBe(true);
    expect(saveNote(path.join(dir, "n3.json"), notes[3]!).ok).toBe(true);
    const recipient = Keypair.generate().address;
    proxy.requests.length = 0;
    const { code, out, err } = await runCaptured(
      ["relay", "--keypair", "login.json", "--note", "n3.json", "--recipient", recipient, "--rpc", rpc, "--yes", "--json"],
      dir,
      proxy.url,
    );
    expect(code, err).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ withdrawn: true, toRecipient: (DEPOSIT - FEE).toString() });
    expect(err).toContain("the relay is asked only for its root");
    // The chain check, the anonymity sets and the path all came from the RPC.
    expect(proxy.requests.filter((q) => q.endpoint === "get_proof" || q.endpoint === "get_nullifier" || q.endpoint === "get_node")).toEqual([]);
    expect(err).toMatch(/anonymity set \d+ lea(f|ves)/);
    expect(await tokenBalanceOf(chainConnection(rpc), recipient, USDC)).toBe(DEPOSIT - FEE);
  }, 120_000);
});
