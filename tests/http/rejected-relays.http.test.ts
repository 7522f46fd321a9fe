import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminRejectedRelays, AdminRelayDetail, AdminRelayPage } from "../../src-shared/api/admin";
import { login, withStoppedDb } from "../support/compliance";
import { prepareWithdrawal, testRecipient, type PreparedWithdrawal, type RelayBody } from "../support/proofs";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { randomPrecommitment, USDC } from "../support/sandbox";
import { sandboxTestChain } from "../support/test-chain";
import { get, newWallet, post } from "../support/wallet";

const OPERATOR = "rejected-relays-operator-token-0123";
const asOperator = { authorization: `Bearer ${OPERATOR}` };

/**
 * Junk sent to /relay writes nothing: a relay gets a record (and a screening in the
 * compliance log) only once its proof verified; refusals before that are counted in
 * memory and listed for the console (docs/security.md, "Rejected relays").
 */
describe("relays refused before their proof verified leave no stored row", () => {
  let relay: RelayProcess;
  let token: string;
  let valid: PreparedWithdrawal;

  beforeAll(async () => {
    relay = await startRelay({ RELAY_OPERATOR_TOKEN: OPERATOR, RELAY_RATE_LIMITS: "off" });
    const chain = sandboxTestChain(relay.url, "mainnet");
    const depositor = newWallet();
    await chain.fund(depositor, 100_000_000, USDC);
    token = await login(relay.url, depositor);
    await chain.deposit(depositor, Uint8Array.from(randomPrecommitment()), 1000, USDC);
    valid = await prepareWithdrawal(relay.url, depositor, USDC, { recipient: testRecipient("rejected-relays"), amount: 1_000_000, chain });
  }, 120_000);
  afterAll(async () => {
    if (relay?.child.exitCode === null) await relay.stop();
    relay?.cleanup();
  });

  const relayAs = (body: unknown) => post(`${relay.url}/relay`, body, { "x-api-auth": token });
  const mutate = (f: (b: RelayBody) => void): RelayBody => {
    const b = structuredClone(valid.body);
    f(b);
    return b;
  };

  it("answers junk with the spec's errors, keeps no relay record, counts each refusal per error and lists the newest for the console", async () => {
    // A proof for another recipient (the real root and an unspent nullifier: it costs a pairing), an unknown root, a fee below the published one.
    const otherRecipient = mutate((b) => (b.recipient = testRecipient("someone-else")));
    const unknownRoot = mutate((b) => (b.root = Array(32).fill(7)));
    const lowFee = mutate((b) => (b.fee = 1));
    for (let i = 0; i < 20; i++) expect((await relayAs(otherRecipient)).json).toMatchObject({ status: 400, error: "InvalidProof" });
    for (let i = 0; i < 5; i++) expect((await relayAs(unknownRoot)).json).toMatchObject({ status: 400, error: "InvalidRoot" });
    expect((await relayAs(lowFee)).json).toMatchObject({ status: 400, error: "FeeTooLow" });

    const page = (await get(`${relay.url}/admin/relays`, asOperator)).json as AdminRelayPage;
    expect(page.items).toEqual([]);
    expect(page.counts).toEqual({});

    const rejected = (await get(`${relay.url}/admin/relays/rejected`, asOperator)).json as AdminRejectedRelays;
    expect(rejected.total).toBe(26);
    expect(rejected.counts).toEqual({ FeeTooLow: 1, InvalidProof: 20, InvalidRoot: 5 });
    expect(rejected.items).toHaveLength(26);
    expect(rejected.items[0]).toMatchObject({ kind: "relay", network: "mainnet", mint: USDC, status: 400, error: "FeeTooLow" });
    expect(rejected.items.at(-1)).toMatchObject({
      error: "InvalidProof",
      detail: expect.stringMatching(/^proof does not verify under protocol v3 for these public inputs/),
    });
    expect(JSON.stringify(rejected)).not.toMatch(/127\.0\.0\.1|::ffff/);
    expect((await get(`${relay.url}/admin/relays/rejected`)).status).toBe(401);
  });

  it("records the valid relay (received, verified, submitted, confirmed) and it lands; the store holds that one relay and its one screening", async () => {
    const r = await relayAs(valid.body);
    expect(r.status, r.text).toBe(200);
    const page = (await get(`${relay.url}/admin/relays`, asOperator)).json as AdminRelayPage;
    expect(page.items).toHaveLength(1);
    const detail = (await get(`${relay.url}/admin/relays/${page.items[0]!.id}`, asOperator)).json as AdminRelayDetail;
    expect(detail.steps.map((s) => s.kind)).toEqual(["received", "verified", "submitted", "confirmed"]);
    expect(detail).toMatchObject({ status: "confirmed", recipient: valid.body.recipient, fee: String(valid.body.fee) });

    const dataDir = relay.dataDir;
    expect(await relay.stop()).toBe(0);
    const rows = await withStoppedDb(dataDir, (db) => ({
      relays: db.get<{ n: number }>("SELECT count(*) AS n FROM relays")!.n,
      screenings: db.get<{ n: number }>("SELECT count(*) AS n FROM compliance_decisions WHERE purpose = 'relay_recipient'")!.n,
      // Protocol v3: the part withdrawn, the change leaf the proof inserts, and where it went.
      change: db.get<{ deposit_size: string; change_commitment: Uint8Array; change_leaf_index: number }>(
        "SELECT deposit_size, change_commitment, change_leaf_index FROM relays",
      ),
    }));
    expect({ ...rows, change: { ...rows.change, change_commitment: Array.from(rows.change!.change_commitment) } }).toEqual({
      relays: 1,
      screenings: 1,
      change: {
        deposit_size: String(valid.body.depositSize),
        change_commitment: valid.body.changeCommitment,
        change_leaf_index: (r.json as { changeLeafIndex: number }).changeLeafIndex,
      },
    });
  });
});
