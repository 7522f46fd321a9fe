import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { trackOpenResources } from "../tests/support/open-resources";
import { loadConfig } from "../src-server/config/load";
import { startServer } from "../src-server/index";
import { createRelayController } from "./relay-control";

vi.mock("electron", () => ({})); // the controller and the server need no Electron

const dir = mkdtempSync(path.join(tmpdir(), "relay-restart-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the desktop relay controller over a real in-process relay", () => {
  it("a restart after a start that failed part-way runs one verifier worker and leaves no old timer behind", async () => {
    const configFile = path.join(dir, "relay.json");
    writeFileSync(configFile, JSON.stringify({ verifier: { threads: 1 }, alerts: { enabled: true } }));
    const config = loadConfig({
      RELAY_CONFIG: configFile,
      RELAY_HOST: "127.0.0.1",
      RELAY_PORT: "0",
      RELAY_DATA_DIR: path.join(dir, "data"),
      RELAY_RATE_LIMITS: "off",
    });
    const open = trackOpenResources();
    try {
      let failNext = true;
      const ctrl = createRelayController(() =>
        startServer(config, {
          log: () => {},
          // The indexer and the chains are up when the start fails (the last step but one).
          afterStep: (step) => {
            if (step === "retention" && failNext) throw new Error("injected: retention failed to start");
          },
        }),
      );
      await expect(ctrl.start()).rejects.toThrow("injected");
      expect(ctrl.phase()).toBe("stopped");
      expect(open.workers()).toBe(0);
      expect(open.timers()).toBe(0);

      failNext = false;
      await ctrl.start();
      expect(ctrl.phase()).toBe("running");
      // The verifier's, which boots once the start is done (the frontier lane starts with the first sandbox deposit).
      await vi.waitFor(() => expect(open.workers()).toBe(1), { timeout: 10_000 });
      expect(open.timers()).toBeGreaterThan(0);

      await ctrl.stop();
      expect(open.workers()).toBe(0);
      expect(open.timers()).toBe(0);
    } finally {
      open.restore();
    }
  });
});
