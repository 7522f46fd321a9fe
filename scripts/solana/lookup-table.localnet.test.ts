/**
 * `npm run pool:lookup-table` against the local validator: it creates the
 * relay's table with the pools' fixed accounts, waits until they resolve,
 * extends it with only what it lacks (nothing sent when it holds them all),
 * and refuses a table whose authority is another key.
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Connection, Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_POOL_PROGRAM_ID, NATIVE_MINT } from "../../src-shared/pool-program";
import { readLookupTable, relayTableAddresses } from "../../src-shared/solana/lookup-tables";
import { startLocalValidator, type LocalValidator } from "../../src-localnet/validator";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const PROGRAM = DEFAULT_POOL_PROGRAM_ID;

let v: LocalValidator;
let conn: Connection;
let dir: string;
const relayer = Keypair.generate();
const stranger = Keypair.generate();

function keyFile(k: Keypair, name: string): string {
  const f = path.join(dir, name);
  writeFileSync(f, JSON.stringify(Array.from(k.secretKey)), { mode: 0o600 });
  chmodSync(f, 0o600);
  return f;
}

/** Runs pool:lookup-table as an operator does (tsx, a fresh process): its exit code and output. */
function lookupTable(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(repo, "scripts/solana/lookup-table.ts"), "--rpc", v.rpcUrl, "--program", PROGRAM, ...args],
      { cwd: repo, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, out: stdout, err: stderr }),
    );
  });
}

beforeAll(async () => {
  v = await startLocalValidator();
  conn = new Connection(v.rpcUrl, "confirmed");
  dir = mkdtempSync(path.join(tmpdir(), "lookup-table-"));
  await v.airdrop(relayer.publicKey.toBase58(), 10_000_000_000n);
  await v.airdrop(stranger.publicKey.toBase58(), 10_000_000_000n);
}, 60_000);

afterAll(async () => {
  await v?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("pool:lookup-table on the local validator", () => {
  it("creates the relay's table with the pools' fixed accounts, prints its address last, and extends it later with only a new pool's", async () => {
    const key = keyFile(relayer, "relayer.json");
    const r = await lookupTable(["--keypair", key, "--mint", USDC]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const table = r.out.trim().split("\n").at(-1)!;
    expect(r.out).toContain(`lookup table ${table}: created, +9 addresses`);
    expect(r.out).toContain(`${USDC}: no pool yet (run pool:init)`);
    expect(r.out).toContain(`"lookupTables": ["${table}"]`);
    const usdc = relayTableAddresses(PROGRAM, [USDC], relayer.publicKey.toBase58());
    const read = await readLookupTable(conn, table, "confirmed");
    expect(read.state.addresses.map((a) => a.toBase58())).toEqual(usdc);
    expect(read.state.authority?.toBase58()).toBe(relayer.publicKey.toBase58());
    // Usable now: the cluster is past the slot that added them.
    expect(await conn.getSlot("confirmed")).toBeGreaterThan(read.state.lastExtendedSlot);

    const again = await lookupTable(["--keypair", key, "--mint", USDC, "--table", table]);
    expect(again.code).toBe(0);
    expect(again.out).toContain(`lookup table ${table}: holds every address already; nothing sent`);

    const more = await lookupTable(["--keypair", key, "--mint", USDC, "--mint", NATIVE_MINT, "--table", table]);
    expect(more.code).toBe(0);
    expect(more.out).toContain(`lookup table ${table}: extended, +4 addresses`);
    const both = relayTableAddresses(PROGRAM, [USDC, NATIVE_MINT], relayer.publicKey.toBase58());
    const extended = (await readLookupTable(conn, table, "confirmed")).state.addresses.map((a) => a.toBase58());
    // Earlier addresses keep their indexes; the new pool's come after.
    expect(extended.slice(0, usdc.length)).toEqual(usdc);
    expect(new Set(extended)).toEqual(new Set(both));

    const foreign = await lookupTable(["--keypair", keyFile(stranger, "stranger.json"), "--mint", USDC, "--table", table]);
    expect(foreign.code).toBe(1);
    expect(foreign.err).toContain(`lookup table ${table} has authority ${relayer.publicKey.toBase58()}, not ${stranger.publicKey.toBase58()}`);
  }, 120_000);

  it("refuses bad arguments with the usage (exit 2), and an account that is not a lookup table (exit 1)", async () => {
    const key = keyFile(relayer, "relayer.json");
    const noMint = await lookupTable(["--keypair", key]);
    expect(noMint.code).toBe(2);
    expect(noMint.err).toContain("at least one --mint is required");
    // The relayer's own account: owned by the System program.
    const wallet = relayer.publicKey.toBase58();
    const notTable = await lookupTable(["--keypair", key, "--mint", USDC, "--table", wallet]);
    expect(notTable.code).toBe(1);
    expect(notTable.err).toContain(`account ${wallet} is not an address lookup table`);
  }, 60_000);
});
