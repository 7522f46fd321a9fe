import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { trackOpenResources, type OpenResources } from "../tests/support/open-resources";
import { loadConfig } from "./config/load";
import { START_STEPS } from "./composition/compose-relay";
import { startServer } from "./index";
import { TeardownStack } from "./teardown";

let dir: string;
let configFile: string;
const configAt = (port = 0) =>
  loadConfig({ RELAY_CONFIG: configFile, RELAY_HOST: "127.0.0.1", RELAY_PORT: String(port), RELAY_DATA_DIR: path.join(dir, "data"), RELAY_RATE_LIMITS: "off" });

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "relay-teardown-"));
  configFile = path.join(dir, "relay.json");
  // One verifier worker per start; alerts on so their interval is part of what must close.
  writeFileSync(configFile, JSON.stringify({ verifier: { threads: 1 }, alerts: { enabled: true }, logs: { file: true } }));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a relay start that fails part-way", () => {
  let open: OpenResources;
  afterEach(() => open?.restore());

  for (const failing of START_STEPS) {
    it(`closes every verifier worker and timer it opened when the step after "${failing}" throws, and frees the data dir`, async () => {
      open = trackOpenResources();
      const seen: string[] = [];
      const start = startServer(configAt(), {
        log: () => {},
        afterStep: (step) => {
          seen.push(step);
          if (step === failing) throw new Error(`injected failure after ${step}`);
        },
      });
      await expect(start).rejects.toThrow(`injected failure after ${failing}`);
      expect(seen.at(-1)).toBe(failing);
      expect(open.workers()).toBe(0);
      expect(open.timers()).toBe(0);
      // The lock is released: the same data dir starts again, and stops with nothing left.
      const running = await startServer(configAt(), { log: () => {} });
      // The verifier's, which boots once the start is done (the sandbox's frontier lane starts with the first deposit).
      await vi.waitFor(() => expect(open.workers()).toBe(1), { timeout: 10_000 });
      expect(open.intervalsCreated()).toBeGreaterThan(0);
      await running.stop();
      expect(open.workers()).toBe(0);
      expect(open.timers()).toBe(0);
    });
  }

  it("closes the relay when listening fails (the port is taken)", async () => {
    open = trackOpenResources();
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      await expect(startServer(configAt(port), { log: () => {} })).rejects.toThrow(/EADDRINUSE/);
      expect(open.intervalsCreated()).toBeGreaterThan(0);
      expect(open.workers()).toBe(0);
      expect(open.timers()).toBe(0);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
    const running = await startServer(configAt(), { log: () => {} });
    await running.stop();
  });
});

describe("TeardownStack", () => {
  it("closes last-registered first, runs every closer when one throws, and reports the first error once", async () => {
    const lines: string[] = [];
    const stack = new TeardownStack((l) => lines.push(l));
    const order: string[] = [];
    stack.defer("a", () => order.push("a"));
    stack.defer("b", () => {
      order.push("b");
      throw new Error("b broke");
    });
    stack.defer("c", async () => {
      order.push("c");
    });
    expect(stack.names()).toEqual(["c", "b", "a"]);
    const first = stack.close();
    const second = stack.close();
    await expect(first).rejects.toThrow("b broke");
    await expect(second).rejects.toThrow("b broke");
    expect(order).toEqual(["c", "b", "a"]);
    expect(lines).toEqual(["close b failed: b broke"]);
    expect(() => stack.defer("d", () => {})).toThrow(/teardown already started/);
  });
});
