import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { _electron } from "playwright-core";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The Electron binary's path, or null where it was not downloaded (ELECTRON_SKIP_BINARY_DOWNLOAD=1). */
function electronBinary(): string | null {
  try {
    const p = createRequire(import.meta.url)("electron") as unknown;
    return typeof p === "string" && existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

const binary = electronBinary();
if (!binary) {
  console.log(
    "electron smoke test SKIPPED: no Electron binary on this machine (installed with ELECTRON_SKIP_BINARY_DOWNLOAD=1); the desktop build itself is checked by `npm run build` in test:all",
  );
}

describe.skipIf(!binary)("desktop app (real Electron)", () => {
  it("starts the relay in-process and opens the console window", async () => {
    execFileSync(process.execPath, [path.join(ROOT, "node_modules", "electron-vite", "bin", "electron-vite.js"), "build"], { cwd: ROOT, stdio: "ignore" });
    const dataDir = mkdtempSync(path.join(tmpdir(), "relay-desktop-"));
    const app = await _electron.launch({
      executablePath: binary!,
      args: [ROOT, "--no-sandbox"],
      env: { ...process.env, RELAY_PORT: "0", RELAY_DATA_DIR: dataDir, RELAY_OPERATOR_TOKEN: "desktop-smoke-operator-token" },
    });
    try {
      const page = await app.firstWindow();
      await page.waitForSelector("text=Withdrawal Relay", { timeout: 60_000 });
      expect(await page.title()).toBeTruthy();
    } finally {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
