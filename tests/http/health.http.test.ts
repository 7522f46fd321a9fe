import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src-server/config/load";
import { startServer, type RunningServer } from "../../src-server/index";
import { get } from "../support/wallet";

let server: RunningServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "relay-health-"));
  server = await startServer(loadConfig({ RELAY_PORT: "0", RELAY_DATA_DIR: dir }), { log: () => {} });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("GET /health", () => {
  it("answers 200 ok while every check passes, 503 naming the failed check while the store fails, and recovers", async () => {
    const ok = await get(`${server.url}/health`);
    expect(ok.status).toBe(200);
    expect(ok.text).toBe("ok");

    // Fault injection: the store stops answering queries.
    const db = server.relay.db;
    const original = db.get.bind(db);
    db.get = (() => {
      throw new Error("disk I/O error");
    }) as typeof db.get;
    try {
      const bad = await get(`${server.url}/health`);
      expect(bad.status).toBe(503);
      expect(bad.text).toMatch(/^unhealthy: store: disk I\/O error/);
      const detail = await get(`${server.url}/health/detail`);
      expect(detail.status).toBe(503);
      expect(detail.json).toMatchObject({ status: "degraded" });
    } finally {
      db.get = original;
    }
    expect((await get(`${server.url}/health`)).status).toBe(200);
  });

  it("labels sandbox networks as such in /health/detail", async () => {
    const detail = (await get(`${server.url}/health/detail`)).json as { networks: { name: string; backend: string; sandbox: boolean }[]; version: string };
    expect(detail.networks).toEqual([
      expect.objectContaining({ name: "mainnet", backend: "sandbox", sandbox: true }),
      expect.objectContaining({ name: "devnet", backend: "sandbox", sandbox: true }),
    ]);
    expect(detail.version).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
