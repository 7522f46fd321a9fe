import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRelay, type RelayProcess } from "../../tests/support/relay-process";
import { RelayClient } from "../sdk/http";
import { runCaptured, type CapturedRun } from "./test-support";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const WSOL = "So11111111111111111111111111111111111111112";
const NOPOOL = "mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So";
const cpOut = (a: bigint, rIn: bigint, rOut: bigint): bigint => (a * 997n * rOut) / (rIn * 1000n + a * 997n);

let relay: RelayProcess;
let cwd: string;

const run = (...argv: string[]): Promise<CapturedRun> => runCaptured(argv, cwd, relay.url);

beforeAll(async () => {
  relay = await startRelay({ RELAY_RATE_LIMITS: "off" });
  cwd = mkdtempSync(path.join(tmpdir(), "cli-swap-"));
  mkdirSync(cwd, { recursive: true });
  // swap-pool without --rpc: POST /sandbox/swap_pool.
  const pool = await run("swap-pool", "--mint-a", USDC, "--mint-b", WSOL, "--reserve-a", "1000000000", "--reserve-b", "5000000000");
  expect(pool).toMatchObject({ code: 0, out: expect.stringContaining(`swap pool on mainnet: 1000000000 of ${USDC} and 5000000000 of ${WSOL}`) });
});
afterAll(async () => {
  await relay?.stop();
  relay?.cleanup();
  rmSync(cwd, { recursive: true, force: true });
});

describe("relay-cli quote", () => {
  it("prints the quote, and as --json the spec's fields", async () => {
    const human = await run("quote", "--input", USDC, "--output", WSOL, "--amount", "1000000");
    const out = cpOut(1_000_000n, 1_000_000_000n, 5_000_000_000n);
    expect(human.code).toBe(0);
    expect(human.out).toContain(`1000000 of ${USDC} -> ${out} of ${WSOL}`);
    expect(human.out).toContain(`at least ${(out * 9950n) / 10_000n} (50 bps slippage)`);
    expect(human.out).toMatch(/route: sandbox-cp \S+: 1000000 -> \d+ \(fee 3000 of EPjF/);
    const json = await run("quote", "--input", USDC, "--output", WSOL, "--amount", "1000000", "--slippage-bps", "100", "--dexes", "sandbox-cp", "--json");
    expect(JSON.parse(json.out)).toMatchObject({
      network: "mainnet",
      inAmount: "1000000",
      outAmount: out.toString(),
      slippageBps: 100,
      priceImpactPct: expect.any(Number),
      routePlan: [{ percent: 100 }],
    });
  });

  it("exits 1 with the relay's InsufficientLiquidity, and 2 on bad flags", async () => {
    expect(await run("quote", "--input", USDC, "--output", NOPOOL, "--amount", "1000")).toMatchObject({
      code: 1,
      err: expect.stringContaining("InsufficientLiquidity"),
    });
    expect(await run("quote", "--input", USDC, "--output", USDC, "--amount", "1")).toMatchObject({ code: 2 });
    expect(await run("quote", "--input", USDC, "--output", WSOL, "--amount", "1.5")).toMatchObject({ code: 2 });
    expect(await run("quote", "--input", USDC, "--output", WSOL, "--amount", "1", "--slippage-bps", "20000")).toMatchObject({ code: 2 });
    expect(await run("quote", "--output", WSOL, "--amount", "1")).toMatchObject({ code: 2 });
  });
});

describe("relay-cli relay --swap-to", () => {
  it("withdraws through /relay_swap: the recipient receives the quoted output token, the fee stays in the note's mint", async () => {
    expect((await run("keygen", "--out", "id.json")).code).toBe(0);
    expect((await run("keygen", "--out", "bob.json")).code).toBe(0);
    const bob = (JSON.parse((await run("balance", "--keypair", "bob.json", "--mint", USDC, "--json")).out) as { wallet: string }).wallet;
    expect((await run("airdrop", "--keypair", "id.json", "--mint", USDC, "--amount", "3000000")).code).toBe(0);
    const dep = JSON.parse((await run("deposit", "--keypair", "id.json", "--mint", USDC, "--amount", "1000000", "--json")).out) as { file: string };

    // A pair without a pool fails at the quote, before any proving.
    const refused = await run("relay", "--note", dep.file, "--keypair", "id.json", "--recipient", bob, "--swap-to", NOPOOL, "--yes");
    expect(refused).toMatchObject({ code: 1, err: expect.stringContaining("InsufficientLiquidity") });
    expect(refused.err).not.toContain("proving");
    expect(await run("relay", "--note", dep.file, "--keypair", "id.json", "--recipient", bob, "--swap-to", USDC)).toMatchObject({ code: 2 });

    const fee = (1_000_000n * 25n) / 10_000n;
    const expected = cpOut(1_000_000n - fee, 1_000_000_000n, 5_000_000_000n);
    const least = (expected * 9950n) / 10_000n;
    const fees = await new RelayClient({ baseUrl: relay.url }).fees();
    if (!fees.ok) throw new Error(JSON.stringify(fees));
    const relayer = fees.value.relayers.mainnet;

    // prove --swap-to: bound to the quote's otherAmountThreshold; the saved request is the /relay_swap body.
    const proved = await run("prove", "--note", dep.file, "--recipient", bob, "--swap-to", WSOL, "--out", "swap-proof.json", "--json");
    expect(proved).toMatchObject({ code: 0, err: expect.stringContaining("quoting the swap") });
    const saved = JSON.parse(readFileSync(path.join(cwd, "swap-proof.json"), "utf8")) as { request: Record<string, unknown> };
    expect(saved).toMatchObject({ endpoint: "/relay_swap", relayer, fee: fee.toString(), swap: { outputMint: WSOL, minOut: least.toString() } });
    expect(saved.request).toMatchObject({ input_mint: USDC, output_mint: WSOL, minOut: least.toString(), fee: Number(fee), relayer, depositSize: 1_000_000 });
    expect(saved.request).not.toHaveProperty("mint");

    // --min-out above what the venue delivers: the relay refuses before sending anything, and the note stays unspent.
    const tooHigh = await run(
      "relay",
      "--note",
      dep.file,
      "--keypair",
      "id.json",
      "--recipient",
      bob,
      "--swap-to",
      WSOL,
      "--min-out",
      (expected + 1n).toString(),
      "--yes",
      "--json",
    );
    expect(tooHigh).toMatchObject({ code: 1, err: expect.stringContaining("SlippageExceeded") });
    expect((await run("nullifier", "--note", dep.file)).out).toMatch(/not spent/);

    const r = await run("relay", "--note", dep.file, "--keypair", "id.json", "--recipient", bob, "--swap-to", WSOL, "--yes", "--json");
    expect(r).toMatchObject({ code: 0, err: expect.stringContaining("quoting the swap") });
    expect(JSON.parse(r.out)).toMatchObject({
      withdrawn: true,
      fee: fee.toString(),
      relayer,
      left: "0",
      pieces: [{ depositSize: "1000000", swap: { outputMint: WSOL, quotedOut: expected.toString(), minOut: least.toString() } }],
    });
    expect((await run("balance", "--wallet", bob, "--mint", WSOL)).out.trim()).toBe(expected.toString());
    expect((await run("balance", "--wallet", bob, "--mint", USDC)).out.trim()).toBe("0");
    // The file now holds what is left: a change note of 0 (its own nullifier unspent, and nothing to withdraw).
    expect(JSON.parse((await run("note", "--note", dep.file, "--local", "--json")).out)).toMatchObject({ value: "0", isChange: true, piece: 1 });
  });
});
