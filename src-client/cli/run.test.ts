import { describe, expect, it } from "vitest";
import { COMMANDS } from "./run";
import { runCaptured, type CapturedRun } from "./test-support";
import { parseDuration } from "./commands/relay";

const run = (...argv: string[]): Promise<CapturedRun> => runCaptured(argv, "/nonexistent", undefined);

describe("relay-cli argument handling (no relay needed)", () => {
  it("lists every command in --help and has --help for each", async () => {
    const top = await run("--help");
    expect(top.code).toBe(0);
    for (const c of COMMANDS) {
      expect(top.out).toContain(c.name);
      const help = await run(c.name, "--help");
      expect(help).toMatchObject({ code: 0, out: expect.stringContaining(`usage: relay-cli ${c.name}`) });
    }
  });

  it("answers usage errors with exit 2 and a pointer to help", async () => {
    expect(await run()).toMatchObject({ code: 2, err: expect.stringContaining("usage:") });
    expect(await run("frob")).toMatchObject({ code: 2, err: expect.stringContaining('unknown command "frob"') });
    expect(await run("merkle", "--bogus")).toMatchObject({ code: 2, err: expect.stringContaining("relay-cli merkle --help") });
    expect(await run("merkle")).toMatchObject({ code: 2, err: expect.stringContaining("--mint") });
    expect(await run("merkle", "--mint", "xyz")).toMatchObject({ code: 2 });
    expect(await run("health", "--network", "testnet")).toMatchObject({ code: 2, err: expect.stringContaining("mainnet or devnet") });
    expect(await run("health", "--url", "ftp://x")).toMatchObject({ code: 2 });
    expect(await run("health", "--timeout", "soon")).toMatchObject({ code: 2 });
    expect(await run("deposit", "--keypair", "k.json", "extra")).toMatchObject({ code: 2, err: expect.stringContaining('"extra"') });
    expect(await run("relay", "--note", "n.json", "--keypair", "k.json")).toMatchObject({ code: 2, err: expect.stringContaining("--recipient") });
    expect(await run("prove", "--note", "n.json", "--recipient", "0OIl")).toMatchObject({ code: 2, err: expect.stringContaining("--recipient 0OIl") });
    const to = ["--note", "n.json", "--recipient", "So11111111111111111111111111111111111111112"];
    expect(await run("prove", ...to, "--min-out", "1")).toMatchObject({ code: 2, err: expect.stringContaining("--swap-to") });
    expect(await run("relay", ...to, "--keypair", "k.json", "--min-out", "5")).toMatchObject({ code: 2, err: expect.stringContaining("--swap-to") });
    expect(await run("prove", ...to, "--swap-to", "So11111111111111111111111111111111111111112", "--min-out", "0")).toMatchObject({
      code: 2,
      err: expect.stringContaining("--min-out 0"),
    });
    expect(await run("prove", ...to, "--fee", "1.5")).toMatchObject({ code: 2, err: expect.stringContaining("--fee 1.5") });
    expect(await run("prove", ...to, "--relayer", "nope")).toMatchObject({ code: 2, err: expect.stringContaining("--relayer nope") });
    // On-chain flags: --rpc must be an http(s) URL, and the flags that only mean something with it need it.
    expect(await run("balance", "--wallet", "So11111111111111111111111111111111111111112", "--rpc", "localhost:8899")).toMatchObject({
      code: 2,
      err: expect.stringContaining("--rpc localhost:8899"),
    });
    expect(
      await run(
        "airdrop",
        "--wallet",
        "So11111111111111111111111111111111111111112",
        "--mint",
        "So11111111111111111111111111111111111111112",
        "--amount",
        "1",
        "--lamports",
        "5",
      ),
    ).toMatchObject({ code: 2, err: expect.stringContaining("--lamports goes with --rpc") });
    expect(await run("airdrop", "--wallet", "So11111111111111111111111111111111111111112", "--rpc", "http://127.0.0.1:1", "--lamports", "1.5")).toMatchObject({
      code: 2,
    });
    const [wsol, usdc] = ["So11111111111111111111111111111111111111112", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"];
    expect(await run("swap-pool", "--mint-a", wsol, "--mint-b", wsol, "--reserve-a", "1", "--reserve-b", "1")).toMatchObject({
      code: 2,
      err: expect.stringContaining("differ"),
    });
    expect(await run("swap-pool", "--mint-a", wsol, "--mint-b", usdc, "--reserve-a", "1")).toMatchObject({
      code: 2,
      err: expect.stringContaining("--reserve-b"),
    });
  });

  it("reports unreadable local files with exit 4, as JSON under --json", async () => {
    expect(await run("login", "--keypair", "missing.json")).toMatchObject({ code: 4, err: expect.stringContaining("ENOENT") });
    expect(await run("relay", "--note", "missing.json", "--keypair", "k.json", "--recipient", "So11111111111111111111111111111111111111112")).toMatchObject({
      code: 4,
    });
    const r = await run("proof", "--note", "missing.json", "--json");
    expect(r.code).toBe(4);
    expect(JSON.parse(r.err)).toMatchObject({ ok: false, exitCode: 4 });
  });

  it("relay's v3 flags: bad amounts, floors and durations are usage errors before any file is read", async () => {
    const to = ["--note", "n.json", "--keypair", "k.json", "--recipient", "So11111111111111111111111111111111111111112"];
    expect(await run("relay", ...to, "--amount", "1.5")).toMatchObject({ code: 2, err: expect.stringContaining("--amount 1.5") });
    expect(await run("relay", ...to, "--amount", "0")).toMatchObject({ code: 2, err: expect.stringContaining("--amount 0") });
    expect(await run("relay", ...to, "--spread", "soon")).toMatchObject({ code: 2, err: expect.stringContaining("--spread soon") });
    expect(await run("relay", ...to, "--spread", "9999999h")).toMatchObject({ code: 2, err: expect.stringContaining("at most a week") });
    expect(await run("prove", "--note", "n.json", "--recipient", "So11111111111111111111111111111111111111112", "--amount", "1e6")).toMatchObject({
      code: 2,
      err: expect.stringContaining("--amount 1e6"),
    });
    expect(await run("note", "--note", "n.json", "--local", "--rpc", "http://127.0.0.1:1")).toMatchObject({ code: 2, err: expect.stringContaining("--local") });
    expect(await run("note", "--note", "n.json", "--program", "So11111111111111111111111111111111111111112")).toMatchObject({ code: 2 });
    // Well-formed flags get as far as the missing note file.
    expect(await run("relay", ...to, "--amount", "1000000", "--spread", "90s", "--exact", "--yes")).toMatchObject({ code: 4 });
  });

  it("--spread durations", () => {
    expect([parseDuration("500ms"), parseDuration("90s"), parseDuration("10m"), parseDuration("2h"), parseDuration("45")]).toEqual([
      500, 90_000, 600_000, 7_200_000, 45_000,
    ]);
    expect([parseDuration("1.5h"), parseDuration("-1s"), parseDuration("h"), parseDuration("")]).toEqual([null, null, null, null]);
  });

  it("accepts global flags before the command", async () => {
    expect(await run("--network", "devnet", "merkle", "--help")).toMatchObject({ code: 0 });
  });
});
