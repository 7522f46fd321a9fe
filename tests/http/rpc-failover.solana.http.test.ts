/**
 * RPC failover through HTTP with real proofs: the relay's `mainnet` network
 * has two RPC endpoints of the same local cluster (two JSON-RPC servers over
 * one ledger, like two providers). The first is faulted, then stopped, while
 * withdrawals are being relayed: every relay still lands, the console's
 * health shows each endpoint's state by origin only, and requests return to
 * the first endpoint once it answers again.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminHealth, RpcEndpointStatus } from "../../src-shared/api/admin";
import type { ExtraRpcEndpoint } from "../../src-localnet/validator";
import { relayHarness, type RelayHarness } from "../support/harness";
import { localnetTestChain, solanaRelayConfig, startLocalnet, type Localnet } from "../support/localnet";
import { prepareWithdrawal, testRecipient, type PreparedWithdrawal } from "../support/proofs";
import { startRelay } from "../support/relay-process";
import { USDC } from "../support/sandbox";
import { newWallet, post, type TestWallet } from "../support/wallet";

const OPERATOR = "rpc-failover-operator-token-0123456789";
let net: Localnet;
let primary: ExtraRpcEndpoint;
let h: RelayHarness;
let depositor: TestWallet;
let token: string;

const login = async (w: TestWallet): Promise<string> => {
  const t = Math.floor(Date.now() / 1000);
  return ((await post(`${h.url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t })).json as { id: string }).id;
};
const relay = (body: unknown) => post(`${h.url}/relay`, body, { "x-api-auth": token });
const endpoints = async (): Promise<RpcEndpointStatus[]> => {
  const r = await fetch(`${h.url}/admin/health`, { headers: { authorization: `Bearer ${OPERATOR}` } });
  expect(r.status).toBe(200);
  const body = (await r.json()) as AdminHealth;
  return body.networks.find((n) => n.name === "mainnet")!.rpcEndpoints!;
};
const until = async (what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};
const withdrawals = async (label: string, n: number): Promise<PreparedWithdrawal[]> => {
  const out: PreparedWithdrawal[] = [];
  for (let i = 0; i < n; i++)
    out.push(await prepareWithdrawal(h.url, depositor, USDC, { recipient: testRecipient(`failover-${label}-${i}`), amount: 1_000_000, chain: h.chain }));
  return out;
};
/** Relays one after another; `midway` runs once the first has landed, while the rest are still to go. */
const relayAll = async (ws: PreparedWithdrawal[], midway: () => Promise<void>): Promise<{ status: number; json: unknown }[]> => {
  const answers: { status: number; json: unknown }[] = [];
  const first = await relay(ws[0]!.body);
  answers.push(first);
  const rest = ws.slice(1).map((w, i) => new Promise((r) => setTimeout(r, i * 150)).then(() => relay(w.body)));
  await midway();
  answers.push(...(await Promise.all(rest)));
  return answers;
};
const landed = async (ws: PreparedWithdrawal[]) => {
  for (const w of ws) {
    const r = await post(`${h.url}/get_nullifier/${USDC}/32/mainnet`, { nullifierHash: w.body.nullifierHash });
    expect(r.json).toMatchObject({ json: { spent: true } });
    expect(await h.chain.balance(w.body.recipient, USDC)).toBeGreaterThan(0n);
  }
};

beforeAll(async () => {
  net = await startLocalnet();
  primary = await net.validator.addRpcEndpoint();
  // The first endpoint has the API key in its path, as providers do: it must never be shown.
  const cfg = solanaRelayConfig(net, { rpcProbeMs: 200, rpcTimeoutMs: 1500 }) as { networks: { mainnet: Record<string, unknown> } };
  delete cfg.networks.mainnet.rpcUrl;
  cfg.networks.mainnet.rpcUrls = [`${primary.rpcUrl}/v2/SECRETKEY`, net.validator.rpcUrl];
  cfg.networks.mainnet.wsUrl = primary.wsUrl;
  const file = path.join(net.dir, "relay.json");
  writeFileSync(file, JSON.stringify(cfg));
  const env = { RELAY_CONFIG: file, RELAY_RATE_LIMITS: "off", RELAY_OPERATOR_TOKEN: OPERATOR };
  h = relayHarness(
    "solana",
    await startRelay(env),
    (dir) => startRelay(env, dir),
    (url) => localnetTestChain(net, url),
    net.programId,
    () => net.close(),
  );
  depositor = newWallet();
  await h.chain.fund(depositor, 100_000_000, USDC);
  token = await login(depositor);
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

describe("RPC failover between two endpoints of one cluster", () => {
  it("starts on the first endpoint, both healthy, shown by origin only", async () => {
    // A request that timed out under load marks an endpoint unhealthy until the next probe (200 ms).
    // The answer that showed it is the one checked: under load the next one may already show the first endpoint on probation again.
    let eps: RpcEndpointStatus[] = [];
    await until("both endpoints healthy, the first in use", async () => {
      eps = await endpoints();
      return eps.every((x) => x.healthy) && eps[0]!.active;
    });
    expect(eps.map((e) => [e.url, e.healthy, e.active])).toEqual([
      [`${primary.rpcUrl}/…`, true, true],
      [net.validator.rpcUrl, true, false],
    ]);
    expect(h.relay.output()).not.toContain("SECRETKEY");
  });

  it("lands every relay when the first endpoint goes down (503 to everything) mid-run, and returns to it once it recovers", async () => {
    const ws = await withdrawals("down", 3);
    const answers = await relayAll(ws, async () => {
      primary.faults.set({ down: true });
    });
    for (const a of answers) expect(a).toMatchObject({ status: 200, json: { status: 200 } });
    await landed(ws);
    const eps = await endpoints();
    expect(eps[0]).toMatchObject({ healthy: false, active: false, lastError: expect.stringMatching(/503/) });
    expect(eps[1]).toMatchObject({ healthy: true, active: true });

    primary.faults.clear();
    await until("the first endpoint to be healthy and active again", async () => {
      const e = await endpoints();
      return e[0]!.healthy && e[0]!.active;
    });
    const requestsBefore = (await endpoints())[0]!.requests;
    const [again] = await withdrawals("recovered", 1);
    expect(await relay(again!.body)).toMatchObject({ status: 200 });
    expect((await endpoints())[0]!.requests).toBeGreaterThan(requestsBefore);
  }, 180_000);

  it("lands every relay when the first endpoint is stopped mid-run", async () => {
    const ws = await withdrawals("stopped", 3);
    const answers = await relayAll(ws, () => primary.close());
    for (const a of answers) expect(a).toMatchObject({ status: 200, json: { status: 200 } });
    await landed(ws);
    // A stopped server still answers on its open connections during its short close grace,
    // so the first endpoint is marked unhealthy by the first probe after that, not at once.
    await until("the stopped endpoint to be marked unhealthy", async () => !(await endpoints())[0]!.healthy, 5_000);
    const eps = await endpoints();
    expect(eps[0]).toMatchObject({ healthy: false, active: false });
    expect(eps[1]).toMatchObject({ healthy: true, active: true });
    expect(JSON.stringify(eps)).not.toContain("SECRETKEY");
    expect(h.relay.output()).not.toContain("SECRETKEY");
  }, 180_000);
});
