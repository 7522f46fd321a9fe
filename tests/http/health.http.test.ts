import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src-server/config/load";
import { startServer, type RunningServer } from "../../src-server/index";
import { HEALTH_CACHE_MS } from "../../src-server/services/health";
import { waitFor } from "../support/compliance";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { get } from "../support/wallet";

const OPERATOR = "health-test-operator-token-0123456";
const asOperator = { authorization: `Bearer ${OPERATOR}` };

describe("GET /health (in process, for fault injection)", () => {
  let server: RunningServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "relay-health-"));
    server = await startServer(loadConfig({ RELAY_PORT: "0", RELAY_DATA_DIR: dir, RELAY_OPERATOR_TOKEN: OPERATOR }), { log: () => {} });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 200 ok while every check passes, 503 naming the failed check once the store fails (within one cache window), and recovers", async () => {
    const ok = await get(`${server.url}/health`);
    expect(ok.status).toBe(200);
    expect(ok.text).toBe("ok");

    // Fault injection: the store stops answering queries.
    const db = server.relay.db!;
    const original = db.get.bind(db);
    db.get = (() => {
      throw new Error("disk I/O error");
    }) as typeof db.get;
    try {
      const bad = await waitFor(
        "the next report",
        async () => {
          const r = await get(`${server.url}/health`);
          return r.status === 503 ? r : null;
        },
        HEALTH_CACHE_MS * 3,
      );
      expect(bad.text).toMatch(/^unhealthy: store: disk I\/O error/);
      const detail = await get(`${server.url}/health/detail`, asOperator);
      expect(detail.status).toBe(503);
      expect(detail.json).toMatchObject({ status: "degraded" });
    } finally {
      db.get = original;
    }
    await waitFor("recovery", async () => (await get(`${server.url}/health`)).status === 200, HEALTH_CACHE_MS * 3);
  });

  it("runs its checks at most once per 5 s window however many requests come in at once", async () => {
    const health = server.relay.health;
    const before = health.refreshCount;
    const t0 = Date.now();
    const answers = await Promise.all(Array.from({ length: 50 }, () => get(`${server.url}/health`)));
    const windows = Math.floor((Date.now() - t0) / HEALTH_CACHE_MS) + 1;
    expect(answers.every((a) => a.status === 200 || a.status === 503)).toBe(true);
    expect(health.refreshCount - before).toBeLessThanOrEqual(windows);
  });
});

describe("/health and /health/detail against the relay process", () => {
  let relay: RelayProcess;

  beforeAll(async () => {
    relay = await startRelay({ RELAY_OPERATOR_TOKEN: OPERATOR, RELAY_RATE_LIMITS: "off" });
  });
  afterAll(async () => {
    await relay?.stop();
    relay?.cleanup();
  });

  it("/health/detail answers 401 Unauthorized without the operator token or with a wrong one, as /admin does", async () => {
    const none = await get(`${relay.url}/health/detail`);
    expect(none.status).toBe(401);
    expect(none.json).toMatchObject({ error: "Unauthorized" });
    expect(JSON.stringify(none.json)).not.toMatch(/relayer|fee|balance|checks/i);
    const wrong = await get(`${relay.url}/health/detail`, { authorization: "Bearer this-is-not-the-operator-token" });
    expect(wrong.status).toBe(401);
    const admin = await get(`${relay.url}/admin/health`);
    expect(admin.status).toBe(401);
    // The spec's /health stays public.
    expect((await get(`${relay.url}/health`)).text).toBe("ok");
  });

  it("labels sandbox networks as such in /health/detail (operator) and GET /networks (public)", async () => {
    const detail = (await get(`${relay.url}/health/detail`, asOperator)).json as {
      networks: { name: string; backend: string; sandbox: boolean }[];
      version: string;
    };
    expect(detail.networks).toEqual([
      expect.objectContaining({ name: "mainnet", backend: "sandbox", sandbox: true }),
      expect.objectContaining({ name: "devnet", backend: "sandbox", sandbox: true }),
    ]);
    expect(detail.version).toMatch(/^\d+\.\d+\.\d+$/);
    const networks = await get(`${relay.url}/networks`);
    expect(networks.status).toBe(200);
    expect(networks.json).toEqual({ networks: detail.networks });
  });

  it("names the verifier's workers in /health/detail, healthy while they wait, boot or are ready", async () => {
    // The report is cached per 5 s window, so it may be from the start's first second (workers booting).
    const detail = (await get(`${relay.url}/health/detail`, asOperator)).json as { checks: { name: string; ok: boolean; detail: string }[] };
    expect(detail.checks.find((c) => c.name === "verifier")).toEqual({
      name: "verifier",
      ok: true,
      detail: expect.stringMatching(/^(workers ready|workers booting|workers boot once the start is done)$/),
    });
  });

  it("serves many requests from one report per 5 s window (the same checkedAt)", async () => {
    const t0 = Date.now();
    const answers = await Promise.all(Array.from({ length: 50 }, () => get(`${relay.url}/health/detail`, asOperator)));
    for (let i = 0; i < 20; i++) answers.push(await get(`${relay.url}/health/detail`, asOperator));
    const windows = Math.floor((Date.now() - t0) / HEALTH_CACHE_MS) + 1;
    const reports = new Set(answers.map((a) => (a.json as { checkedAt: number }).checkedAt));
    expect([...reports].every((t) => Number.isInteger(t) && t > 0)).toBe(true);
    expect(reports.size).toBeLessThanOrEqual(windows);
  });
});
