/**
 * While the database cannot be reached, every request that needs it answers 503 ServerBusy with
 * `Retry-After: 5`, in its route's shape, and a relay whose lock row cannot be written is never
 * sent. The embedded sql.js store cannot be taken away, so the relay runs in process and one store
 * method at a time is made to throw StoreUnavailable, as the PostgreSQL stores do while the
 * database is down (adapters/storage-pg, its own tests take a real server away).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src-server/config/load";
import { startServer, type RunningServer } from "../../src-server/index";
import { StoreUnavailable } from "../../src-server/ports/store-errors";
import { prepareWithdrawal, testRecipient, type PreparedWithdrawal } from "../support/proofs";
import { airdrop, USDC } from "../support/sandbox";
import { get, newWallet, post, type HttpAnswer } from "../support/wallet";

const OPERATOR = "store-unavailable-operator-token-01";
const BUSY = { error: "ServerBusy", message: "the relay's database cannot be reached; try again shortly" };
/** What a PostgreSQL error might carry, credentials included: never logged. */
const CAUSE = "connection refused (postgres://relay:hunter2@db.internal:5432/relay)";

let server: RunningServer;
let dir: string;
let token: string;
let withdrawal: PreparedWithdrawal;
const lines: string[] = [];
const restores: (() => void)[] = [];

/** Makes `method` of `target` throw StoreUnavailable until the test ends. */
function unavailable<T extends object>(target: T, method: keyof T & string): void {
  const own = Object.getOwnPropertyDescriptor(target, method);
  Object.defineProperty(target, method, {
    configurable: true,
    writable: true,
    value: () => Promise.reject(new StoreUnavailable(CAUSE)),
  });
  restores.push(() => (own ? Object.defineProperty(target, method, own) : delete (target as Record<string, unknown>)[method]));
}

const expectBusy = (r: HttpAnswer, shape: "relay" | "plain"): void => {
  expect(r.status, r.text).toBe(503);
  expect(r.headers.get("retry-after")).toBe("5");
  expect(r.json).toEqual(shape === "relay" ? { status: 503, ...BUSY } : BUSY);
};

const login = async () => {
  const w = newWallet();
  const t = Math.floor(Date.now() / 1000);
  return post(`${server.url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t });
};

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "store-unavailable-"));
  const config = loadConfig({ RELAY_PORT: "0", RELAY_DATA_DIR: dir, RELAY_RATE_LIMITS: "off", RELAY_OPERATOR_TOKEN: OPERATOR });
  server = await startServer({ ...config, compliance: { ...config.compliance, auditLog: true } }, { log: (l) => lines.push(l) });
  const w = newWallet();
  await airdrop(server.url, w, 10_000_000, USDC);
  token = ((await login()).json as { id: string }).id;
  withdrawal = await prepareWithdrawal(server.url, w, USDC, { recipient: testRecipient("store-unavailable"), amount: 1_000_000 });
});
afterEach(() => {
  for (const restore of restores.splice(0).reverse()) restore();
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a store that cannot be reached", () => {
  it("answers an operator read 503 ServerBusy with Retry-After: 5, and logs the cause without the database URL", async () => {
    unavailable(server.relay.stores.console, "relays");
    expectBusy(await get(`${server.url}/admin/relays`, { authorization: `Bearer ${OPERATOR}` }), "plain");
    const logged = lines.filter((l) => l.includes("store unavailable"));
    expect(logged).toEqual([expect.stringContaining("GET /admin/relays")]);
    expect(lines.join("\n")).not.toContain("hunter2");
    expect(lines.join("\n")).not.toContain("postgres://");
  });

  it("answers get_leaves 503 ServerBusy with Retry-After: 5", async () => {
    unavailable(server.relay.stores.tree, "listLeaves");
    expectBusy(await post(`${server.url}/get_leaves/${USDC}/32/mainnet`), "plain");
  });

  it("answers /login 503 ServerBusy with Retry-After: 5 instead of a server error, and logs in again once it is back", async () => {
    unavailable(server.relay.stores.auth, "consumeLogin");
    expectBusy(await login(), "plain");
    restores.pop()!();
    expect((await login()).status).toBe(200);
  });

  it("answers a compliance signature it could not record 503 ServerBusy with Retry-After: 5, and issues none", async () => {
    unavailable(server.relay.stores.compliance, "record");
    const r = await post(`${server.url}/get_ofac_signature/mainnet/${token}`);
    expectBusy(r, "plain");
    expect(r.headers.get("cache-control")).toBe("no-store");
  });

  it("answers a relay whose lock row cannot be written 503 ServerBusy in the relay's shape, sends nothing, and takes no lock", async () => {
    const chain = server.relay.chains.get("mainnet")!;
    const submit = chain.submitWithdrawal.bind(chain);
    let submissions = 0;
    chain.submitWithdrawal = (...args) => {
      submissions += 1;
      return submit(...args);
    };
    restores.push(() => (chain.submitWithdrawal = submit));
    unavailable(server.relay.stores.relays, "create");

    expectBusy(await post(`${server.url}/relay`, withdrawal.body, { "x-api-auth": token }), "relay");
    expect(submissions).toBe(0);
    expect(await server.relay.stores.relays.recent(10)).toEqual([]);

    // Once the database is back the same request lands: no lock was left behind by the refusal.
    restores.pop()!();
    const landed = await post(`${server.url}/relay`, withdrawal.body, { "x-api-auth": token });
    expect(landed.status, landed.text).toBe(200);
    expect(submissions).toBe(1);
  });

  it("makes GET /health answer 503 while the store check fails", async () => {
    const stores = server.relay.stores;
    const check = stores.check.bind(stores);
    stores.check = () => Promise.resolve({ ok: false, detail: "PostgreSQL at db.internal:5432/relay: connection refused" });
    restores.push(() => (stores.check = check));
    // The public report is reused for 5 s at most (HealthService.cached).
    await waitForHealth(503);
    const r = await get(`${server.url}/health`);
    expect(r.status).toBe(503);
    expect(r.text).toContain("store: PostgreSQL at db.internal:5432/relay: connection refused");
  });
});

/** GET /health until it answers `status` (its report is refreshed every 5 s at most). */
async function waitForHealth(status: number): Promise<void> {
  const until = Date.now() + 12_000;
  while ((await get(`${server.url}/health`)).status !== status) {
    if (Date.now() > until) throw new Error(`GET /health never answered ${status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
