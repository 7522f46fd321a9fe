import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { login, withStoppedDb } from "../../support/compliance";
import type { HarnessFactory, RelayHarness } from "../../support/harness";
import { startRelay } from "../../support/relay-process";
import { randomPrecommitment, WSOL } from "../../support/sandbox";
import { newWallet, post, type TestWallet } from "../../support/wallet";

const SIG = /^[1-9A-HJ-NP-Za-km-z]{86,88}$/;
const ZERO = new Uint8Array(32); // a commitment the program cannot insert: the deposit fails

/**
 * POST /revert against a running relay whose `mainnet` network is the
 * harness's backend: the spec's refusals in order, a failed deposit paid back
 * exactly once (also under a race), the support queue's records.
 */
export function revertSuite(start: HarnessFactory): void {
  let h: RelayHarness;
  let alice: TestWallet;
  let aliceToken: string;
  let bob: TestWallet;
  let bobToken: string;
  let failedSig: string;
  let indexedSig: string;

  const revertBody = (w: TestWallet, txnSig: string, message = `Revert deposit: ${txnSig}`) => ({ wallet: w.address, signature: w.sign(message), message });
  const revert = (token: string, txnSig: string, body: unknown, network = "mainnet") => post(`${h.url}/revert/${network}/${token}/${txnSig}`, body);
  const balance = (wallet: string, mint = WSOL): Promise<bigint> => h.chain.balance(wallet, mint);

  beforeAll(async () => {
    h = await start({ RELAY_RATE_LIMITS: "off" });
    alice = newWallet();
    bob = newWallet();
    await h.chain.fund(alice, 10_000, WSOL);
    await h.chain.fund(bob, 10_000, WSOL);
    aliceToken = await login(h.url, alice);
    bobToken = await login(h.url, bob);
    failedSig = (await h.chain.deposit(alice, ZERO, 1000, WSOL)).signature;
    indexedSig = (await h.chain.deposit(alice, Uint8Array.from(randomPrecommitment()), 500, WSOL)).signature;
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
  });

  describe("POST /revert/{network}/{id}/{txn_sig}: refusals, in the spec's order", () => {
    it("answers 401 { error: Unauthorized } for an unknown or malformed token, before looking at the body", async () => {
      for (const token of ["7d444840-9dc0-11d1-b245-5ffdce74fad2", "garbage"]) {
        const r = await revert(token, failedSig, revertBody(alice, failedSig));
        expect(r.status).toBe(401);
        expect(r.json).toEqual({ error: "Unauthorized", message: expect.any(String) });
      }
      expect((await revert("garbage", failedSig, "{nope")).status).toBe(400); // malformed JSON never reaches the route
    });

    it("answers 400 InvalidNetwork for another network name", async () => {
      const r = await revert(aliceToken, failedSig, revertBody(alice, failedSig), "testnet");
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ error: "InvalidNetwork" });
    });

    it.each<[string, () => unknown, string]>([
      ["no body (read as {})", () => undefined, "wallet"],
      ["a body that is an array", () => [], "body"],
      ["a wallet that is not a key", () => ({ ...revertBody(alice, failedSig), wallet: "abc" }), "wallet"],
      ["a missing message", () => ({ ...revertBody(alice, failedSig), message: undefined }), "message"],
      ["a numeric signature", () => ({ ...revertBody(alice, failedSig), signature: 12 }), "signature"],
    ])("answers 400 InvalidRequest naming the field for %s", async (_n, body, field) => {
      const r = await revert(aliceToken, failedSig, body());
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ error: "InvalidRequest", message: expect.stringMatching(new RegExp(`^${field}`)) });
    });

    it.each<[string, () => unknown]>([
      ["a message naming another deposit", () => revertBody(alice, failedSig, `Revert deposit: ${indexedSig}`)],
      ["a message that is not the revert text", () => revertBody(alice, failedSig, failedSig)],
      ["a signature by another wallet", () => ({ ...revertBody(alice, failedSig), signature: bob.sign(`Revert deposit: ${failedSig}`) })],
      ["a signature that is not 64 bytes", () => ({ ...revertBody(alice, failedSig), signature: "abc" })],
      ["a body wallet that is not the token's wallet (bob's token, alice's own signature)", () => revertBody(alice, failedSig)],
    ])("answers 400 InvalidSignature for %s, and moves nothing", async (name, body) => {
      const before = await balance(alice.address);
      const token = name.startsWith("a body wallet") ? bobToken : aliceToken;
      const r = await revert(token, failedSig, body());
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ error: "InvalidSignature" });
      expect(await balance(alice.address)).toBe(before);
    });

    it("checks the signature before the deposit: a bad signature on an unknown deposit is InvalidSignature", async () => {
      const unknown = encodeBase58(new Uint8Array(64).fill(3));
      const r = await revert(aliceToken, unknown, { ...revertBody(alice, unknown), signature: bob.sign(`Revert deposit: ${unknown}`) });
      expect(r.json).toMatchObject({ error: "InvalidSignature" });
    });

    it("answers 400 DepositNotFound for a signature with no deposit, text that is no signature, and a deposit of the other network", async () => {
      const unknown = encodeBase58(new Uint8Array(64).fill(3));
      for (const sig of [unknown, "notASignature"]) {
        const r = await revert(aliceToken, sig, revertBody(alice, sig));
        expect(r.status).toBe(400);
        expect(r.json).toMatchObject({ error: "DepositNotFound" });
      }
      const r = await revert(aliceToken, failedSig, revertBody(alice, failedSig), "devnet");
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ error: "DepositNotFound" });
    });

    it("answers 403 NotDepositor when a logged-in wallet signs for someone else's deposit (also an indexed one: NotDepositor comes first)", async () => {
      for (const sig of [failedSig, indexedSig]) {
        const r = await revert(bobToken, sig, revertBody(bob, sig));
        expect(r.status).toBe(403);
        expect(r.json).toMatchObject({ error: "NotDepositor" });
      }
    });

    it("answers 400 AlreadyIndexed for an indexed deposit: it is withdrawn with /relay instead", async () => {
      const before = await balance(alice.address);
      const r = await revert(aliceToken, indexedSig, revertBody(alice, indexedSig));
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ error: "AlreadyIndexed" });
      expect(await balance(alice.address)).toBe(before);
    });
  });

  describe("POST /revert: a failed deposit", () => {
    it("is paid back to its depositor exactly once: 200 plain-text signature, then 400 NullifierSpent; the revert-nullifier is spent", async () => {
      const nullifier = Array.from(await h.chain.revertNullifier(failedSig));
      expect((await post(`${h.url}/get_nullifier/${WSOL}/32/mainnet`, { nullifierHash: nullifier })).json).toEqual({ address: null, json: null });
      const before = await balance(alice.address);
      const vaultBefore = await h.chain.vaultBalance(WSOL);

      const r = await revert(aliceToken, failedSig, revertBody(alice, failedSig));
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(r.text).toMatch(SIG);
      expect(r.text).not.toBe(failedSig);
      expect(await balance(alice.address)).toBe(before + 1000n);
      expect(await h.chain.vaultBalance(WSOL)).toBe(vaultBefore - 1000n);
      // The derivation documented in docs/decisions.md, computed here, is what the program spent.
      expect((await post(`${h.url}/get_nullifier/${WSOL}/32/mainnet`, { nullifierHash: nullifier })).json).toMatchObject({ json: { spent: true } });

      const again = await revert(aliceToken, failedSig, revertBody(alice, failedSig));
      expect(again.status).toBe(400);
      expect(again.json).toMatchObject({ error: "NullifierSpent" });
      expect(await balance(alice.address)).toBe(before + 1000n);
    });

    it("lands once when eight identical reverts race: one 200, seven NullifierSpent, the balance restored exactly once", async () => {
      const w = newWallet();
      await h.chain.fund(w, 777, WSOL);
      const token = await login(h.url, w);
      const sig = (await h.chain.deposit(w, ZERO, 777, WSOL)).signature;
      expect(await balance(w.address)).toBe(0n);
      const answers = await Promise.all(Array.from({ length: 8 }, () => revert(token, sig, revertBody(w, sig))));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 200)) {
        expect(a.status).toBe(400);
        expect(a.json).toMatchObject({ error: "NullifierSpent" });
      }
      expect(await balance(w.address)).toBe(777n);
    });

    it("records the depositor's own requests for the support queue (requested, submitted, processed or failed with the spec error), nothing a stranger sent, and marks the deposit reverted", async () => {
      const dataDir = h.relay.dataDir;
      await h.relay.stop();
      const rows = await withStoppedDb(dataDir, (db) => ({
        reverts: db.all<{
          deposit_signature: string;
          wallet: string;
          status: string;
          error: string | null;
          signature: string | null;
          mint: string | null;
          amount: string | null;
          steps: string;
        }>("SELECT deposit_signature, wallet, status, error, signature, mint, amount, steps FROM reverts ORDER BY requested_at, rowid"),
        deposit: db.get<{ status: string }>("SELECT status FROM sandbox_deposits WHERE network = 'mainnet' AND signature = ?", [failedSig]),
        nullifier: db.get<{ kind: string }>("SELECT kind FROM sandbox_nullifiers WHERE network = 'mainnet' AND signature <> ? AND kind = 'revert'", [
          failedSig,
        ]),
      }));
      await h.restart();

      if (h.backend === "sandbox") {
        // The sandbox ledger lives in the relay's own database.
        expect(rows.deposit?.status).toBe("reverted");
        expect(rows.nullifier?.kind).toBe("revert");
      }
      const ofFailed = rows.reverts.filter((r) => r.deposit_signature === failedSig && r.wallet === alice.address);
      const processed = ofFailed.filter((r) => r.status === "processed");
      expect(processed).toHaveLength(1);
      expect(processed[0]).toMatchObject({ error: null, signature: expect.stringMatching(SIG), mint: WSOL, amount: "1000" });
      expect((JSON.parse(processed[0]!.steps) as { kind: string }[]).map((s) => s.kind)).toEqual(["requested", "submitted", "processed"]);
      const errors = new Set(rows.reverts.filter((r) => r.status === "failed").map((r) => r.error));
      for (const e of ["AlreadyIndexed", "NullifierSpent"]) expect(errors).toContain(e);
      // A malformed request, a bad signature, an unknown deposit or someone else's deposit is
      // only counted (docs/security.md, "What a stranger can write").
      for (const e of ["InvalidRequest", "InvalidSignature", "DepositNotFound", "NotDepositor"]) expect(errors).not.toContain(e);
      expect(rows.reverts.find((r) => r.error === "AlreadyIndexed")).toMatchObject({ mint: WSOL, amount: "500", signature: null });
      expect(rows.reverts.every((r) => r.mint !== null && r.amount !== null)).toBe(true);
      expect(rows.reverts.some((r) => r.wallet === bob.address)).toBe(false);
    });

    it("stays reverted across the restart", async () => {
      const r = await revert(aliceToken, failedSig, revertBody(alice, failedSig));
      expect(r.json).toMatchObject({ error: "NullifierSpent" });
    });
  });

  describe("reverts per depositor per day (reverts.perDepositorPerDay, default 3)", () => {
    it("pays back 3 reverts of one depositor, refuses the 4th with 429 RateLimited and a Retry-After near a day, also after a restart, and moves nothing", async () => {
      const carol = newWallet();
      await h.chain.fund(carol, 10_000, WSOL);
      const sigs: string[] = [];
      for (let i = 0; i < 4; i++) sigs.push((await h.chain.deposit(carol, ZERO, 100 + i, WSOL)).signature);
      const token = await login(h.url, carol);
      for (const s of sigs.slice(0, 3)) {
        const r = await revert(token, s, revertBody(carol, s));
        expect(r.status, r.text).toBe(200);
      }
      const before = await balance(carol.address);
      const fourth = sigs[3]!;
      const refused = await revert(token, fourth, revertBody(carol, fourth));
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual({ error: "RateLimited", message: expect.stringContaining("reverts.perDepositorPerDay") });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(23 * 3600);

      // Counted from the store: a restart does not hand out a fresh quota.
      await h.restart();
      const again = await revert(token, fourth, revertBody(carol, fourth));
      expect(again.status).toBe(429);
      expect(await balance(carol.address)).toBe(before);

      // Another depositor has a quota of their own.
      const dave = newWallet();
      await h.chain.fund(dave, 1_000, WSOL);
      const daveSig = (await h.chain.deposit(dave, ZERO, 100, WSOL)).signature;
      expect((await revert(await login(h.url, dave), daveSig, revertBody(dave, daveSig))).status).toBe(200);
    });
  });

  describe("POST /revert rate limit", () => {
    it("refuses the 6th revert in a minute with 429 { error: RateLimited } and Retry-After", async () => {
      const limited = await startRelay();
      try {
        const w = newWallet();
        const token = await login(limited.url, w);
        const sig = encodeBase58(new Uint8Array(64).fill(5));
        for (let i = 0; i < 5; i++) expect((await post(`${limited.url}/revert/mainnet/${token}/${sig}`, revertBody(w, sig))).status).toBe(400);
        const r = await post(`${limited.url}/revert/mainnet/${token}/${sig}`, revertBody(w, sig));
        expect(r.status).toBe(429);
        expect(r.json).toEqual({ error: "RateLimited" });
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      } finally {
        await limited.stop();
        limited.cleanup();
      }
    });
  });
}
