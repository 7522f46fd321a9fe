/**
 * `npm run pool:init` against the local validator (issue 25): it signs as the
 * program's upgrade authority, says before sending when the signer is not it,
 * opens pools with their minimum deposit, and for a pool that exists reads
 * who its authority is: ours is left as it is, another key's fails the run.
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Connection, Keypair, PublicKey, Transaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_POOL_PROGRAM_ID,
  decodeTreeAccount,
  extendPoolInstruction,
  initializePoolInstruction,
  NATIVE_MINT,
  poolTreeAddress,
  TREE_ACCOUNT_SIZE,
} from "../../src-shared/pool-program";
import { confirmSignature } from "../../src-localnet/confirm";
import { startLocalValidator, type LocalValidator } from "../../src-localnet/validator";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const PROGRAM = DEFAULT_POOL_PROGRAM_ID;

let v: LocalValidator;
let conn: Connection;
let dir: string;
const owner = Keypair.generate();
const stranger = Keypair.generate();

function keyFile(k: Keypair, name: string): string {
  const f = path.join(dir, name);
  writeFileSync(f, JSON.stringify(Array.from(k.secretKey)), { mode: 0o600 });
  chmodSync(f, 0o600);
  return f;
}

/** Runs pool:init as an operator does (tsx, a fresh process): its exit code and output. */
function poolInit(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(repo, "scripts/solana/init-pool.ts"), "--rpc", v.rpcUrl, "--program", PROGRAM, ...args],
      { cwd: repo, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, out: stdout, err: stderr }),
    );
  });
}

async function treeOf(mint: string) {
  const info = await conn.getAccountInfo(new PublicKey(poolTreeAddress(PROGRAM, mint)));
  if (!info) return null;
  const t = decodeTreeAccount(info.data);
  if (!t.ok) throw new Error(t.error);
  return { size: info.data.length, authority: new PublicKey(t.value.authority).toBase58(), minDeposit: t.value.minDeposit };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "pool-init-"));
  v = await startLocalValidator({ port: 0, slotMs: 20, poolProgramId: PROGRAM, poolUpgradeAuthority: owner.publicKey.toBase58() });
  conn = new Connection(v.rpcUrl, "confirmed");
  for (const k of [owner, stranger]) await v.airdrop(k.publicKey.toBase58(), 10_000_000_000n);
  for (const m of [NATIVE_MINT, USDC]) await v.createMint(m, m === USDC ? 6 : 9);
});
afterAll(async () => {
  await v?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("npm run pool:init on the local validator", () => {
  it("says before sending that the signer is not the upgrade authority, sends nothing and exits 1", async () => {
    const r = await poolInit(["--keypair", keyFile(stranger, "stranger.json"), "--mint", USDC]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`upgrade authority ${owner.publicKey.toBase58()}`);
    expect(r.err).toContain(`not sent: only the program's upgrade authority may open a pool, and the signer ${stranger.publicKey.toBase58()} is not it`);
    expect(await treeOf(USDC)).toBeNull();
  });

  it("opens the pools as the upgrade authority with the default minimums (0.01 SOL, 1 USDC), at full size", async () => {
    const r = await poolInit(["--keypair", keyFile(owner, "owner.json"), "--mint", NATIVE_MINT, "--mint", USDC]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain(`upgrade authority ${owner.publicKey.toBase58()} (the signer)`);
    expect(r.out).toMatch(new RegExp(`${USDC}: initialized \\(tree \\w+, vault \\w+, minimum deposit 1000000\\) in \\w+`));
    expect(await treeOf(NATIVE_MINT)).toEqual({ size: TREE_ACCOUNT_SIZE, authority: owner.publicKey.toBase58(), minDeposit: 10_000_000n });
    expect(await treeOf(USDC)).toEqual({ size: TREE_ACCOUNT_SIZE, authority: owner.publicKey.toBase58(), minDeposit: 1_000_000n });
  });

  it("leaves an existing pool of ours as it is, saying its minimum (and that a pool's minimum is set once)", async () => {
    const r = await poolInit(["--keypair", keyFile(owner, "owner.json"), "--mint", USDC, "--min-deposit", "5"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      `${USDC}: pool exists (tree ${poolTreeAddress(PROGRAM, USDC)}), ours, minimum deposit 1000000 (asked for 5: a pool's minimum is set once, at initialize); left as it is`,
    );
  });

  it("reports a pool another key opened as not ours, naming its authority, and exits 1", async () => {
    // The stranger was the upgrade authority for a moment and opened a pool of its own mint.
    const mint = Keypair.generate().publicKey.toBase58();
    await v.createMint(mint);
    await v.setUpgradeAuthority(stranger.publicKey.toBase58());
    const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash("confirmed");
    const tx = new Transaction({ feePayer: stranger.publicKey, blockhash, lastValidBlockHeight }).add(
      initializePoolInstruction({ programId: PROGRAM, authority: stranger.publicKey.toBase58(), mint, minDeposit: 1n }),
    );
    tx.sign(stranger);
    await confirmSignature(conn, await conn.sendRawTransaction(tx.serialize()), lastValidBlockHeight);
    await v.setUpgradeAuthority(owner.publicKey.toBase58());

    const r = await poolInit(["--keypair", keyFile(owner, "owner.json"), "--mint", mint, "--min-deposit", "1000"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${mint}: pool exists (tree ${poolTreeAddress(PROGRAM, mint)}) but is NOT ours: its authority is ${stranger.publicKey.toBase58()}`);
    expect(r.out).not.toContain("left as it is");
  });

  it("finishes a pool of ours whose tree was not grown to full size, with extend_pool", async () => {
    const mint = Keypair.generate().publicKey.toBase58();
    await v.createMint(mint);
    const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash("confirmed");
    const tx = new Transaction({ feePayer: owner.publicKey, blockhash, lastValidBlockHeight }).add(
      initializePoolInstruction({ programId: PROGRAM, authority: owner.publicKey.toBase58(), mint, minDeposit: 42n }),
      extendPoolInstruction({ programId: PROGRAM, payer: owner.publicKey.toBase58(), mint }),
    );
    tx.sign(owner);
    await confirmSignature(conn, await conn.sendRawTransaction(tx.serialize()), lastValidBlockHeight);
    const r = await poolInit(["--keypair", keyFile(owner, "owner.json"), "--mint", mint, "--min-deposit", "42"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("extending it");
    expect(await treeOf(mint)).toEqual({ size: TREE_ACCOUNT_SIZE, authority: owner.publicKey.toBase58(), minDeposit: 42n });
  });

  it("refuses a mint with no default minimum unless --min-deposit is given (exit 2), and a minimum of 0", async () => {
    const mint = Keypair.generate().publicKey.toBase58();
    const none = await poolInit(["--keypair", keyFile(owner, "owner.json"), "--mint", mint]);
    expect(none.code).toBe(2);
    expect(none.err).toContain(`--min-deposit is required for ${mint}`);
    const zero = await poolInit(["--keypair", keyFile(owner, "owner.json"), "--mint", USDC, "--min-deposit", "0"]);
    expect(zero.code).toBe(2);
    expect(zero.err).toContain("--min-deposit 0 must be at least 1");
  });
});
