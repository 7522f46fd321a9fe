import { readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyComplianceSignature } from "../../src-shared/compliance";
import { encodeBase58, parsePublicKey, parseSignature } from "../../src-shared/encoding/base58";
import { configFile, login, sanctionsAdmin, withStoppedDb } from "../support/compliance";
import { rawRequest } from "../support/raw-http";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { get, newWallet, post, type TestWallet } from "../support/wallet";

const enc = new TextEncoder();
/** /health/detail takes the operator token. */
const OPERATOR = "compliance-test-operator-token-01";
let relay: RelayProcess;
let publicKey: string;
let alice: TestWallet;
let aliceToken: string;
let mallory: TestWallet;
let malloryToken: string;

const ofac = (token: string, network = "mainnet") => post(`${relay.url}/get_ofac_signature/${network}/${token}`);

beforeAll(async () => {
  // Rate limits stay on here, as in production; each test keeps well under them.
  relay = await startRelay({ RELAY_OPERATOR_TOKEN: OPERATOR });
  alice = newWallet();
  mallory = newWallet();
  aliceToken = await login(relay.url, alice);
  malloryToken = await login(relay.url, mallory);
  publicKey = ((await get(`${relay.url}/compliance/public_key`)).json as { publicKey: string }).publicKey;
});
afterAll(async () => {
  await relay?.stop();
  relay?.cleanup();
});

describe("the compliance key", () => {
  it("is exposed at GET /compliance/public_key with the signed text's form, and printed at start", async () => {
    const r = await get(`${relay.url}/compliance/public_key`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ publicKey: expect.any(String), algorithm: "ed25519", message: "OFAC:<network>:<wallet>:<expiresAtUnix>", validitySec: 120 });
    expect(parsePublicKey(publicKey).ok).toBe(true);
    expect(relay.output()).toContain(`compliance key: ${publicKey}`);
  });

  it("lives in <dataDir>/keys/compliance.json, mode 0600, a Solana keypair whose secret never reaches the output", () => {
    const file = path.join(relay.dataDir, "keys", "compliance.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const bytes = Uint8Array.from(JSON.parse(readFileSync(file, "utf8")) as number[]);
    expect(bytes).toHaveLength(64);
    expect(encodeBase58(bytes.slice(32))).toBe(publicKey);
    expect(relay.output()).not.toContain(encodeBase58(bytes));
    expect(relay.output()).not.toContain(JSON.stringify(Array.from(bytes.slice(0, 8))).slice(1, -1));
  });
});

describe("POST /get_ofac_signature/{network}/{id}", () => {
  it("answers 200 plain text `<expiresAtUnix>.<base58 ed25519>` over `OFAC:<network>:<wallet>:<expiresAtUnix>`, verifying against the public key and expiring at +120 s", async () => {
    const before = Math.floor(Date.now() / 1000);
    const r = await ofac(aliceToken);
    const after = Math.floor(Date.now() / 1000);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(r.headers.get("cache-control")).toBe("no-store");
    const m = /^(\d+)\.([1-9A-HJ-NP-Za-km-z]{86,88})$/.exec(r.text);
    expect(m).not.toBeNull();
    const expiresAt = Number(m![1]);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 120);
    expect(expiresAt).toBeLessThanOrEqual(after + 120);

    // Checked by hand, as an on-chain program would: ed25519 over the exact UTF-8 text.
    const sig = parseSignature(m![2]);
    const key = parsePublicKey(publicKey);
    expect(sig.ok && key.ok && nacl.sign.detached.verify(enc.encode(`OFAC:mainnet:${alice.address}:${expiresAt}`), sig.value, key.value)).toBe(true);
    // ... and by the verifier helper the SDK exports.
    expect(verifyComplianceSignature(r.text, { publicKey, network: "mainnet", wallet: alice.address, nowSec: after })).toEqual({
      ok: true,
      value: { expiresAt, remainingSec: expiresAt - after },
    });
    expect(verifyComplianceSignature(r.text, { publicKey, network: "mainnet", wallet: alice.address, nowSec: expiresAt - 1 }).ok).toBe(true);
    expect(verifyComplianceSignature(r.text, { publicKey, network: "mainnet", wallet: alice.address, nowSec: expiresAt })).toMatchObject({
      ok: false,
      error: { reason: "expired" },
    });
    expect(verifyComplianceSignature(r.text, { publicKey, network: "devnet", wallet: alice.address, nowSec: after })).toMatchObject({
      ok: false,
      error: { reason: "invalid-signature" },
    });
    expect(verifyComplianceSignature(r.text, { publicKey, network: "mainnet", wallet: mallory.address, nowSec: after })).toMatchObject({
      ok: false,
      error: { reason: "invalid-signature" },
    });
  });

  it("signs for the path's network: a devnet signature is not a mainnet one", async () => {
    const r = await ofac(aliceToken, "devnet");
    expect(r.status).toBe(200);
    expect(verifyComplianceSignature(r.text, { publicKey, network: "devnet", wallet: alice.address }).ok).toBe(true);
    expect(verifyComplianceSignature(r.text, { publicKey, network: "mainnet", wallet: alice.address }).ok).toBe(false);
  });

  it('answers 401 { error: "Unauthorized" } JSON for an unknown or malformed token', async () => {
    for (const token of ["7d444840-9dc0-11d1-b245-5ffdce74fad2", "garbage", aliceToken.replace(/.$/, (c) => (c === "0" ? "1" : "0"))]) {
      const r = await ofac(token);
      expect(r.status).toBe(401);
      expect(r.headers.get("content-type")).toMatch(/^application\/json/);
      expect(r.json).toEqual({ error: "Unauthorized" });
    }
  });

  it("answers 400 InvalidNetwork for a network other than mainnet or devnet", async () => {
    const r = await ofac(aliceToken, "testnet");
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: "InvalidNetwork" });
  });

  it("answers 403 `OFAC check failed` for a wallet an operator added to the list (npm run sanctions), across a restart, without touching others", async () => {
    const dataDir = relay.dataDir;
    await relay.stop();
    const added = await sanctionsAdmin(dataDir, ["add", mallory.address, "--reason", "test: linked to a sanctioned mixer"]);
    expect(added).toMatchObject({ code: 0, stdout: expect.stringContaining(`listed ${mallory.address}`) });
    expect(await sanctionsAdmin(dataDir, ["add", mallory.address])).toMatchObject({ code: 2, stderr: expect.stringContaining("--reason") });
    relay = await startRelay({ RELAY_OPERATOR_TOKEN: OPERATOR }, dataDir);

    const r = await ofac(malloryToken);
    expect(r.status).toBe(403);
    expect(r.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(r.text).toBe("OFAC check failed");
    // The key, the tokens and everyone else's answers survive the restart.
    expect(((await get(`${relay.url}/compliance/public_key`)).json as { publicKey: string }).publicKey).toBe(publicKey);
    const ok = await ofac(aliceToken);
    expect(ok.status).toBe(200);
    expect(verifyComplianceSignature(ok.text, { publicKey, network: "mainnet", wallet: alice.address }).ok).toBe(true);
  });

  it("stores every refusal in the database with wallet, network and list version, and no signature issued (the audit log is off by default)", async () => {
    const status = (await get(`${relay.url}/health/detail`, { authorization: `Bearer ${OPERATOR}` })).json as { checks: { name: string; detail: string }[] };
    const inForce = /version ([0-9a-f]{16}\+[0-9a-f]{8})/.exec(status.checks.find((c) => c.name === "sanctions")!.detail)![1]!;
    const dataDir = relay.dataDir;
    await relay.stop();
    const rows = await withStoppedDb(dataDir, (db) => ({
      decisions: db.all<{ purpose: string; network: string; address: string; outcome: string; list_version: string; expires_at: number | null }>(
        "SELECT purpose, network, address, outcome, list_version, expires_at FROM compliance_decisions WHERE purpose = 'ofac_signature' ORDER BY id",
      ),
      versions: db.all<{ version: string; base_version: string; overrides: number; source: string }>(
        "SELECT version, base_version, overrides, source FROM sanctions_versions",
      ),
      overrides: db.all<{ address: string; action: string; reason: string }>("SELECT address, action, reason FROM sanctions_overrides"),
    }));
    relay = await startRelay({ RELAY_OPERATOR_TOKEN: OPERATOR }, dataDir);

    // Any fresh wallet can ask for a signature: they are counted (tests/http/junk-rows.http.test.ts), not stored.
    expect(rows.decisions.filter((d) => d.outcome === "issued")).toEqual([]);
    const refused = rows.decisions.filter((d) => d.outcome === "refused");
    expect(refused).toEqual([
      { purpose: "ofac_signature", network: "mainnet", address: mallory.address, outcome: "refused", list_version: inForce, expires_at: null },
    ]);
    // The version of a decision names the loaded list and the overrides; the list's row says where it came from.
    const v = rows.versions.find((x) => x.version === inForce)!;
    expect(v).toMatchObject({ overrides: 1, source: expect.stringMatching(/sanctioned_addresses_SOL\.txt$/) });
    expect(inForce.startsWith(v.base_version)).toBe(true);
    expect(rows.overrides).toEqual([{ address: mallory.address, action: "add", reason: "test: linked to a sanctioned mixer" }]);
  });

  it("refuses the 31st request in a minute with 429 RateLimited, counted per address and per wallet", async () => {
    const w = newWallet();
    const token = await login(relay.url, w);
    for (let i = 0; i < 30; i++) expect((await ofac(token)).status).toBe(200);
    const r = await ofac(token);
    expect(r.status).toBe(429);
    expect(r.json).toEqual({ error: "RateLimited" });
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    // Counted per client address and per wallet: the same wallet from another address is
    // still refused, another wallet from another address is served.
    const from = (token: string, address: string) => rawRequest(`${relay.url}/get_ofac_signature/mainnet/${token}`, { localAddress: address });
    expect((await from(token, "127.0.0.41")).status).toBe(429);
    expect((await from(aliceToken, "127.0.0.42")).status).toBe(200);
  });
});

describe("POST /get_ofac_signature with no list to consult", () => {
  it("answers 500 `Compliance check error` (and /health 503 naming the list) until a version loads; an expired token is still 401", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const cfg = configFile({ auth: { tokenTtlSec: 2 }, sanctions: { url: `http://127.0.0.1:${port}/sol.txt`, refreshIntervalSec: 3600, fetchTimeoutSec: 2 } });
    const broken = await startRelay({ RELAY_CONFIG: cfg, RELAY_RATE_LIMITS: "off" });
    try {
      expect(broken.output()).toMatch(/sanctions: NO LIST LOADED/);
      const w = newWallet();
      const token = await login(broken.url, w);
      const r = await post(`${broken.url}/get_ofac_signature/mainnet/${token}`);
      expect(r.status).toBe(500);
      expect(r.text).toBe("Compliance check error");
      const health = await get(`${broken.url}/health`);
      expect(health.status).toBe(503);
      expect(health.text).toMatch(/sanctions: no list loaded/);
      await new Promise((res) => setTimeout(res, 3100));
      const expired = await post(`${broken.url}/get_ofac_signature/mainnet/${token}`);
      expect(expired.status).toBe(401);
      expect(expired.json).toEqual({ error: "Unauthorized" });
    } finally {
      await broken.stop();
      const rows = await withStoppedDb(broken.dataDir, (db) =>
        db.all<{ outcome: string; list_version: string | null }>("SELECT outcome, list_version FROM compliance_decisions"),
      );
      // A list error is counted, not stored, without the audit log.
      expect(rows).toEqual([]);
      broken.cleanup();
    }
  });
});
