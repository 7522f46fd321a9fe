/**
 * What a stranger can write (docs/security.md): against the relay process, reverts of
 * deposits that are not the token wallet's and compliance signatures for throwaway wallets
 * leave no durable row, only counters; the depositor's own revert still reaches the
 * support queue, and the operator's audit log still stores every signature when turned on.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { configFile, login, withStoppedDb } from "../support/compliance";
import { sandboxHarness, type RelayHarness } from "../support/harness";
import { startRelay } from "../support/relay-process";
import { randomPrecommitment, WSOL } from "../support/sandbox";
import { get, newWallet, post, type TestWallet } from "../support/wallet";

const OPERATOR = "junk-rows-test-operator-token-0123456789";
const admin = { authorization: `Bearer ${OPERATOR}` };
const ZERO = new Uint8Array(32); // a commitment the program cannot insert: the deposit fails, revertable

let h: RelayHarness;
let alice: TestWallet;

const revertBody = (w: TestWallet, txnSig: string) => ({
  wallet: w.address,
  signature: w.sign(`Revert deposit: ${txnSig}`),
  message: `Revert deposit: ${txnSig}`,
});
const revert = (token: string, txnSig: string, body: unknown) => post(`${h.url}/revert/mainnet/${token}/${txnSig}`, body);
const supportQueue = async (): Promise<{ depositSignature: string; wallet: string; error: string | null }[]> =>
  ((await get(`${h.url}/admin/reverts?limit=100`, admin)).json as { items: { depositSignature: string; wallet: string; error: string | null }[] }).items;
/** The value of one metric sample (name and its exact label set), 0 when absent; read with the operator token. */
const metric = async (series: string): Promise<number> => {
  const text = await (await fetch(`${h.url}/metrics`, { headers: admin })).text();
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
};
const refused = (error: string) => `relay_reverts_total{network="mainnet",outcome="refused",error="${error}"}`;

beforeAll(async () => {
  h = await sandboxHarness({ RELAY_OPERATOR_TOKEN: OPERATOR, RELAY_RATE_LIMITS: "off" });
  alice = newWallet();
  await h.chain.fund(alice, 10_000, WSOL);
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

describe("a revert that is not the token wallet's own deposit leaves no record", () => {
  it("answers the spec's errors as before, adds nothing to the support queue (also after a restart), and is counted per error", async () => {
    const failedSig = (await h.chain.deposit(alice, ZERO, 1000, WSOL)).signature;
    const stranger = newWallet();
    const token = await login(h.url, stranger);
    const madeUp = encodeBase58(Uint8Array.from({ length: 64 }, (_, i) => i + 1));

    const unknown = await revert(token, madeUp, revertBody(stranger, madeUp));
    expect(unknown.status).toBe(400);
    expect(unknown.json).toEqual({ error: "DepositNotFound", message: "no deposit with this signature on mainnet" });
    const notSig = await revert(token, "notASignature", revertBody(stranger, "notASignature"));
    expect(notSig.json).toMatchObject({ error: "DepositNotFound" });
    const notTheirs = await revert(token, failedSig, revertBody(stranger, failedSig));
    expect(notTheirs.status).toBe(403);
    expect(notTheirs.json).toEqual({ error: "NotDepositor", message: "the wallet did not make this deposit" });
    const badSig = await revert(token, madeUp, { ...revertBody(stranger, madeUp), signature: alice.sign(`Revert deposit: ${madeUp}`) });
    expect(badSig.json).toMatchObject({ error: "InvalidSignature" });
    const malformed = await revert(token, madeUp, { wallet: "abc" });
    expect(malformed.json).toMatchObject({ error: "InvalidRequest" });

    expect(await supportQueue()).toEqual([]);
    expect(await metric(refused("DepositNotFound"))).toBe(2);
    expect(await metric(refused("NotDepositor"))).toBe(1);
    expect(await metric(refused("InvalidSignature"))).toBe(1);
    expect(await metric(refused("InvalidRequest"))).toBe(1);

    await h.restart();
    expect(await supportQueue()).toEqual([]);
    const rows = await (async () => {
      const dataDir = h.relay.dataDir;
      await h.relay.stop();
      const n = await withStoppedDb(dataDir, (db) => db.get<{ n: number }>("SELECT COUNT(*) AS n FROM reverts")!.n);
      await h.restart();
      return n;
    })();
    expect(rows).toBe(0);
  });

  it("still records the depositor's own revert, paid or refused, for the support queue", async () => {
    const token = await login(h.url, alice);
    const failedSig = (await h.chain.deposit(alice, ZERO, 700, WSOL)).signature;
    const indexedSig = (await h.chain.deposit(alice, Uint8Array.from(randomPrecommitment()), 300, WSOL)).signature;
    expect((await revert(token, failedSig, revertBody(alice, failedSig))).status).toBe(200);
    expect((await revert(token, indexedSig, revertBody(alice, indexedSig))).json).toMatchObject({ error: "AlreadyIndexed" });
    const queue = await supportQueue();
    expect(queue.map((r) => [r.depositSignature, r.wallet, r.error]).sort()).toEqual(
      [
        [failedSig, alice.address, null],
        [indexedSig, alice.address, "AlreadyIndexed"],
      ].sort(),
    );
  });

  it("shows on the Money page what reverts paid back, apart from what withdrawals moved (a reverted deposit never reached the tree)", async () => {
    const money = (await get(`${h.url}/admin/money?range=24h`, admin)).json as { reverted: unknown[] };
    expect(money.reverted).toEqual([{ network: "mainnet", mint: WSOL, reverts: 1, amount: "700" }]);
  });
});

describe("compliance signatures are counted, not stored, unless the operator turns the audit log on", () => {
  const ofacRows = (dataDir: string) =>
    withStoppedDb(dataDir, (db) =>
      db.all<{ address: string; outcome: string }>("SELECT address, outcome FROM compliance_decisions WHERE purpose = 'ofac_signature'"),
    );

  it("issues signatures to ten throwaway wallets without a row, and the console shows their count", async () => {
    for (let i = 0; i < 10; i++) {
      const r = await post(`${h.url}/get_ofac_signature/mainnet/${await login(h.url, newWallet())}`);
      expect(r.status).toBe(200);
    }
    const page = (await get(`${h.url}/admin/compliance`, admin)).json as {
      decisions: { purpose: string }[];
      signatures: { auditLog: boolean; since: number; issued: number; refused: number; error: number };
    };
    expect(page.decisions.filter((d) => d.purpose === "ofac_signature")).toEqual([]);
    expect(page.signatures).toMatchObject({ auditLog: false, issued: 10, refused: 0, error: 0 });
    expect(await metric(`relay_compliance_signatures_total{network="mainnet",outcome="issued"}`)).toBe(10);

    const dataDir = h.relay.dataDir;
    await h.relay.stop();
    expect(await ofacRows(dataDir)).toEqual([]);
    await h.restart();
  });

  it("stores every signature with compliance.auditLog on", async () => {
    const audited = await startRelay({ RELAY_CONFIG: configFile({ compliance: { auditLog: true } }), RELAY_RATE_LIMITS: "off" });
    const w = newWallet();
    try {
      expect((await post(`${audited.url}/get_ofac_signature/mainnet/${await login(audited.url, w)}`)).status).toBe(200);
    } finally {
      await audited.stop();
    }
    expect(await ofacRows(audited.dataDir)).toEqual([{ address: w.address, outcome: "issued" }]);
    audited.cleanup();
  });
});
