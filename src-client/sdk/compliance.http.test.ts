import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { sandboxDepositMessage } from "../../src-shared/messages";
import { startRelay, type RelayProcess } from "../../tests/support/relay-process";
import { runCaptured, type CapturedRun } from "../cli/test-support";
import { getComplianceSignature, verifyComplianceSignature } from "./compliance";
import { RelayClient } from "./http";
import { Keypair, readKeypairFile } from "./keypair";
import { revertDeposit } from "./revert";

const WSOL = "So11111111111111111111111111111111111111112";
const SIG = /^[1-9A-HJ-NP-Za-km-z]{86,88}$/;

let relay: RelayProcess;
let cwd: string;

beforeAll(async () => {
  relay = await startRelay({ RELAY_RATE_LIMITS: "off" });
  cwd = mkdtempSync(path.join(tmpdir(), "sdk-compliance-"));
});
afterAll(async () => {
  await relay?.stop();
  relay?.cleanup();
  rmSync(cwd, { recursive: true, force: true });
});

const run = (...argv: string[]): Promise<CapturedRun> => runCaptured(argv, cwd, relay.url);
const client = (): RelayClient => new RelayClient({ baseUrl: relay.url, timeoutMs: 30_000 });

/** A deposit the program cannot insert (zero precommitment): failed, revertable. */
async function failedDeposit(kp: Keypair, amount: number, precommitment = new Uint8Array(32)): Promise<string> {
  const c = client();
  const r = await c.sandboxDeposit({
    network: "mainnet",
    mint: WSOL,
    amount,
    precommitment,
    wallet: kp.address,
    signature: encodeBase58(kp.sign(sandboxDepositMessage("mainnet", WSOL, amount, precommitment))),
  });
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r.value.signature;
}

describe("SDK: getComplianceSignature and revertDeposit", () => {
  it("logs in, gets a compliance signature and verifies it against the relay's key; re-logs in once on a 401", async () => {
    const kp = Keypair.generate();
    const c = client();
    const r = await getComplianceSignature(c, kp, "devnet");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(c.authToken).toMatch(/^[0-9a-f-]{36}$/);
    const key = await c.compliancePublicKey();
    expect(key.ok && key.value).toMatchObject({ algorithm: "ed25519", message: "OFAC:<network>:<wallet>:<expiresAtUnix>", validitySec: 120 });
    expect(r.value.publicKey).toBe(key.ok ? key.value.publicKey : "");
    expect(r.value.remainingSec).toBeGreaterThan(115);
    expect(verifyComplianceSignature(r.value.raw, { publicKey: r.value.publicKey!, network: "devnet", wallet: kp.address }).ok).toBe(true);

    c.authToken = "7d444840-9dc0-11d1-b245-5ffdce74fad2"; // unknown to the relay: 401, one fresh login, then the same call
    const again = await getComplianceSignature(c, kp, "mainnet");
    expect(again.ok).toBe(true);
    expect(c.authToken).not.toBe("7d444840-9dc0-11d1-b245-5ffdce74fad2");

    const pinnedWrong = await getComplianceSignature(c, kp, "mainnet", { publicKey: encodeBase58(new Uint8Array(32).fill(7)) });
    expect(pinnedWrong).toMatchObject({ ok: false, error: { stage: "verify", failure: { reason: "invalid-signature" } } });
  });

  it("reverts a failed deposit once, and reports the relay's refusals by their spec names", async () => {
    const kp = Keypair.generate();
    const c = client();
    await c.sandboxAirdrop({ network: "mainnet", wallet: kp.address, mint: WSOL, amount: 900 });
    const sig = await failedDeposit(kp, 900);
    const r = await revertDeposit(c, kp, sig, "mainnet");
    expect(r).toMatchObject({ ok: true, value: { signature: expect.stringMatching(SIG) } });
    const bal = await c.sandboxBalance("mainnet", kp.address, WSOL);
    expect(bal.ok && bal.value.amount).toBe(900n);
    expect(await revertDeposit(c, kp, sig, "mainnet")).toMatchObject({
      ok: false,
      error: { stage: "revert", failure: { status: 400, error: "NullifierSpent" } },
    });
    expect(await revertDeposit(client(), Keypair.generate(), sig, "mainnet")).toMatchObject({
      ok: false,
      error: { stage: "revert", failure: { status: 403, error: "NotDepositor" } },
    });
    expect(await revertDeposit(c, kp, "nope", "mainnet")).toMatchObject({ ok: false, error: { stage: "input" } });
  });
});

describe("CLI: ofac-signature and revert", () => {
  it("walks a wallet through both commands, with exit codes for every refusal", async () => {
    expect((await run("keygen", "--out", "id.json")).code).toBe(0);
    expect((await run("keygen", "--out", "other.json")).code).toBe(0);
    const kp = readKeypairFile(path.join(cwd, "id.json"));
    if (!kp.ok) throw new Error(kp.error);

    const sig = await run("ofac-signature", "--keypair", "id.json", "--json");
    expect(sig.code).toBe(0);
    const answer = JSON.parse(sig.out) as { wallet: string; network: string; signature: string; expiresAt: number; publicKey: string; verified: boolean };
    expect(answer).toMatchObject({
      wallet: kp.value.address,
      network: "mainnet",
      verified: true,
      signature: expect.stringMatching(/^\d+\.[1-9A-HJ-NP-Za-km-z]+$/),
    });
    expect(verifyComplianceSignature(answer.signature, { publicKey: answer.publicKey, network: "mainnet", wallet: kp.value.address }).ok).toBe(true);
    expect(answer.expiresAt - Math.floor(Date.now() / 1000)).toBeGreaterThan(110);
    const human = await run("ofac-signature", "--keypair", "id.json", "--network", "devnet");
    expect(human).toMatchObject({
      code: 0,
      out: expect.stringMatching(/on devnet:\n\d+\.\S+\nexpires at .* \(in 1[12]\d s\)\nverified against compliance key /),
    });
    expect(await run("ofac-signature", "--keypair", "id.json", "--public-key", encodeBase58(new Uint8Array(32).fill(7)))).toMatchObject({
      code: 3,
      err: expect.stringMatching(/does not check out/),
    });
    expect(await run("ofac-signature", "--keypair", "id.json", "--public-key", "xyz")).toMatchObject({ code: 2 });
    expect(await run("ofac-signature")).toMatchObject({ code: 2, err: expect.stringContaining("--keypair") });

    expect((await run("airdrop", "--keypair", "id.json", "--mint", WSOL, "--amount", "400")).code).toBe(0);
    const deposit = await failedDeposit(kp.value, 400);
    expect((await run("balance", "--keypair", "id.json", "--mint", WSOL)).out.trim()).toBe("0");
    expect(await run("revert", "--keypair", "other.json", "--deposit", deposit, "--json")).toMatchObject({ code: 1 });
    const reverted = await run("revert", "--keypair", "id.json", "--deposit", deposit, "--json");
    expect(reverted.code).toBe(0);
    expect(JSON.parse(reverted.out)).toMatchObject({
      reverted: true,
      deposit,
      network: "mainnet",
      wallet: kp.value.address,
      signature: expect.stringMatching(SIG),
    });
    expect((await run("balance", "--keypair", "id.json", "--mint", WSOL)).out.trim()).toBe("400");

    const again = await run("revert", "--keypair", "id.json", "--deposit", deposit, "--json");
    expect(again.code).toBe(1);
    expect(JSON.parse(again.err.trim().split("\n").pop()!)).toMatchObject({ ok: false, exitCode: 1, status: 400, error: "NullifierSpent" });
    expect(await run("revert", "--keypair", "id.json", "--deposit", deposit, "--network", "devnet")).toMatchObject({
      code: 1,
      err: expect.stringContaining("DepositNotFound"),
    });
    expect(await run("revert", "--keypair", "id.json", "--deposit", "abc")).toMatchObject({
      code: 2,
      err: expect.stringContaining("not a transaction signature"),
    });
    expect(await run("revert", "--keypair", "id.json")).toMatchObject({ code: 2, err: expect.stringContaining("--deposit") });
    expect((await run("revert", "--help")).out).toMatch(/usage: relay-cli revert --keypair <file> --deposit <txsig>/);
    expect((await run("--help")).out).toMatch(/ofac-signature/);
  });
});
