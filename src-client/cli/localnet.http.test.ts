import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalValidator, type LocalValidator } from "../../src-localnet/validator";
import { prepareDemo } from "../../src-localnet/demo";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { DEFAULT_POOL_PROGRAM_ID, NATIVE_MINT, poolVaultAddress } from "../../src-shared/pool-program";
import { startRelay, type RelayProcess } from "../../tests/support/relay-process";
import { chainConnection, tokenBalanceOf } from "../sdk/chain";
import { chainDepositAndSaveNote } from "../sdk/chain-deposit";
import { readKeypairFile } from "../sdk/keypair";
import { loadNote } from "../sdk/note";
import type { CliIo } from "./context";
import { runCli } from "./run";

/**
 * The README's localnet walk-through, as a user types it: the local validator
 * with the demo setup (`npm run localnet -- --demo <dir>`: the SBF pool program
 * in LiteSVM, wSOL and USDC pools), the relay started on the config it writes,
 * and the CLI: keygen, airdrop --rpc, deposit --rpc, relay --rpc, swap-pool --rpc,
 * relay --swap-to, and a failed deposit reverted through the relay. Balances
 * are read from the chain.
 */
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const WSOL = NATIVE_MINT;
const DEPOSIT = 1_000_000n;
const FEE = (DEPOSIT * 25n) / 10_000n; // the relay's default 25 bps
const cpOut = (a: bigint, rIn: bigint, rOut: bigint): bigint => (a * 997n * rOut) / (rIn * 1000n + a * 997n);

let validator: LocalValidator;
let relay: RelayProcess;
let notRpc: Server;
let notRpcUrl: string;
let dir: string;
let rpc: string;

const run = async (...argv: string[]): Promise<{ code: number; out: string; err: string }> => {
  let out = "";
  let err = "";
  const io: CliIo = { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env: { RELAY_URL: relay.url }, cwd: dir };
  const code = await runCli(argv, io);
  return { code, out, err };
};
const json = async <T = Record<string, unknown>>(...argv: string[]): Promise<T> => {
  const r = await run(...argv, "--json");
  if (r.code !== 0) throw new Error(`relay-cli ${argv.join(" ")} exited ${r.code}: ${r.err}`);
  return JSON.parse(r.out) as T;
};
const address = async (file: string) => (await json<{ address: string }>("keygen", "--out", file)).address;
const onChain = (owner: string, mint: string) => tokenBalanceOf(chainConnection(rpc), owner, mint);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "cli-localnet-"));
  validator = await startLocalValidator({ port: 0, slotMs: 50, poolProgramId: DEFAULT_POOL_PROGRAM_ID });
  rpc = validator.rpcUrl;
  const config = await prepareDemo(path.join(dir, "data-localnet"), validator, DEFAULT_POOL_PROGRAM_ID);
  // The demo config leaves the swap venue at Jupiter's default; the validator serves a Jupiter-compatible API.
  relay = await startRelay({ RELAY_CONFIG: config, RELAY_JUPITER_URL: validator.jupiterUrl, RELAY_RATE_LIMITS: "off" });
  // A JSON-RPC endpoint without the local validator's test methods, as a real cluster answers them.
  notRpc = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } }));
    });
  });
  await new Promise<void>((r) => notRpc.listen(0, "127.0.0.1", r));
  notRpcUrl = `http://127.0.0.1:${(notRpc.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await relay?.stop();
  await validator?.close();
  await new Promise((r) => notRpc?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe("relay-cli against a relay on the local validator", () => {
  let wallet: string;
  let bob: string;
  let carol: string;
  let aliceSignature: string;

  it("airdrop --rpc funds a new wallet with SOL and test tokens; a cluster without localnet_mintTo is refused clearly", async () => {
    wallet = await address("wallet.json");
    bob = await address("bob.json");
    carol = await address("carol.json");
    const a = await json<{ tokenBalance: string; solBalance: string; signature: string }>(
      "airdrop",
      "--rpc",
      rpc,
      "--keypair",
      "wallet.json",
      "--mint",
      USDC,
      "--amount",
      "5000000",
    );
    expect(a).toMatchObject({ tokenBalance: "5000000", solBalance: "1000000000", signature: expect.any(String) });
    expect(await onChain(wallet, USDC)).toBe(5_000_000n);
    expect((await run("balance", "--rpc", rpc, "--keypair", "wallet.json")).out.trim()).toBe("1000000000");

    const refused = await run("airdrop", "--rpc", notRpcUrl, "--keypair", "wallet.json", "--mint", USDC, "--amount", "5");
    expect(refused).toMatchObject({ code: 1, err: expect.stringContaining("only the local validator mints test tokens") });
    expect(await run("airdrop", "--rpc", rpc, "--keypair", "wallet.json", "--lamports", "0")).toMatchObject({ code: 2 });
    expect(await run("airdrop", "--rpc", "ftp://x", "--keypair", "wallet.json")).toMatchObject({ code: 2 });
  });

  it("deposit --rpc sends the pool program's deposit, checks the program's leaf and saves the note; relay pays exactly depositSize − fee", async () => {
    const d = await run("deposit", "--rpc", rpc, "--keypair", "wallet.json", "--mint", USDC, "--amount", DEPOSIT.toString(), "--note", "alice.json");
    expect(d).toMatchObject({ code: 0, out: expect.stringContaining("deposit inserted on chain at leaf 0") });
    expect(d.out).toContain(`the relay at ${relay.url} has indexed leaf 0`);
    expect(d.err).toContain("reading the program's deposit event");
    const note = await loadNote(path.join(dir, "alice.json"), await createPoseidonHasher());
    if (!note.ok) throw new Error(note.error);
    expect(note.value.deposit).toMatchObject({ status: "indexed", leafIndex: 0, wallet, signature: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/) });
    aliceSignature = note.value.deposit!.signature;
    expect(await onChain(wallet, USDC)).toBe(4_000_000n);
    const vault = await chainConnection(rpc).getTokenAccountBalance(new PublicKey(poolVaultAddress(DEFAULT_POOL_PROGRAM_ID, USDC)));
    expect(vault.value.amount).toBe(DEPOSIT.toString());

    // As the README: a throwaway login wallet, and the path read from the chain.
    await address("login.json");
    const r = await run("relay", "--keypair", "login.json", "--rpc", rpc, "--note", "alice.json", "--recipient", bob, "--json");
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain("the relay is asked only for its root");
    expect(JSON.parse(r.out)).toMatchObject({ withdrawn: true, fee: FEE.toString(), toRecipient: (DEPOSIT - FEE).toString() });
    expect(await onChain(bob, USDC)).toBe(DEPOSIT - FEE);
    expect((await run("balance", "--rpc", rpc, "--wallet", bob, "--mint", USDC)).out.trim()).toBe((DEPOSIT - FEE).toString());
    expect((await run("nullifier", "--note", "alice.json")).out).toMatch(/spent \(nullifier account/);
  });

  it("relay --swap-to goes through the validator's cp-swap pool (swap-pool --rpc): the recipient gets at least the proof's minOut", async () => {
    const pool = await json<{ pool: string }>(
      "swap-pool",
      "--rpc",
      rpc,
      "--mint-a",
      USDC,
      "--mint-b",
      WSOL,
      "--reserve-a",
      "1000000000",
      "--reserve-b",
      "5000000000",
    );
    expect(pool.pool).toEqual(expect.any(String));
    expect(
      (await run("deposit", "--rpc", rpc, "--keypair", "wallet.json", "--mint", USDC, "--amount", DEPOSIT.toString(), "--note", "carol-note.json")).code,
    ).toBe(0);
    // Without --rpc the relay is asked among decoys, and told that this network has a chain to read instead.
    const r = await run("relay", "--keypair", "login.json", "--note", "carol-note.json", "--recipient", carol, "--swap-to", WSOL, "--json");
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`the relay runs mainnet on program ${DEFAULT_POOL_PROGRAM_ID}: give --rpc <url>`);
    const out = JSON.parse(r.out) as { swap: { minOut: string; quotedOut: string } };
    const expected = cpOut(DEPOSIT - FEE, 1_000_000_000n, 5_000_000_000n);
    expect(out.swap).toMatchObject({ outputMint: WSOL, quotedOut: expected.toString(), minOut: ((expected * 9950n) / 10_000n).toString() });
    const received = await onChain(carol, WSOL);
    expect(received).toBeGreaterThanOrEqual(BigInt(out.swap.minOut));
    expect(received).toBe(expected); // nothing traded in between
    expect(await onChain(carol, USDC)).toBe(0n);
  });

  it("a failed deposit (the same precommitment again: its leaf is already in the pool) is saved as failed and reverted through the relay", async () => {
    // Another copy of alice's note, deposited once more as a second wallet app would: the program refuses the duplicate leaf.
    const hasher = await createPoseidonHasher();
    const alice = await loadNote(path.join(dir, "alice.json"), hasher);
    const kp = readKeypairFile(path.join(dir, "wallet.json"));
    if (!alice.ok || !kp.ok) throw new Error("setup");
    const dup = await chainDepositAndSaveNote(chainConnection(rpc), kp.value, { ...alice.value, deposit: null }, path.join(dir, "dup.json"), { hasher });
    if (!dup.ok) throw new Error(JSON.stringify(dup.error));
    expect(dup.value.answer).toMatchObject({ status: "failed", leafIndex: null, reason: "duplicate", amount: DEPOSIT });
    const failedSig = dup.value.answer.signature;
    const shown = await run("note", "--note", "dup.json");
    expect(shown.out).toContain(`deposit: failed by ${wallet}, signature ${failedSig}`);
    const before = await onChain(wallet, USDC);

    expect(await run("revert", "--keypair", "wallet.json", "--deposit", aliceSignature)).toMatchObject({
      code: 1,
      err: expect.stringContaining("AlreadyIndexed"),
    });
    expect(await run("revert", "--keypair", "bob.json", "--deposit", failedSig)).toMatchObject({ code: 1, err: expect.stringContaining("NotDepositor") });
    const r = await run("revert", "--keypair", "wallet.json", "--deposit", failedSig);
    expect(r).toMatchObject({ code: 0, out: expect.stringContaining(`reverted deposit ${failedSig} on mainnet`) });
    expect(await onChain(wallet, USDC)).toBe(before + DEPOSIT);
    expect(await run("revert", "--keypair", "wallet.json", "--deposit", failedSig)).toMatchObject({ code: 1, err: expect.stringContaining("NullifierSpent") });
  });

  it("deposit --rpc refuses before sending anything when the wallet lacks tokens or the program has no such pool; the unused note goes", async () => {
    const poor = await run("deposit", "--rpc", rpc, "--keypair", "bob.json", "--mint", WSOL, "--amount", "1000", "--note", "poor.json");
    expect(poor).toMatchObject({ code: 1, err: expect.stringContaining(`${bob} holds 0 of ${WSOL}`) });
    expect(() => readFileSync(path.join(dir, "poor.json"))).toThrow();
    // A relay on another program would never index the deposit: refused before anything is sent.
    const otherProgram = await run(
      "deposit",
      "--rpc",
      rpc,
      "--program",
      bob,
      "--keypair",
      "wallet.json",
      "--mint",
      USDC,
      "--amount",
      "1000",
      "--note",
      "wrong.json",
    );
    expect(otherProgram).toMatchObject({ code: 2, err: expect.stringContaining(`runs mainnet on program ${DEFAULT_POOL_PROGRAM_ID}, not on program ${bob}`) });
    // Without a relay to ask, the chain says the program has no such pool.
    const wrong = await run(
      "deposit",
      "--url",
      "http://127.0.0.1:9",
      "--rpc",
      rpc,
      "--program",
      bob,
      "--keypair",
      "wallet.json",
      "--mint",
      USDC,
      "--amount",
      "1000",
      "--note",
      "wrong.json",
    );
    expect(wrong).toMatchObject({ code: 1, err: expect.stringContaining(`program ${bob} has no pool for ${USDC}`) });
    expect(wrong.err).toContain("did not answer");
    expect(() => readFileSync(path.join(dir, "wrong.json"))).toThrow();
    // devnet of the demo relay is its sandbox: a note for it could never be withdrawn from this chain.
    const sandbox = await run(
      "deposit",
      "--network",
      "devnet",
      "--rpc",
      rpc,
      "--keypair",
      "wallet.json",
      "--mint",
      USDC,
      "--amount",
      "1000",
      "--note",
      "devnet.json",
    );
    expect(sandbox).toMatchObject({ code: 2, err: expect.stringContaining("runs devnet on its sandbox chain") });
    expect(() => readFileSync(path.join(dir, "devnet.json"))).toThrow();
    expect(await run("deposit", "--program", bob, "--keypair", "wallet.json", "--mint", USDC, "--amount", "1000")).toMatchObject({ code: 2 });
  });
});
