/**
 * `npm run pool:init` (scripts/solana/init-pool.ts) against the local
 * validator, the way docs/pool-program.md "Deploying to devnet" uses it on a
 * cluster: it opens a pool signed by the relay's fee payer, leaves an existing
 * pool alone, and refuses a program id with no program behind it.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeTreeAccount, poolTreeAddress } from "../../src-shared/pool-program";
import { startLocalnet, type Localnet } from "../support/localnet";
import { USDC, WSOL } from "../support/sandbox";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const run = (args: string[]) =>
  promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/solana/init-pool.ts", ...args], { cwd: ROOT, timeout: 60_000 }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );

let net: Localnet;
beforeAll(async () => {
  net = await startLocalnet({ pools: [WSOL] });
});
afterAll(async () => {
  await net?.close();
});

describe("npm run pool:init", () => {
  it("opens a pool whose authority is the fee payer, and leaves an existing pool alone", async () => {
    await net.validator.mintTo(net.relayer.publicKey.toBase58(), USDC, 1n);
    const args = ["--rpc", net.validator.rpcUrl, "--program", net.programId, "--keypair", net.relayerKeyFile];
    const first = await run([...args, "--mint", USDC, "--mint", WSOL]);
    expect(first.code, first.out).toBe(0);
    expect(first.out).toMatch(new RegExp(`${USDC}: initialized`));
    expect(first.out).toMatch(new RegExp(`${WSOL}: pool exists`));
    const info = await net.connection.getAccountInfo(new PublicKey(poolTreeAddress(net.programId, USDC)));
    const tree = decodeTreeAccount(Uint8Array.from(info!.data));
    expect(tree.ok && tree.value.nextIndex).toBe(0);
    expect(tree.ok && new PublicKey(tree.value.authority).toBase58()).toBe(net.relayer.publicKey.toBase58());

    const again = await run([...args, "--mint", USDC]);
    expect(again.code, again.out).toBe(0);
    expect(again.out).toMatch(/pool exists/);
  });

  it("refuses a program id with no program and bad arguments, saying what to do", async () => {
    const missing = await run(["--rpc", net.validator.rpcUrl, "--program", USDC, "--keypair", net.relayerKeyFile, "--mint", WSOL]);
    expect(missing.code).toBe(1);
    expect(missing.out).toMatch(/deploy programs\/pool\/pool.so first/);
    const bad = await run(["--rpc", "ftp://x", "--program", net.programId, "--keypair", net.relayerKeyFile, "--mint", WSOL]);
    expect(bad.code).toBe(2);
    expect(bad.out).toMatch(/--rpc must be/);
    const notMint = await run([
      "--rpc",
      net.validator.rpcUrl,
      "--program",
      net.programId,
      "--keypair",
      net.relayerKeyFile,
      "--mint",
      net.relayer.publicKey.toBase58(),
      // A mint without a default minimum deposit needs one (issue 25), or the run stops before asking the chain.
      "--min-deposit",
      "1",
    ]);
    expect(notMint.code).toBe(1);
    expect(notMint.out).toMatch(/is not an SPL Token mint/);
  });
});
