import { copyFileSync, readFileSync, mkdtempSync, rmSync } from "node:fs";
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
import { relayFee } from "../sdk/fees";
import { RelayClient } from "../sdk/http";
import { readKeypairFile } from "../sdk/keypair";
import { loadNote } from "../sdk/note";
import { runCaptured, type CapturedRun } from "./test-support";

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
/** The README's partial withdrawals: 3,000,000 deposited, then 1,000,000, 500,000 and the rest. */
const ALICE = 3_000_000n;
const AIRDROP = 10_000_000n;
const FEE = (DEPOSIT * 25n) / 10_000n; // the relay's default 25 bps
const cpOut = (a: bigint, rIn: bigint, rOut: bigint): bigint => (a * 997n * rOut) / (rIn * 1000n + a * 997n);

let validator: LocalValidator;
let relay: RelayProcess;
let notRpc: Server;
let notRpcUrl: string;
let dir: string;
let rpc: string;

const run = (...argv: string[]): Promise<CapturedRun> => runCaptured(argv, dir, relay.url);
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
  let dave: string;
  let erin: string;
  let aliceSignature: string;

  it("airdrop --rpc funds a new wallet with SOL and test tokens; a cluster without localnet_mintTo is refused clearly", async () => {
    wallet = await address("wallet.json");
    bob = await address("bob.json");
    carol = await address("carol.json");
    dave = await address("dave.json");
    erin = await address("erin.json");
    const a = await json<{ tokenBalance: string; solBalance: string; signature: string }>(
      "airdrop",
      "--rpc",
      rpc,
      "--keypair",
      "wallet.json",
      "--mint",
      USDC,
      "--amount",
      AIRDROP.toString(),
    );
    expect(a).toMatchObject({ tokenBalance: AIRDROP.toString(), solBalance: "1000000000", signature: expect.any(String) });
    expect(await onChain(wallet, USDC)).toBe(AIRDROP);
    expect((await run("balance", "--rpc", rpc, "--keypair", "wallet.json")).out.trim()).toBe("1000000000");

    const refused = await run("airdrop", "--rpc", notRpcUrl, "--keypair", "wallet.json", "--mint", USDC, "--amount", "5");
    expect(refused).toMatchObject({ code: 1, err: expect.stringContaining("only the local validator mints test tokens") });
    expect(await run("airdrop", "--rpc", rpc, "--keypair", "wallet.json", "--lamports", "0")).toMatchObject({ code: 2 });
    expect(await run("airdrop", "--rpc", "ftp://x", "--keypair", "wallet.json")).toMatchObject({ code: 2 });
  });

  it("deposit --rpc 3,000,000, then relay --rpc 1,000,000 to bob, 500,000 to dave and the rest to erin: each gets its part less the fee, the vault drops by what was paid out", async () => {
    const d = await run("deposit", "--rpc", rpc, "--keypair", "wallet.json", "--mint", USDC, "--amount", ALICE.toString(), "--note", "alice.json");
    expect(d).toMatchObject({ code: 0, out: expect.stringContaining("deposit inserted on chain at leaf 0") });
    expect(d.out).toContain(`the relay at ${relay.url} has indexed leaf 0`);
    expect(d.err).toContain("reading the program's deposit event");
    const hasher = await createPoseidonHasher();
    const note = await loadNote(path.join(dir, "alice.json"), hasher);
    if (!note.ok) throw new Error(note.error);
    expect(note.value.deposit).toMatchObject({ status: "indexed", leafIndex: 0, wallet, signature: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/) });
    aliceSignature = note.value.deposit!.signature;
    copyFileSync(path.join(dir, "alice.json"), path.join(dir, "alice-original.json"));
    expect(await onChain(wallet, USDC)).toBe(AIRDROP - ALICE);
    const vault = async () =>
      BigInt((await chainConnection(rpc).getTokenAccountBalance(new PublicKey(poolVaultAddress(DEFAULT_POOL_PROGRAM_ID, USDC)))).value.amount);
    expect(await vault()).toBe(ALICE);
    const fees = await new RelayClient({ baseUrl: relay.url }).fees();
    if (!fees.ok) throw new Error(JSON.stringify(fees));
    const feeOf = (a: bigint) => relayFee(fees.value, "mainnet", USDC, a)!.fee;

    // As the README: a throwaway login wallet, and the path read from the chain.
    await address("login.json");
    const piece = async (recipient: string, ...amount: string[]) => {
      const r = await run("relay", "--keypair", "login.json", "--rpc", rpc, "--note", "alice.json", "--recipient", recipient, ...amount, "--yes", "--json");
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain("the relay is asked only for its root");
      return { ...(JSON.parse(r.out) as { left: string; pieces: { changeLeafIndex: number }[] }), err: r.err };
    };
    const first = await piece(bob, "--amount", "1000000");
    // With --rpc the pool's history is read: the anonymity set counts the deposits of at least the piece and the change leaves.
    expect(first.err).toContain(`piece 1: 1000000, fee ${feeOf(1_000_000n)}, the recipient receives ${1_000_000n - feeOf(1_000_000n)}; anonymity set 1 leaf`);
    expect(first).toMatchObject({ left: "2000000", pieces: [{ depositSize: "1000000", changeLeafIndex: 1 }] });
    expect(await onChain(bob, USDC)).toBe(1_000_000n - feeOf(1_000_000n));
    expect(await vault()).toBe(ALICE - 1_000_000n);

    expect(await piece(dave, "--amount", "500000")).toMatchObject({ left: "1500000" });
    expect(await onChain(dave, USDC)).toBe(500_000n - feeOf(500_000n));
    expect(await vault()).toBe(ALICE - 1_500_000n);

    const rest = await piece(erin);
    expect(rest).toMatchObject({ left: "0", pieces: [{ depositSize: "1000000" }, { depositSize: "500000" }] });
    expect(await onChain(erin, USDC)).toBe(1_500_000n - feeOf(1_000_000n) - feeOf(500_000n));
    expect((await run("balance", "--rpc", rpc, "--wallet", erin, "--mint", USDC)).out.trim()).toBe(
      (1_500_000n - feeOf(1_000_000n) - feeOf(500_000n)).toString(),
    );
    expect(await vault()).toBe(0n);
    expect(JSON.parse(readFileSync(path.join(dir, "alice.json"), "utf8"))).toMatchObject({ state: "confirmed", value: "0", piece: 4, leafIndex: 4 });

    // The original note file alone, read against the chain: every withdrawal, with its signature, recipient and fee.
    const chain = await json<{
      value: string;
      spent: boolean;
      pieces: { amount: string; recipient: string; fee: string; signature: string; changeLeafIndex: number }[];
    }>("note", "--note", "alice-original.json", "--rpc", rpc);
    expect(chain).toMatchObject({ value: "0", spent: true, leafIndex: 4 });
    expect(chain.pieces.map((p) => [p.amount, p.recipient, p.fee, p.changeLeafIndex])).toEqual([
      ["1000000", bob, feeOf(1_000_000n).toString(), 1],
      ["500000", dave, feeOf(500_000n).toString(), 2],
      ["1000000", erin, feeOf(1_000_000n).toString(), 3],
      ["500000", erin, feeOf(500_000n).toString(), 4],
    ]);
    expect(chain.pieces.every((p) => /^[1-9A-HJ-NP-Za-km-z]{86,88}$/.test(p.signature))).toBe(true);
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
    const r = await run("relay", "--keypair", "login.json", "--note", "carol-note.json", "--recipient", carol, "--swap-to", WSOL, "--yes", "--json");
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`the relay runs mainnet on program ${DEFAULT_POOL_PROGRAM_ID}: give --rpc <url>`);
    const out = (JSON.parse(r.out) as { pieces: { swap: { minOut: string; quotedOut: string } }[] }).pieces[0]!;
    const expected = cpOut(DEPOSIT - FEE, 1_000_000_000n, 5_000_000_000n);
    expect(out.swap).toMatchObject({ outputMint: WSOL, quotedOut: expected.toString(), minOut: ((expected * 9950n) / 10_000n).toString() });
    const received = await onChain(carol, WSOL);
    expect(received).toBeGreaterThanOrEqual(BigInt(out.swap.minOut));
    expect(received).toBe(expected); // nothing traded in between
    expect(await onChain(carol, USDC)).toBe(0n);
  });

  it("a failed deposit (the same precommitment again: its leaf is already in the pool) is saved as failed and reverted through the relay", async () => {
    // Another copy of alice's original note, deposited once more as a second wallet app would: the program refuses the duplicate leaf.
    const hasher = await createPoseidonHasher();
    const alice = await loadNote(path.join(dir, "alice-original.json"), hasher);
    const kp = readKeypairFile(path.join(dir, "wallet.json"));
    if (!alice.ok || !kp.ok) throw new Error("setup");
    const dup = await chainDepositAndSaveNote(chainConnection(rpc), kp.value, { ...alice.value, deposit: null }, path.join(dir, "dup.json"), { hasher });
    if (!dup.ok) throw new Error(JSON.stringify(dup.error));
    expect(dup.value.answer).toMatchObject({ status: "failed", leafIndex: null, reason: "duplicate", amount: ALICE });
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
    expect(await onChain(wallet, USDC)).toBe(before + ALICE);
    expect(await run("revert", "--keypair", "wallet.json", "--deposit", failedSig)).toMatchObject({ code: 1, err: expect.stringContaining("NullifierSpent") });
  });

  it("deposit --rpc refuses before sending anything when the amount is below the pool's minimum, the wallet lacks tokens or the program has no such pool; the unused note goes", async () => {
    // The demo's wSOL pool takes at least 0.01 SOL (issue 25): the program would refuse less (DepositBelowMinimum).
    const small = await run("deposit", "--rpc", rpc, "--keypair", "bob.json", "--mint", WSOL, "--amount", "1000", "--note", "small.json");
    expect(small).toMatchObject({
      code: 2,
      err: expect.stringContaining(`this pool's minimum deposit is 10000000 base units of ${WSOL} and the note holds 1000`),
    });
    expect(() => readFileSync(path.join(dir, "small.json"))).toThrow();
    const poor = await run("deposit", "--rpc", rpc, "--keypair", "bob.json", "--mint", WSOL, "--amount", "10000000", "--note", "poor.json");
    expect(poor).toMatchObject({ code: 1, err: expect.stringContaining(`${bob} holds 0 of ${WSOL}`) });
    expect(() => readFileSync(path.join(dir, "poor.json"))).toThrow();
    // A relay on another program would never index the deposit: refused before anything is sent.
    const onBob = ["--rpc", rpc, "--program", bob, "--keypair", "wallet.json", "--mint", USDC, "--amount", "1000", "--note", "wrong.json"];
    const otherProgram = await run("deposit", ...onBob);
    expect(otherProgram).toMatchObject({ code: 2, err: expect.stringContaining(`runs mainnet on program ${DEFAULT_POOL_PROGRAM_ID}, not on program ${bob}`) });
    // Without a relay to ask, the chain says the program has no such pool.
    const wrong = await run("deposit", "--url", "http://127.0.0.1:9", ...onBob);
    expect(wrong).toMatchObject({ code: 1, err: expect.stringContaining(`program ${bob} has no pool for ${USDC}`) });
    expect(wrong.err).toContain("did not answer");
    expect(() => readFileSync(path.join(dir, "wrong.json"))).toThrow();
    // devnet of the demo relay is its sandbox: a note for it could never be withdrawn from this chain.
    const walletUsdc = ["--keypair", "wallet.json", "--mint", USDC];
    const sandbox = await run("deposit", "--network", "devnet", "--rpc", rpc, ...walletUsdc, "--amount", "1000", "--note", "devnet.json");
    expect(sandbox).toMatchObject({ code: 2, err: expect.stringContaining("runs devnet on its sandbox chain") });
    expect(() => readFileSync(path.join(dir, "devnet.json"))).toThrow();
    expect(await run("deposit", "--program", bob, "--keypair", "wallet.json", "--mint", USDC, "--amount", "1000")).toMatchObject({ code: 2 });
  });
});
