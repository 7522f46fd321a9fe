import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminRelayPage } from "../../src-shared/api/admin";
import { login, loginBody, startClusterEnv, type Cluster, type ClusterEnv, type Instance } from "../support/cluster";
import { waitFor } from "../support/compliance";
import { prepareWithdrawal, testRecipient, type PreparedWithdrawal } from "../support/proofs";
import { randomPrecommitment, USDC } from "../support/sandbox";
import { newWallet, type TestWallet } from "../support/wallet";
import { postFrom } from "../support/raw-http";

/**
 * What two instances on one PostgreSQL share (issue 27; docs/scale-out.md, "What the instances
 * share"): the nullifier lock, sessions, rate limits, and everything acknowledged across restarts.
 */
let env: ClusterEnv;
let c: Cluster;
let a: Instance;
let b: Instance;
let depositor: TestWallet;
let token: string;

beforeAll(async () => {
  env = await startClusterEnv();
  c = await env.cluster({ env: { RELAY_RATE_LIMITS: "off" } });
  [a, b] = c.instances as [Instance, Instance];
  depositor = newWallet();
  await a.chain.fund(depositor, 100_000_000, USDC);
  token = await login(a, depositor);
});
afterAll(async () => {
  await env?.close();
});

const nullifierHex = (w: PreparedWithdrawal): string => Buffer.from(w.body.nullifierHash).toString("hex");

describe("the nullifier lock is one row for every instance", () => {
  it("lands the same proof exactly once when sent to both instances 8 times at once: one 200, seven NullifierAlreadySpent, one payout", async () => {
    const w = await prepareWithdrawal(a.url, depositor, USDC, { recipient: testRecipient("cluster-race"), amount: 1_000_000, chain: a.chain });
    const recipientBefore = await a.chain.balance(w.body.recipient, USDC);
    const vaultBefore = await a.chain.vaultBalance(USDC);

    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).post("/relay", w.body, { "x-api-auth": token })));
    const landed = answers.filter((r) => r.status === 200);
    expect(landed, answers.map((r) => `${r.status} ${r.text}`).join("\n")).toHaveLength(1);
    expect(landed[0]!.json).toEqual({ status: 200, signature: expect.any(String), changeLeafIndex: expect.any(Number) });
    for (const r of answers.filter((x) => x.status !== 200)) {
      expect(r.status, r.text).toBe(400);
      expect(r.json).toMatchObject({ status: 400, error: "NullifierAlreadySpent" });
    }
    // One payout: the recipient got the withdrawal once, the vault paid it once.
    expect((await a.chain.balance(w.body.recipient, USDC)) - recipientBefore).toBe(1_000_000n - w.terms.fee);
    expect(vaultBefore - (await a.chain.vaultBalance(USDC))).toBe(1_000_000n);

    // One record holds the nullifier, confirmed, and both consoles show it.
    const rows = await c.query<{ status: string; signature: string | null }>(
      "SELECT status, signature FROM relays WHERE nullifier_hash = $1 AND status <> 'failed'",
      [nullifierHex(w)],
    );
    expect(rows).toEqual([{ status: "confirmed", signature: (landed[0]!.json as { signature: string }).signature }]);
    for (const x of [a, b]) {
      const page = await x.admin<AdminRelayPage>("/relays?network=mainnet&limit=50");
      expect(page.status).toBe(200);
      const mine = page.body.items.filter((r) => r.nullifierHash === nullifierHex(w) && r.status !== "failed");
      expect(mine.map((r) => r.status)).toEqual(["confirmed"]);
    }
  });
});

describe("sessions are shared", () => {
  it("accepts a token /login issued on A at B (is_logged and an authenticated relay call), and refuses A's login message replayed at B", async () => {
    const w = newWallet();
    const body = loginBody(w);
    const r = await a.post("/login", body);
    expect(r.status).toBe(200);
    const { id } = r.json as { id: string };
    const logged = await b.get(`/is_logged/${id}`);
    expect(logged.status).toBe(200);
    expect(logged.json).toBe(true);
    // A relay B authenticates with A's token goes past authentication to the proof (400), where an unknown token stops (401).
    const fees = (await b.get("/fees")).json as { relayers: Record<string, string> };
    const unproved = {
      nullifierHash: Array(32).fill(1),
      proof: Array(256).fill(0),
      root: Array(32).fill(2),
      recipient: testRecipient("cluster-sessions"),
      depth: 32,
      depositSize: 1_000_000,
      mint: USDC,
      network: "mainnet",
      changeCommitment: Array(32).fill(3),
      fee: 2_500,
      relayer: fees.relayers.mainnet,
    };
    const relay = await b.post("/relay", unproved, { "x-api-auth": id });
    expect(relay.status, relay.text).toBe(400);
    const unknown = await b.post("/relay", unproved, { "x-api-auth": "7d444840-9dc0-11d1-b245-5ffdce74fad2" });
    expect(unknown.status, unknown.text).toBe(401);

    const replay = await b.post("/login", body);
    expect(replay.status).toBe(400);
    expect(replay.json).toMatchObject({ error: "Message too old" });
  });
});

describe("rate limits are shared", () => {
  it("refuses the (limit+1)th get_merkle of a client alternating A and B with 429, as one instance would; another client is unaffected", async () => {
    const LIMIT = 6;
    const limited = await env.cluster({ config: { rateLimits: { perEndpoint: { get_merkle: LIMIT }, windowSec: 600 } } });
    try {
      const [la, lb] = limited.instances as [Instance, Instance];
      const path = `/get_merkle/${USDC}/32/mainnet`;
      for (let i = 1; i <= LIMIT; i++) {
        const r = await (i % 2 === 1 ? la : lb).post(path);
        expect(r.status, `request ${i} to ${i % 2 === 1 ? "A" : "B"}`).toBe(200);
        expect(r.headers.get("ratelimit-remaining")).toBe(String(LIMIT - i));
      }
      for (const x of [la, lb]) {
        const refused = await x.post(path);
        expect(refused.status, `request ${LIMIT + 1} to ${x.name}`).toBe(429);
        expect(refused.json).toEqual({ error: "RateLimited" });
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      }
      expect(await postFrom("127.0.0.2", `${lb.url}${path}`)).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});

describe("restarting both instances", () => {
  it("loses nothing acknowledged: relay records, tokens and the tree are all there after both restart", async () => {
    // Something of each: a deposit (the tree), a landed relay (its record), a token.
    await a.chain.deposit(depositor, Uint8Array.from(randomPrecommitment()), 5_000, USDC);
    const w = await prepareWithdrawal(b.url, depositor, USDC, { recipient: testRecipient("cluster-restart"), amount: 700_000, chain: b.chain });
    const relayed = await b.post("/relay", w.body, { "x-api-auth": token });
    expect(relayed.status, relayed.text).toBe(200);
    const session = await login(b, newWallet());
    await b.chain.deposit(depositor, Uint8Array.from(randomPrecommitment()), 5_000, USDC);

    const chainTree = await env.chainTree(USDC);
    // A reader instance re-applies what the follower wrote a moment later.
    await waitFor("A's tree at the chain's", async () => JSON.stringify(await a.merkle(USDC)) === JSON.stringify(chainTree), 10_000);
    const before = {
      relays: (await a.admin<AdminRelayPage>("/relays?network=mainnet&limit=100")).body.items.map((r) => [r.id, r.status, r.signature]),
    };
    expect(before.relays.length).toBeGreaterThanOrEqual(2);

    await Promise.all([a.restart(), b.restart()]);

    for (const x of [a, b]) {
      expect(
        (await x.admin<AdminRelayPage>("/relays?network=mainnet&limit=100")).body.items.map((r) => [r.id, r.status, r.signature]),
        x.name,
      ).toEqual(before.relays);
      expect(await x.merkle(USDC), x.name).toEqual(chainTree);
      expect((await x.get(`/is_logged/${session}`)).json, x.name).toBe(true);
      expect((await x.get(`/is_logged/${token}`)).json, x.name).toBe(true);
    }
    // The relayed nullifier stays locked after the restart.
    const again = await a.post("/relay", w.body, { "x-api-auth": token });
    expect(again.json).toMatchObject({ status: 400, error: "NullifierAlreadySpent" });
  });
});
