import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  AdminCompliance,
  AdminHealth,
  AdminMoney,
  AdminRevert,
  AdminNullifierSearch,
  AdminPoolSummary,
  AdminRelayDetail,
  AdminRelayPage,
  AdminSettings,
  AdminTreeNode,
} from "../../src-shared/api/admin";
import { loadConfig } from "../../src-server/config/load";
import { startServer, type RunningServer } from "../../src-server/index";
import { changeNoteAt, prepareWithdrawal, testRecipient, type PreparedWithdrawal } from "../support/proofs";
import { revertMessage } from "../../src-shared/messages";
import { airdrop, deposit, USDC, WSOL } from "../support/sandbox";
import { get, newWallet, post, type TestWallet } from "../support/wallet";
import { waitFor } from "../support/compliance";

/** /health answers from a report up to 5 s old (docs/security.md, "Health"): the next report's status. */
const healthBecomes = (url: string, status: number) =>
  waitFor(
    `/health ${status}`,
    async () => {
      const r = await get(`${url}/health`);
      return r.status === status ? r : null;
    },
    15_000,
  );

const TOKEN = "admin-test-operator-token-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };

let server: RunningServer;
let dir: string;
const lines: string[] = [];
let depositor: TestWallet;
let relayToken: string;
let withdrawal: PreparedWithdrawal;
let relaySignature: string;

/**
 * Proving holds this process for seconds, past the server's keep-alive timeout: a short wait lets the
 * server close the idle sockets and fetch see it, so the next request does not go out on a dead socket.
 */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

const admin = async <T>(p: string): Promise<{ status: number; body: T }> => {
  const res = await fetch(`${server.url}/admin${p}`, { headers: auth });
  return { status: res.status, body: (await res.json()) as T };
};
const adminPost = (p: string, body: unknown) => post(`${server.url}/admin${p}`, body, auth);
const login = async (w: TestWallet): Promise<string> => {
  const t = Math.floor(Date.now() / 1000);
  return ((await post(`${server.url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t })).json as { id: string }).id;
};

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "relay-admin-"));
  const config = loadConfig({ RELAY_PORT: "0", RELAY_DATA_DIR: dir, RELAY_OPERATOR_TOKEN: TOKEN, RELAY_RATE_LIMITS: "off" });
  server = await startServer(config, { log: (l) => lines.push(l) });
  depositor = newWallet();
  await airdrop(server.url, depositor, 50_000_000, USDC);
  relayToken = await login(depositor);
  withdrawal = await prepareWithdrawal(server.url, depositor, USDC, { recipient: testRecipient("admin-http"), amount: 1_000_000 });
  await settle();
  const r = await post(`${server.url}/relay`, withdrawal.body, { "x-api-auth": relayToken });
  expect(r.status, r.text).toBe(200);
  relaySignature = (r.json as { signature: string }).signature;
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("/admin is behind the operator token", () => {
  it.each([
    ["no header", {}],
    ["a wrong token", { authorization: "Bearer not-the-operator-token-at-all" }],
    ["another scheme", { authorization: `Basic ${TOKEN}` }],
    ["the token without a scheme", { authorization: TOKEN }],
  ])("answers 401 with %s, on known and unknown paths", async (_name, headers) => {
    for (const p of ["/session", "/no-such-thing"]) {
      const res = await fetch(`${server.url}/admin${p}`, { headers });
      expect(res.status, p).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await res.json()).toMatchObject({ error: "Unauthorized" });
    }
    expect((await post(`${server.url}/admin/pauses`, { network: "mainnet", paused: true, reason: "nope" }, headers)).status).toBe(401);
  });

  it("accepts the token, and never writes it to the log", async () => {
    expect(await admin("/session")).toEqual({ status: 200, body: { ok: true, tokenSource: "configured" } });
    expect(lines.join("\n")).not.toContain(TOKEN);
  });
});

describe("pools, tree and nullifiers", () => {
  it("summarises every pool: root, next index, tree account, roots, deposits over time", async () => {
    const { status, body } = await admin<{ pools: AdminPoolSummary[] }>("/pools?range=24h");
    expect(status).toBe(200);
    expect(body.pools.map((p) => `${p.network}/${p.mint}`).sort()).toEqual([`devnet/${USDC}`, `devnet/${WSOL}`, `mainnet/${USDC}`, `mainnet/${WSOL}`]);
    const usdc = body.pools.find((p) => p.network === "mainnet" && p.mint === USDC)!;
    const merkle = (await post(`${server.url}/get_merkle/${USDC}/32/mainnet`)).json as { address: string; json: { root: number[]; nextIndex: number } };
    expect(usdc.address).toBe(merkle.address);
    expect(usdc.root).toBe(Buffer.from(merkle.json.root).toString("hex"));
    expect(usdc.nextIndex).toBe(merkle.json.nextIndex);
    expect(usdc.chainNextIndex).toBe(usdc.nextIndex);
    expect(usdc.recentRoots[0]).toMatchObject({ root: usdc.root, nextIndex: usdc.nextIndex });
    expect(usdc.deposits.buckets).toHaveLength(24);
    // Protocol v3: the relayed withdrawal inserted a change leaf; deposits over time count the deposit alone.
    expect(usdc.leaves).toMatchObject({ deposits: 1, changes: 1, depositsOfUnknownAmount: 0, largestDeposit: "1000000" });
    expect(usdc.nextIndex).toBe(2);
    expect(usdc.deposits.total).toBe(1);
    expect(usdc.sandbox).toBe(true);
    expect((await admin("/pools/mainnet/11111111111111111111111111111111")).status).toBe(404);
    expect((await admin("/pools?range=1y")).status).toBe(400);
  });

  it("walks the tree from the root to a leaf and its deposit", async () => {
    const leafIndex = withdrawal.deposit.leafIndex;
    let index = 1;
    const root = (await admin<AdminTreeNode>(`/pools/mainnet/${USDC}/nodes/1`)).body;
    expect(root).toMatchObject({ height: 32, parent: null, firstLeaf: 0, empty: false });
    expect(root.children.map((c) => c.index)).toEqual([2, 3]);
    let node = root;
    for (let h = 31; h >= 0; h--) {
      index = 2 * index + ((leafIndex >>> h) & 1);
      node = (await admin<AdminTreeNode>(`/pools/mainnet/${USDC}/nodes/${index}`)).body;
    }
    expect(node).toMatchObject({ height: 0, index: 2 ** 32 + leafIndex, filled: 1, children: [] });
    expect(node.leaf).toMatchObject({ leafIndex, signature: withdrawal.deposit.signature, kind: "deposit", amount: "1000000" });
    const viaSpec = (await post(`${server.url}/get_node/${USDC}/32/${index}/mainnet`)).json as { json: { value: number[] } };
    expect(node.value).toBe(Buffer.from(viaSpec.json.value).toString("hex"));
    const emptyRight = (await admin<AdminTreeNode>(`/pools/mainnet/${USDC}/nodes/3`)).body;
    expect(emptyRight).toMatchObject({ empty: true, filled: 0 });
    expect((await admin(`/pools/mainnet/${USDC}/nodes/0`)).status).toBe(400);
    expect((await admin(`/pools/mainnet/${USDC}/nodes/${2 ** 33}`)).status).toBe(400);
  });

  it("finds a spent nullifier by hex or byte array, with the relay that spent it", async () => {
    const hex = Buffer.from(withdrawal.body.nullifierHash).toString("hex");
    for (const q of [hex, `0x${hex.toUpperCase()}`, JSON.stringify(withdrawal.body.nullifierHash)]) {
      const { status, body } = await admin<AdminNullifierSearch>(`/nullifiers/search?q=${encodeURIComponent(q)}`);
      expect(status).toBe(200);
      expect(body.nullifierHash).toBe(hex);
      expect(body.poolsChecked).toBe(4);
      expect(body.results).toHaveLength(1);
      expect(body.results[0]).toMatchObject({ network: "mainnet", mint: USDC, spent: true });
      expect(body.results[0]!.relays[0]).toMatchObject({ status: "confirmed", signature: relaySignature });
    }
    const unspent = await admin<AdminNullifierSearch>(`/nullifiers/search?q=${"00".repeat(31)}01`);
    expect(unspent.body.results).toEqual([]);
    expect((await admin("/nullifiers/search?q=xyz")).status).toBe(400);
    const spent = await admin<{ items: { nullifierHash: string; signature: string }[] }>("/nullifiers/spent");
    expect(spent.body.items).toContainEqual(expect.objectContaining({ nullifierHash: hex, signature: relaySignature }));
  });
});

describe("relays, money, health and settings", () => {
  it("lists relay records with filters, and each with its pipeline steps and timings", async () => {
    const page = (await admin<AdminRelayPage>(`/relays?network=mainnet&mint=${USDC}&status=confirmed`)).body;
    expect(page.items).toHaveLength(1);
    expect(page.counts).toEqual({ confirmed: 1 });
    expect(page.retentionDays).toBe(30);
    const item = page.items[0]!;
    expect(item).toMatchObject({ network: "mainnet", mint: USDC, status: "confirmed", signature: relaySignature, depositSize: "1000000", fee: "2500" });
    // A whole withdrawal inserts a change leaf too (of value 0), right after the deposit's.
    expect(item).toMatchObject({ changeCommitment: Buffer.from(withdrawal.body.changeCommitment).toString("hex"), changeLeafIndex: 1 });
    expect((await admin<AdminRelayPage>("/relays?network=devnet")).body.items).toEqual([]);
    expect((await admin<AdminRelayPage>(`/relays?from=${item.receivedAt + 1}`)).body.items).toEqual([]);
    expect((await admin("/relays?status=lost")).status).toBe(400);

    const detail = (await admin<AdminRelayDetail>(`/relays/${item.id}`)).body;
    expect(detail.steps.map((s) => s.kind)).toEqual(["received", "verified", "submitted", "confirmed"]);
    expect(detail.steps[0]).toMatchObject({ sinceStartMs: 0 });
    expect(detail.steps.at(-1)).toMatchObject({ durationMs: null, signature: relaySignature });
    expect(detail.steps[1]!.verifyMs).toBeGreaterThanOrEqual(0);
    expect(detail.costLamports).toBe("0");
    expect((await admin(`/relays/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await admin<AdminRelayDetail>(`/relays/${item.id.toUpperCase()}`)).body.id).toBe(item.id);
    expect(await admin("/relays/not-a-uuid")).toEqual({ status: 400, body: { error: "InvalidRequest", message: "id must be a relay id (UUID)" } });
  });

  it("reports fees earned and the relayer's balances", async () => {
    const money = (await admin<AdminMoney>("/money?range=7d")).body;
    expect(money.totals).toEqual([{ network: "mainnet", mint: USDC, fees: "2500", volume: "1000000", relays: 1, costLamports: "0" }]);
    expect(money.earned.reduce((s, e) => s + BigInt(e.fees), 0n)).toBe(2500n);
    const mainnet = money.feePayers.find((f) => f.network === "mainnet")!;
    expect(mainnet.balances).toContainEqual({ mint: USDC, amount: "2500" });
    expect(mainnet.sandbox).toBe(true);
    expect(money.recent[0]).toMatchObject({ status: "confirmed", fee: "2500" });
  });

  it("shows settings with key fingerprints and no secret", async () => {
    const settings = (await admin<AdminSettings>("/settings")).body;
    expect(settings.retentionDays).toBe(30);
    expect(settings.fees.default).toEqual({ bps: 25, floor: "0" });
    expect(settings.operatorToken.source).toBe("configured");
    const relayer = settings.keys.find((k) => k.name === "relayer")!;
    expect(relayer.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(relayer.storage).toBe("file (mode 0600)");
    const text = JSON.stringify(settings);
    expect(text).not.toContain(TOKEN);
    const secret = JSON.parse(readFileSync(path.join(dir, "keys", "relayer.json"), "utf8")) as number[];
    expect(text).not.toContain(Buffer.from(secret.slice(0, 32)).toString("hex"));
    expect(text).not.toContain(JSON.stringify(secret.slice(0, 8)).slice(1, -1));
  });

  it("pauses a pool: relays answer 503 RelayPaused, /health says why; unpausing restores both", async () => {
    const next = await prepareWithdrawal(server.url, depositor, USDC, { recipient: testRecipient("admin-http-paused"), amount: 1_000_000 });
    await settle();
    expect((await adminPost("/pauses", { network: "mainnet", mint: USDC, paused: true })).status).toBe(400); // a reason is required
    const set = await adminPost("/pauses", { network: "mainnet", mint: USDC, paused: true, reason: "maintenance window" });
    expect(set.status).toBe(200);
    expect((set.json as { pauses: unknown[] }).pauses).toEqual([expect.objectContaining({ network: "mainnet", mint: USDC, reason: "maintenance window" })]);

    const refused = await post(`${server.url}/relay`, next.body, { "x-api-auth": relayToken });
    expect(refused.status).toBe(503);
    expect(refused.json).toEqual({ status: 503, error: "RelayPaused", message: `relays of ${USDC} on mainnet are paused by the operator: maintenance window` });
    const health = await healthBecomes(server.url, 503);
    expect(health.text).toContain("paused: relays paused by the operator: mainnet/" + USDC + ": maintenance window");
    expect((await admin<AdminPoolSummary>(`/pools/mainnet/${USDC}`)).body.paused).toMatch(/maintenance window/);

    // The whole network's switch, then off again.
    await adminPost("/pauses", { network: "mainnet", mint: USDC, paused: false });
    await adminPost("/pauses", { network: "mainnet", mint: null, paused: true, reason: "chain upgrade" });
    expect((await post(`${server.url}/relay`, next.body, { "x-api-auth": relayToken })).json).toMatchObject({
      error: "RelayPaused",
      message: "relays on mainnet are paused by the operator: chain upgrade",
    });
    await adminPost("/pauses", { network: "mainnet", paused: false });
    await healthBecomes(server.url, 200);
    const ok = await post(`${server.url}/relay`, next.body, { "x-api-auth": relayToken });
    expect(ok.status, ok.text).toBe(200);
    const counts = (await admin<AdminRelayPage>("/relays")).body.counts;
    // The refusals while paused came before any proof work: counted, never stored (docs/security.md, "Rejected relays").
    expect(counts).toEqual({ confirmed: 2 });
    expect((await admin<{ counts: Record<string, number> }>("/relays/rejected")).body.counts).toEqual({ RelayPaused: 2 });
  });

  it("a sandbox fault turns the chain's check and /health red, and clearing it recovers", async () => {
    const down = await adminPost("/sandbox/faults", { network: "devnet", chainDown: true });
    expect(down.json).toEqual({
      faults: [
        { network: "mainnet", chainDown: false, feePayerLamports: null },
        { network: "devnet", chainDown: true, feePayerLamports: null },
      ],
    });
    const health = await healthBecomes(server.url, 503);
    expect(health.text).toMatch(/chain:devnet: sandbox chain unreachable/);
    const detail = (await admin<AdminHealth>("/health")).body;
    expect(detail.status).toBe("degraded");
    expect(detail.networks.find((n) => n.name === "devnet")!.faults).toEqual({ chainDown: true });
    expect(detail.checks.find((c) => c.name === "chain:devnet")!.ok).toBe(false);
    await adminPost("/sandbox/faults", { network: "devnet", chainDown: false });
    await healthBecomes(server.url, 200);
    expect((await adminPost("/sandbox/faults", { network: "testnet", chainDown: true })).status).toBe(400);
  });

  it("health detail covers store, indexer lag, in-flight relays and rate limits", async () => {
    const detail = (await admin<AdminHealth>("/health")).body;
    expect(detail.status).toBe("ok");
    expect(detail.store).toMatchObject({ ok: true, failure: null });
    expect(detail.indexer).toHaveLength(4);
    expect(detail.indexer.every((p) => p.lag === 0 && p.drift === null)).toBe(true);
    expect(detail.relays.inFlight).toBe(0);
    expect(detail.relays.lastDay).toEqual({ confirmed: 2 });
    expect(detail.pauses).toEqual([]);
  });
});

describe("support: the revert queue and the compliance log", () => {
  it("lists revert requests with their steps, newest first, filtered by status", async () => {
    const failed = await deposit(server.url, depositor, new Array(32).fill(0), 1000, USDC);
    expect(failed.status).toBe("failed");
    const sig = failed.signature;
    const ok = await post(`${server.url}/revert/mainnet/${relayToken}/${sig}`, {
      wallet: depositor.address,
      signature: depositor.sign(revertMessage(sig)),
      message: revertMessage(sig),
    });
    expect(ok.status, ok.text).toBe(200);
    const again = await post(`${server.url}/revert/mainnet/${relayToken}/${sig}`, {
      wallet: depositor.address,
      signature: depositor.sign(revertMessage(sig)),
      message: revertMessage(sig),
    });
    expect(again.status).toBe(400);

    const all = (await admin<{ items: AdminRevert[] }>("/reverts")).body.items;
    expect(all.map((r) => r.status)).toEqual(["failed", "processed"]);
    const processed = all[1]!;
    expect(processed).toMatchObject({ network: "mainnet", depositSignature: sig, wallet: depositor.address, mint: USDC, amount: "1000", signature: ok.text });
    expect(processed.steps.map((s) => s.kind)).toEqual(["requested", "submitted", "processed"]);
    expect((await admin<{ items: AdminRevert[] }>("/reverts?status=failed")).body.items).toEqual([all[0]]);
    expect((await admin<AdminRevert>(`/reverts/${processed.id}`)).body).toEqual(processed);
    expect((await admin<AdminRevert>(`/reverts/${processed.id.toUpperCase()}`)).body).toEqual(processed);
    expect((await admin("/reverts/00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect(await admin("/reverts/not-a-uuid")).toEqual({ status: 400, body: { error: "InvalidRequest", message: "id must be a revert id (UUID)" } });
    expect((await admin("/reverts?status=lost")).status).toBe(400);
  });

  it("shows compliance decisions with the list in force, and edits the overrides with a reason", async () => {
    const log = (await admin<AdminCompliance>("/compliance")).body;
    expect(log.list.count).toBeGreaterThan(0);
    expect(log.decisions).toContainEqual(expect.objectContaining({ purpose: "relay_recipient", address: testRecipient("admin-http"), outcome: "clear" }));
    const someone = newWallet().address;
    const added = await adminPost("/sanctions/overrides", { address: someone, action: "add", reason: "court order 12" });
    expect(added.status, added.text).toBe(200);
    expect((added.json as AdminCompliance).overrides).toContainEqual(expect.objectContaining({ address: someone, action: "add", reason: "court order 12" }));
    expect((await adminPost("/sanctions/overrides", { address: someone, action: "add", reason: "" })).status).toBe(400);
    expect((await adminPost("/sanctions/overrides", { address: "nope", action: "add", reason: "court order" })).status).toBe(400);
    const cleared = await adminPost("/sanctions/overrides", { address: someone, action: "clear", reason: "order lifted" });
    expect((cleared.json as AdminCompliance).overrides.some((o) => o.address === someone)).toBe(false);
    const mine = (await admin<AdminCompliance>(`/compliance?address=${someone}`)).body;
    expect(mine.history.map((h) => h.change)).toEqual(["clear", "add"]);
  });
});

describe("protocol v3: leaves by kind and the anonymity set of each standard amount", () => {
  /** A fixed precommitment per label (below the field modulus), so the pool's tree, and so the cached proofs, repeat across runs. */
  const precommitment = (label: string): number[] => {
    const b = createHash("sha256").update(`admin-http-v3:${label}`).digest();
    b[0] = b[0]! % 0x30;
    return Array.from(b);
  };
  const pool = async () => (await admin<AdminPoolSummary>(`/pools/devnet/${USDC}`)).body;
  const sets = (p: AdminPoolSummary) => Object.fromEntries(p.leaves.anonymitySets.map((s) => [s.amount, s.notes]));

  it("counts deposits of mixed amounts and the change leaves of partial withdrawals, and each standard amount's notes", async () => {
    await airdrop(server.url, depositor, 20_000_000, USDC, "devnet");
    expect((await pool()).leaves).toMatchObject({ deposits: 0, changes: 0, largestDeposit: null, anonymitySets: [] });
    for (const [label, amount] of [
      ["a", 2_500_000],
      ["b", 7_000],
    ] as const) {
      expect((await deposit(server.url, depositor, precommitment(label), amount, USDC, "devnet")).status).toBe("indexed");
    }
    // A note of 1,000,000 (leaf 2), of which 200,000 is withdrawn: the change leaf (800,000, private) is leaf 3.
    const first = await prepareWithdrawal(server.url, depositor, USDC, {
      network: "devnet",
      recipient: testRecipient("admin-http-v3-1"),
      amount: 1_000_000,
      withdraw: 200_000,
    });
    await settle();
    const r1 = await post(`${server.url}/relay`, first.body, { "x-api-auth": relayToken });
    expect(r1.status, r1.text).toBe(200);
    const landed = r1.json as { signature: string; changeLeafIndex: number };
    expect(landed.changeLeafIndex).toBe(3);

    let p = await pool();
    expect(p.nextIndex).toBe(4);
    expect(p.leaves).toMatchObject({ deposits: 3, changes: 1, depositsOfUnknownAmount: 0, largestDeposit: "2500000", decimals: 6, standardFloor: "1000" });
    // Every standard amount from the floor (USDC: 1,000 base units) to the largest deposit; the change leaf counts in each.
    expect(sets(p)).toEqual({
      "1000": 4,
      "2000": 4,
      "5000": 4,
      "10000": 3,
      "20000": 3,
      "50000": 3,
      "100000": 3,
      "200000": 3,
      "500000": 3,
      "1000000": 3,
      "2000000": 2,
    });
    expect(p.leaves.anonymitySets.find((s) => s.amount === "2000000")).toEqual({ amount: "2000000", deposits: 1, notes: 2 });
    expect(p.deposits.total).toBe(3);

    // The change note pays a second piece of 500,000: another change leaf (leaf 4), in every set again.
    const second = await prepareWithdrawal(server.url, depositor, USDC, {
      network: "devnet",
      recipient: testRecipient("admin-http-v3-2"),
      spend: changeNoteAt(first, landed.changeLeafIndex),
      withdraw: 500_000,
    });
    await settle();
    const r2 = await post(`${server.url}/relay`, second.body, { "x-api-auth": relayToken });
    expect(r2.status, r2.text).toBe(200);
    expect((r2.json as { changeLeafIndex: number }).changeLeafIndex).toBe(4);
    p = await pool();
    expect(p.leaves).toMatchObject({ deposits: 3, changes: 2 });
    expect(sets(p)).toMatchObject({ "1000": 5, "5000": 5, "10000": 4, "1000000": 4, "2000000": 3 });
    // The list answers the same as the pool's own page.
    const listed = (await admin<{ pools: AdminPoolSummary[] }>("/pools")).body.pools.find((x) => x.network === "devnet" && x.mint === USDC)!;
    expect(listed.leaves).toEqual(p.leaves);
    // A pool without deposits has no anonymity set.
    expect((await admin<AdminPoolSummary>(`/pools/devnet/${WSOL}`)).body.leaves).toMatchObject({ deposits: 0, changes: 0, anonymitySets: [] });

    // The relay record: the part withdrawn and the change leaf, with where it went.
    const page = (await admin<AdminRelayPage>(`/relays?network=devnet&mint=${USDC}`)).body;
    expect(page.items.map((i) => [i.depositSize, i.changeLeafIndex])).toEqual([
      ["500000", 4],
      ["200000", 3],
    ]);
    const detail = (await admin<AdminRelayDetail>(`/relays/${page.items[1]!.id}`)).body;
    expect(detail).toMatchObject({
      depositSize: "200000",
      signature: landed.signature,
      changeCommitment: Buffer.from(first.body.changeCommitment).toString("hex"),
      changeLeafIndex: 3,
    });

    // The tree explorer's leaves: a deposit with its public amount, a change leaf without a value, inserted by the withdrawal.
    const leafNode = async (i: number) => (await admin<AdminTreeNode>(`/pools/devnet/${USDC}/nodes/${2 ** 32 + i}`)).body.leaf;
    expect(await leafNode(2)).toMatchObject({ kind: "deposit", amount: "1000000", signature: first.deposit.signature });
    expect(await leafNode(3)).toMatchObject({ kind: "change", amount: null, signature: landed.signature });
    const change = (await admin<AdminTreeNode>(`/pools/devnet/${USDC}/nodes/${2 ** 32 + 3}`)).body;
    const viaSpec = (await post(`${server.url}/get_node/${USDC}/32/${2 ** 32 + 3}/devnet`)).json as { json: { value: number[] } };
    expect(change.value).toBe(Buffer.from(viaSpec.json.value).toString("hex"));
    expect(change.value).toBe(Buffer.from(first.body.changeCommitment).toString("hex"));
  });
});

describe("a generated operator token", () => {
  it("is printed once at first start, kept only as a salted hash, and works until replaced", async () => {
    const own = mkdtempSync(path.join(tmpdir(), "relay-admin-token-"));
    try {
      const first: string[] = [];
      const s1 = await startServer(loadConfig({ RELAY_PORT: "0", RELAY_DATA_DIR: own }), { log: (l) => first.push(l) });
      const at = first.findIndex((l) => l.startsWith("OPERATOR TOKEN"));
      expect(at).toBeGreaterThan(-1);
      const token = first[at + 2]!.trim();
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(first.filter((l) => l.includes(token))).toHaveLength(1);
      const session = await fetch(`${s1.url}/admin/session`, { headers: { authorization: `Bearer ${token}` } });
      expect(await session.json()).toEqual({ ok: true, tokenSource: "generated" });
      await s1.stop();

      const stored = readFileSync(path.join(own, "keys", "operator-token.json"), "utf8");
      expect(stored).not.toContain(token);
      expect((JSON.parse(stored) as number[]).length).toBe(48);
      for (const f of readdirSync(own, { recursive: true, withFileTypes: true })) {
        if (f.isFile()) expect(readFileSync(path.join(f.parentPath, f.name)).includes(token), f.name).toBe(false);
      }

      const second: string[] = [];
      const s2 = await startServer(loadConfig({ RELAY_PORT: "0", RELAY_DATA_DIR: own }), { log: (l) => second.push(l) });
      expect(second.join("\n")).not.toContain(token);
      expect(second.some((l) => l.startsWith("OPERATOR TOKEN"))).toBe(false);
      expect((await fetch(`${s2.url}/admin/session`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      expect((await fetch(`${s2.url}/admin/session`, { headers: { authorization: `Bearer ${token}x` } })).status).toBe(401);
      // Guessing is slowed down: after 20 failures a minute, even the right token waits.
      for (let i = 0; i < 19; i++) await fetch(`${s2.url}/admin/session`, { headers: { authorization: `Bearer guess-${i}` } });
      const locked = await fetch(`${s2.url}/admin/session`, { headers: { authorization: `Bearer ${token}` } });
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
      await s2.stop();
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});
