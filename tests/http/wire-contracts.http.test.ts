/**
 * Every answer of a running relay (sandbox) decoded with its wire contract from
 * src-shared/api/, the declarations the SDK and the console read with: a route
 * whose answer drifts from its contract fails here as well as in typecheck.
 * The relay has a deposit, a relayed withdrawal, a pause, a fault, an override
 * and an alert webhook behind it, so the lists hold items and not only `[]`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  adminAnswers,
  adminCompliance,
  adminFees,
  adminHealth,
  adminMoney,
  adminNullifierSearch,
  adminRejectedRelays,
  adminRelayDetail,
  adminRelayLog,
  adminRelayPage,
  adminSession,
  adminSettings,
  adminTreeNode,
} from "../../src-shared/api/admin";
import { adminAlertRules, adminAlerts, adminAlertTest } from "../../src-shared/api/alerts";
import type { Decoder } from "../../src-shared/api/decode";
import {
  decodeBalance,
  decodeBoolean,
  decodeCompliancePublicKey,
  decodeFeeSchedule,
  decodeLogin,
  decodeLeafList,
  decodeMerkleNode,
  decodeMerkleProof,
  decodeMerkleState,
  decodeNullifierStatus,
  decodeSandboxDeposit,
  feesAnswer,
  healthDetail,
  networksAnswer,
  relaySuccess,
} from "../../src-shared/api/public";
import { prepareWithdrawal, testRecipient, type PreparedWithdrawal } from "../support/proofs";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { depositBody, randomPrecommitment, USDC } from "../support/sandbox";
import { newWallet, post, type TestWallet } from "../support/wallet";

const OPERATOR = "contracts-test-operator-token-0123456789";
const operator = { authorization: `Bearer ${OPERATOR}` };

let relay: RelayProcess;
let hook: Server;
let dir: string;
let wallet: TestWallet;
let token: string;
let withdrawal: PreparedWithdrawal;
let relayAnswer: unknown;

/** The body decoded, or the test fails with the decoder's message (which names the field). */
function decoded<T>(what: string, body: unknown, contract: Decoder<T>): T {
  const r = contract(body);
  if (!r.ok) throw new Error(`${what}: ${r.error}\n${JSON.stringify(body).slice(0, 2000)}`);
  return r.value;
}

async function call(method: "GET" | "POST", p: string, body?: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  const res = await fetch(`${relay.url}${p}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  expect(res.status < 300 || (p === "/health/detail" && res.status === 503), `${method} ${p}: ${res.status} ${text}`).toBe(true);
  return JSON.parse(text) as unknown;
}
const admin = (method: "GET" | "POST", p: string, body?: unknown) => call(method, `/admin${p}`, body, operator);

beforeAll(async () => {
  hook = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
  dir = mkdtempSync(path.join(tmpdir(), "contracts-cfg-"));
  const file = path.join(dir, "relay.json");
  const webhook = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  writeFileSync(file, JSON.stringify({ alerts: { evaluateSec: 1, webhook: { url: webhook, format: "json", timeoutMs: 1500, maxRetries: 0 } } }));
  relay = await startRelay({ RELAY_CONFIG: file, RELAY_OPERATOR_TOKEN: OPERATOR, RELAY_RATE_LIMITS: "off" });
  wallet = newWallet();
  await post(`${relay.url}/sandbox/airdrop`, { network: "mainnet", wallet: wallet.address, mint: USDC, amount: 50_000_000 });
  const t = Math.floor(Date.now() / 1000);
  token = decoded("POST /login", await call("POST", "/login", { wallet: wallet.address, signature: wallet.sign(String(t)), message: t }), decodeLogin).id;
  withdrawal = await prepareWithdrawal(relay.url, wallet, USDC, { recipient: testRecipient("wire-contracts"), amount: 1_000_000 });
  relayAnswer = await call("POST", "/relay", withdrawal.body, { "x-api-auth": token });
}, 180_000);
afterAll(async () => {
  await relay?.stop();
  relay?.cleanup();
  await new Promise((r) => hook?.close(r));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the public API's answers match their contracts (src-shared/api/public.ts)", () => {
  it("/relay, /login, /is_logged, /networks, /health/detail and /fees", async () => {
    expect(decoded("POST /relay", relayAnswer, relaySuccess).status).toBe(200);
    expect(decoded("GET /is_logged", await call("GET", `/is_logged/${token}`), decodeBoolean)).toBe(true);
    expect(decoded("GET /networks", await call("GET", "/networks"), networksAnswer).networks.map((n) => n.name)).toEqual(["mainnet", "devnet"]);
    const detail = decoded("GET /health/detail", await call("GET", "/health/detail", undefined, operator), healthDetail);
    expect(detail.checks.length).toBeGreaterThan(0);
    expect(detail.networks?.[0]?.programId).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const fees = await call("GET", "/fees");
    expect(decoded("GET /fees", fees, feesAnswer).relayers?.mainnet).toBe(withdrawal.terms.relayer);
    expect(decoded("GET /fees (SDK)", fees, decodeFeeSchedule).relayers.mainnet).toBe(withdrawal.terms.relayer);
  });

  it("the indexer's get_merkle, get_proof, get_node, get_leaves and get_nullifier (spent and not)", async () => {
    const pool = `/${USDC}/32/mainnet`;
    const state = decoded("get_merkle", await call("POST", `/get_merkle${pool}`), decodeMerkleState);
    expect(state.json.nextIndex).toBeGreaterThan(withdrawal.deposit.leafIndex);
    const proof = decoded("get_proof", await call("POST", `/get_proof/${USDC}/32/${withdrawal.deposit.leafIndex}/mainnet`), decodeMerkleProof);
    expect(proof.json.path).toHaveLength(32);
    const spent = decoded(
      "get_nullifier",
      await call("POST", `/get_nullifier${pool}`, { nullifierHash: withdrawal.body.nullifierHash }),
      decodeNullifierStatus,
    );
    expect(spent.json).toEqual({ spent: true });
    const fresh = decoded("get_nullifier", await call("POST", `/get_nullifier${pool}`, { nullifierHash: [...Array(31).fill(0), 7] }), decodeNullifierStatus);
    expect(fresh).toEqual({ address: null, json: null });
    const node = decoded("get_node", await call("POST", `/get_node/${USDC}/32/1/mainnet`), decodeMerkleNode);
    expect(node.json.value).toEqual(state.json.root);
    // Protocol v3: the landed withdrawal's change leaf is listed as one, without an amount.
    const listed = decoded("get_leaves", await call("POST", `/get_leaves${pool}`, { from: 0 }), decodeLeafList);
    expect(listed.json.nextIndex).toBe(state.json.nextIndex);
    expect(listed.json.leaves).toHaveLength(state.json.nextIndex);
    expect(listed.json.leaves[withdrawal.deposit.leafIndex]).toMatchObject({ kind: "deposit", amount: expect.stringMatching(/^[1-9][0-9]*$/) });
    expect(listed.json.leaves.filter((l) => l.kind === "change")).toEqual([{ index: expect.any(Number), kind: "change", amount: null }]);
  });

  it("the sandbox's deposit and balance, and the compliance key", async () => {
    const dep = decoded(
      "POST /sandbox/deposit",
      await call("POST", "/sandbox/deposit", depositBody(wallet, randomPrecommitment(), 1_000, USDC)),
      decodeSandboxDeposit,
    );
    expect(dep.status).toBe("indexed");
    expect(decoded("GET /sandbox/balance", await call("GET", `/sandbox/balance/mainnet/${wallet.address}/${USDC}`), decodeBalance).amount).toBeGreaterThan(0n);
    expect(decoded("GET /compliance/public_key", await call("GET", "/compliance/public_key"), decodeCompliancePublicKey).algorithm).toBe("ed25519");
  });
});

describe("the admin API's answers match their contracts (src-shared/api/admin.ts, alerts.ts)", () => {
  it("pools, tree nodes, archived pools, relays, rejected relays and nullifiers", async () => {
    const pools = decoded("pools", await admin("GET", "/pools?range=24h"), adminAnswers.pools);
    expect(pools.some((p) => p.mint === USDC && p.recentRoots.length > 0)).toBe(true);
    expect(decoded("tree node", await admin("GET", `/pools/mainnet/${USDC}/nodes/1`), adminTreeNode).height).toBe(32);
    decoded("archived pools", await admin("GET", "/pools/archived"), adminAnswers.archivedPools);
    const page = decoded("relays", await admin("GET", "/relays"), adminRelayPage);
    expect(page.items).toHaveLength(1);
    const detail = decoded("relay", await admin("GET", `/relays/${page.items[0]!.id}`), adminRelayDetail);
    expect(detail.steps.map((s) => s.kind)).toContain("confirmed");
    expect(decoded("relay log", await admin("GET", `/relays/${detail.id}/log`), adminRelayLog).lines.length).toBeGreaterThan(0);
    expect((await post(`${relay.url}/relay`, { ...withdrawal.body, fee: withdrawal.body.fee + 1 }, { "x-api-auth": token })).status).toBe(400);
    expect(decoded("rejected relays", await admin("GET", "/relays/rejected"), adminRejectedRelays).items.length).toBeGreaterThan(0);
    const hex = Buffer.from(withdrawal.body.nullifierHash).toString("hex");
    expect(decoded("nullifier search", await admin("GET", `/nullifiers/search?q=${hex}`), adminNullifierSearch).results.some((r) => r.spent)).toBe(true);
    expect(decoded("spent nullifiers", await admin("GET", "/nullifiers/spent"), adminAnswers.spentNullifiers)).toHaveLength(1);
  });

  it("session, health, settings, money, fees, pauses, faults, reverts and compliance", async () => {
    expect(decoded("session", await admin("GET", "/session"), adminSession)).toEqual({ ok: true, tokenSource: "configured" });
    expect(decoded("health", await admin("GET", "/health"), adminHealth).networks.length).toBe(2);
    const settings = decoded("settings", await admin("GET", "/settings"), adminSettings);
    expect(decoded("money", await admin("GET", "/money?range=24h"), adminMoney).recent).toHaveLength(1);
    const fees = decoded("fees", await admin("POST", "/fees", { network: "mainnet", mint: USDC, bps: 10, floor: "5" }), adminFees);
    expect(fees.pools).toContainEqual({ network: "mainnet", mint: USDC, bps: 10, floor: "5" });
    expect(fees.default).toEqual(settings.fees.default);
    expect(decoded("pauses", await admin("POST", "/pauses", { network: "devnet", paused: true, reason: "contract test" }), adminAnswers.pauses)).toHaveLength(
      1,
    );
    expect(decoded("faults", await admin("POST", "/sandbox/faults", { network: "devnet", chainDown: true }), adminAnswers.faults).length).toBeGreaterThan(0);
    decoded("reverts", await admin("GET", "/reverts"), adminAnswers.reverts);
    const someone = newWallet().address;
    expect(
      decoded("override", await admin("POST", "/sanctions/overrides", { address: someone, action: "add", reason: "contract test" }), adminCompliance).overrides,
    ).toHaveLength(1);
    decoded("compliance", await admin("GET", `/compliance?address=${someone}`), adminCompliance);
  });

  it("alerts, their rules and the webhook test", async () => {
    expect(decoded("alerts", await admin("GET", "/alerts"), adminAlerts).enabled).toBe(true);
    expect(decoded("alert rules", await admin("POST", "/alerts/rules", { indexerLagSec: 120 }), adminAlertRules).rules.indexerLagSec).toBe(120);
    expect(decoded("webhook test", await admin("POST", "/alerts/test"), adminAlertTest).ok).toBe(true);
  });
});
