import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { relayArgs, startRelay } from "../support/relay-process";
import { get, newWallet, post } from "../support/wallet";

/** /health/detail takes the operator token. */
const OPERATOR = "run-contract-operator-token-012345";
const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

describe("run contract (README.md: Running it)", () => {
  it("prints `listening on http://HOST:PORT` with the real port, serves /version and /health, and exits 0 on SIGTERM", async () => {
    const relay = await startRelay({ RELAY_OPERATOR_TOKEN: OPERATOR });
    try {
      expect(relay.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(relay.url.endsWith(":0")).toBe(false);
      const v = await get(`${relay.url}/version`);
      expect(v.status).toBe(200);
      expect(v.text).toBe(pkg.version);
      expect(v.text).toMatch(/^\d+\.\d+\.\d+$/);
      const h = await get(`${relay.url}/health`);
      expect(h.status).toBe(200);
      expect(h.text).toBe("ok");
      const detail = (await get(`${relay.url}/health/detail`, { authorization: `Bearer ${OPERATOR}` })).json as {
        networks: { sandbox: boolean }[];
        checks: { name: string }[];
      };
      expect(detail.networks.every((n) => n.sandbox)).toBe(true);
      expect(detail.checks.map((c) => c.name)).toEqual(expect.arrayContaining(["store", "chain:mainnet", "chain:devnet", "indexer"]));
      expect(await relay.stop()).toBe(0);
      expect(relay.output()).toContain("store flushed");
    } finally {
      relay.cleanup();
    }
  });

  it("answers 404 NotFound for unknown paths", async () => {
    const relay = await startRelay();
    try {
      const r = await post(`${relay.url}/no_such_thing`);
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ error: "NotFound" });
    } finally {
      await relay.stop();
      relay.cleanup();
    }
  });

  it("keeps logins and deposits across a graceful restart", async () => {
    const relay = await startRelay({ RELAY_RATE_LIMITS: "off" });
    const w = newWallet();
    const t = Math.floor(Date.now() / 1000);
    const { id } = (await post(`${relay.url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t })).json as { id: string };
    await relay.stop();
    const again = await startRelay({ RELAY_RATE_LIMITS: "off" }, relay.dataDir);
    try {
      expect((await get(`${again.url}/is_logged/${id}`)).json).toBe(true);
    } finally {
      await again.stop();
      again.cleanup();
    }
  });

  it("refuses a second relay on a data dir that a running relay holds, and says which process holds it", async () => {
    const relay = await startRelay();
    try {
      await expect(startRelay({}, relay.dataDir)).rejects.toThrow(/in use by process \d+/);
    } finally {
      await relay.stop();
      relay.cleanup();
    }
  });

  it("refuses to start on bad config, naming the key", async () => {
    const args = await relayArgs();
    const dir = mkdtempSync(path.join(tmpdir(), "relay-badcfg-"));
    const cfg = path.join(dir, "c.json");
    writeFileSync(cfg, JSON.stringify({ rateLimits: { perEndpoint: { get_merkle: -3 } } }));
    const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
    const r = spawnSync(process.execPath, args, {
      cwd: root,
      env: { ...process.env, RELAY_CONFIG: cfg, RELAY_PORT: "0", RELAY_DATA_DIR: dir },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("rateLimits.perEndpoint.get_merkle");
    const r2 = spawnSync(process.execPath, args, {
      cwd: root,
      env: { ...process.env, RELAY_PORT: "99999", RELAY_DATA_DIR: dir },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(r2.status).toBe(2);
    expect(r2.stderr).toContain("RELAY_PORT");
  });
});
