import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HealthCheck } from "../../src-shared/api/public";
import { configFile, login, sanctionsAdmin, waitFor } from "../support/compliance";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { get, newWallet, post, type TestWallet } from "../support/wallet";

const BUNDLED = readFileSync(new URL("../../resources/sanctions/sanctioned_addresses_SOL.txt", import.meta.url), "utf8");

/** The operator's health view runs every check now (the public /health/detail reuses a report for 5 s). */
const OPERATOR = "sanctions-test-operator-token-0123";
const sanctionsHealth = async (url: string): Promise<HealthCheck> =>
  ((await get(`${url}/admin/health`, { authorization: `Bearer ${OPERATOR}` })).json as { checks: HealthCheck[] }).checks.find((c) => c.name === "sanctions")!;
const versionOf = (c: HealthCheck): string => /version ([0-9a-f+]+)\)/.exec(c.detail)![1]!;
const ofacStatus = async (url: string, token: string): Promise<number> => (await post(`${url}/get_ofac_signature/mainnet/${token}`)).status;

describe("a sanctions list file, reloaded without a restart", () => {
  let relay: RelayProcess;
  let dir: string;
  let listFile: string;
  let w: TestWallet;
  let token: string;
  const writeList = (text: string): void => {
    // As an operator's tooling would: write aside, then rename over.
    writeFileSync(`${listFile}.new`, text);
    renameSync(`${listFile}.new`, listFile);
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "sanctions-file-"));
    listFile = path.join(dir, "sol.txt");
    writeFileSync(listFile, BUNDLED);
    relay = await startRelay({
      RELAY_CONFIG: configFile({ sanctions: { file: listFile, filePollSec: 1 } }),
      RELAY_RATE_LIMITS: "off",
      RELAY_OPERATOR_TOKEN: OPERATOR,
    });
    w = newWallet();
    token = await login(relay.url, w);
  });
  afterAll(async () => {
    await relay?.stop();
    relay?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts with the file's list and its version", async () => {
    const c = await sanctionsHealth(relay.url);
    expect(c).toMatchObject({ ok: true, detail: expect.stringContaining(`4 addresses (version`) });
    expect(c.detail).toContain(listFile);
    expect(await ofacStatus(relay.url, token)).toBe(200);
  });

  it("lists a wallet appended to the file within seconds, and unlists it when removed, in the same process", async () => {
    const pid = relay.child.pid;
    const v0 = versionOf(await sanctionsHealth(relay.url));
    writeList(`${BUNDLED}\n# added by the test\n${w.address}\n`);
    await waitFor("the appended wallet to be refused", async () => (await ofacStatus(relay.url, token)) === 403, 10_000);
    const v1 = versionOf(await sanctionsHealth(relay.url));
    expect(v1).not.toBe(v0);
    expect((await sanctionsHealth(relay.url)).detail).toContain("5 addresses");
    expect(relay.output()).toMatch(new RegExp(`sanctions: loaded 5 addresses from .*sol\\.txt \\(list version ${v1}\\)`));

    writeList(BUNDLED);
    await waitFor("the wallet to be clear again", async () => (await ofacStatus(relay.url, token)) === 200, 10_000);
    expect(versionOf(await sanctionsHealth(relay.url))).toBe(v0); // the same list is the same version
    expect(relay.child.pid).toBe(pid);
    expect(relay.child.exitCode).toBeNull();
  });

  it("keeps the last good version while the file is broken, says so in /health/detail, and recovers", async () => {
    writeList(`${BUNDLED}\n${w.address}\n`);
    await waitFor("the wallet to be refused", async () => (await ofacStatus(relay.url, token)) === 403, 10_000);
    const good = versionOf(await sanctionsHealth(relay.url));
    writeList(`${w.address}\n0x8589427373D6D84E98730D7795D8f6f8731FDA16\n`);
    const broken = await waitFor("the refresh error", async () => {
      const c = await sanctionsHealth(relay.url);
      return c.detail.includes("last refresh failed") ? c : null;
    });
    expect(broken).toMatchObject({ ok: true, detail: expect.stringMatching(/line 2: not a Solana address/) });
    expect(versionOf(broken)).toBe(good);
    expect(await ofacStatus(relay.url, token)).toBe(403);
    writeList(BUNDLED);
    await waitFor("recovery", async () => (await ofacStatus(relay.url, token)) === 200, 10_000);
    expect((await sanctionsHealth(relay.url)).detail).not.toContain("last refresh failed");
  });

  it("lets an operator's removal win over the file, with its reason, across restarts", async () => {
    const listed = newWallet();
    writeList(`${BUNDLED}\n${listed.address}\n`);
    const t = await login(relay.url, listed);
    await waitFor("the listed wallet to be refused", async () => (await ofacStatus(relay.url, t)) === 403, 10_000);

    const dataDir = relay.dataDir;
    await relay.stop();
    expect(await sanctionsAdmin(dataDir, ["remove", listed.address, "--reason", "false positive: ticket 1234"])).toMatchObject({ code: 0 });
    const env = { RELAY_CONFIG: configFile({ sanctions: { file: listFile, filePollSec: 1 } }), RELAY_RATE_LIMITS: "off", RELAY_OPERATOR_TOKEN: OPERATOR };
    relay = await startRelay(env, dataDir);
    expect(await ofacStatus(relay.url, t)).toBe(200);
    expect((await sanctionsHealth(relay.url)).detail).toMatch(/version [0-9a-f]{16}\+[0-9a-f]{8}/);

    await relay.stop();
    const history = await sanctionsAdmin(dataDir, ["history", listed.address, "--json"]);
    expect(JSON.parse(history.stdout)).toEqual([expect.objectContaining({ address: listed.address, change: "remove", reason: "false positive: ticket 1234" })]);
    expect(await sanctionsAdmin(dataDir, ["clear", listed.address, "--reason", "ticket 1234 reopened"])).toMatchObject({ code: 0 });
    relay = await startRelay(env, dataDir);
    expect(await ofacStatus(relay.url, t)).toBe(403);
  });
});

describe("a sanctions list URL (plain http on 127.0.0.1 in tests; https in production)", () => {
  let server: Server;
  let body = BUNDLED;
  let failing = false;
  let relay: RelayProcess;
  let w: TestWallet;
  let token: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (failing) return void res.writeHead(500).end("upstream down");
      const etag = `"${createHash("sha256").update(body).digest("hex").slice(0, 16)}"`;
      if (req.headers["if-none-match"] === etag) return void res.writeHead(304).end();
      res.writeHead(200, { "content-type": "text/plain", etag }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sanctioned_addresses_SOL.txt`;
    env = {
      RELAY_CONFIG: configFile({ sanctions: { url, refreshIntervalSec: 1, fetchTimeoutSec: 2 } }),
      RELAY_RATE_LIMITS: "off",
      RELAY_OPERATOR_TOKEN: OPERATOR,
    };
    relay = await startRelay(env);
    w = newWallet();
    token = await login(relay.url, w);
  });
  afterAll(async () => {
    await relay?.stop();
    relay?.cleanup();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it("loads the served list at start", async () => {
    const c = await sanctionsHealth(relay.url);
    expect(c).toMatchObject({ ok: true, detail: expect.stringContaining("4 addresses") });
    expect(c.detail).toContain("http://127.0.0.1:");
    expect(await ofacStatus(relay.url, token)).toBe(200);
  });

  it("follows a change of the served list within seconds, keeps the last good version while the server fails, and starts from its cached copy", async () => {
    body = `${BUNDLED}\n${w.address}\n`;
    await waitFor("the served wallet to be refused", async () => (await ofacStatus(relay.url, token)) === 403, 10_000);
    const good = versionOf(await sanctionsHealth(relay.url));

    failing = true;
    const c = await waitFor("the fetch error", async () => {
      const s = await sanctionsHealth(relay.url);
      return s.detail.includes("HTTP 500") ? s : null;
    });
    expect(versionOf(c)).toBe(good);
    expect(await ofacStatus(relay.url, token)).toBe(403);

    // A restart while the server still fails: the copy cached in the data dir is the list in force.
    const dataDir = relay.dataDir;
    await relay.stop();
    relay = await startRelay(env, dataDir);
    expect(versionOf(await sanctionsHealth(relay.url))).toBe(good);
    expect(await ofacStatus(relay.url, token)).toBe(403);

    failing = false;
    body = BUNDLED;
    await waitFor("the wallet to be clear again", async () => (await ofacStatus(relay.url, token)) === 200, 10_000);
    expect((await sanctionsHealth(relay.url)).detail).not.toContain("last refresh failed");
  });

  it("refuses to start with a plain-http URL that is not loopback, naming the key", async () => {
    const cfg = configFile({ sanctions: { url: "http://lists.example.com/sol.txt" } });
    await expect(startRelay({ RELAY_CONFIG: cfg })).rejects.toThrow(/config sanctions\.url: must be https/);
  });
});
