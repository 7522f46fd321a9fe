/**
 * The operator console, end to end: the real headless relay started the way operators
 * start it (`node scripts/start.mjs`, DESIGN §7), the console opened in Chromium at
 * /console/, its pages compared with what the API says, a screenshot per page saved
 * under docs/screenshots/. Needs Chromium at /usr/bin/chromium (never skipped).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytesToHex, shortHex } from "../src-renderer/lib/format";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
const root = fileURLToPath(new URL("..", import.meta.url));
const screenshots = join(root, "docs", "screenshots");
const POOLS = [
  { symbol: "SOL", mint: "So11111111111111111111111111111111111111112" },
  { symbol: "USDC", mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" },
] as const;
const NETWORKS = ["mainnet", "devnet"] as const;

interface Relay {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `node scripts/start.mjs` on a free port with a fresh data dir; resolves on `listening on http://...`. */
function startRelay(dataDir: string, timeoutMs = 100_000): Promise<Relay> {
  const env: NodeJS.ProcessEnv = { ...process.env, RELAY_PORT: "0", RELAY_HOST: "127.0.0.1", RELAY_DATA_DIR: dataDir };
  delete env.RELAY_CONFIG;
  const child = spawn(process.execPath, ["scripts/start.mjs"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const output = () => out;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return new Promise<Relay>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stopRelay({ child, exited });
      reject(new Error(`no "listening on" line within ${timeoutMs} ms; output:\n${out}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/[^\s)]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!.replace(/\/$/, ""), output, exited });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the relay exited (code ${code}, signal ${signal}) before listening; output:\n${out}`));
    });
  });
}

/**
 * SIGTERM first: start.mjs forwards it to the server, which stops gracefully. SIGKILL
 * only as a last resort, since it cannot be forwarded and would orphan the server.
 */
async function stopRelay(relay: Pick<Relay, "child" | "exited">, graceMs = 15_000): Promise<void> {
  const { child } = relay;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await relay.exited;
  clearTimeout(timer);
}

interface HealthDetail {
  status: string;
  checks: { name: string; ok: boolean; detail: string }[];
  version: string;
  networks: { name: string; backend: string; sandbox: boolean }[];
}

describe("operator console (headless, Chromium)", () => {
  let dataDir: string;
  let relay: Relay | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is required at ${CHROMIUM} for the console e2e test and was not found. ` +
          "Install it with: apt-get update && apt-get install -y chromium",
      );
    }
    mkdirSync(join(root, "e2e", ".tmp"), { recursive: true });
    dataDir = mkdtempSync(join(root, "e2e", ".tmp", "console-"));
    mkdirSync(screenshots, { recursive: true });
    const [started, launched] = await Promise.allSettled([
      startRelay(dataDir),
      chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS }),
    ]);
    if (started.status === "fulfilled") relay = started.value;
    if (launched.status === "fulfilled") browser = launched.value;
    if (started.status === "rejected") throw started.reason;
    if (launched.status === "rejected") throw launched.reason;
    const context = await launched.value.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: "light" });
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    page = await context.newPage();
    page.on("pageerror", (err) => pageErrors.push(err.message));
    // A CSP violation is only a console message; treat it as a page error.
    page.on("console", (msg) => {
      if (/Content Security Policy/i.test(msg.text())) pageErrors.push(msg.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    if (relay) await stopRelay(relay);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("Health shows every check, the version and the API address", async () => {
    const { url } = relay!;
    const detail = (await (await fetch(`${url}/health/detail`)).json()) as HealthDetail;
    const version = (await (await fetch(`${url}/version`)).text()).trim();
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(detail.checks.length).toBeGreaterThan(0);

    await page.goto(`${url}/console/`);
    await page.getByRole("heading", { level: 1, name: "Health" }).waitFor();
    const checks = page.getByRole("list", { name: "Health checks" });
    await checks.waitFor();
    for (const check of detail.checks) {
      const row = checks.locator(`[data-check="${check.name}"]`);
      await row.waitFor();
      expect(await row.locator(".badge").textContent()).toMatch(/^(Pass|Fail)$/);
    }
    expect(await checks.getByRole("listitem").count()).toBe(detail.checks.length);
    await page.getByTestId("relay-version").filter({ hasText: version }).waitFor();
    await page.getByText(url, { exact: true }).first().waitFor();
    await page.getByText(/Updated \d\d:\d\d:\d\d/).waitFor();
    if (detail.networks.some((n) => n.sandbox)) await page.locator(".sandbox-badge").waitFor();

    await page.screenshot({ path: join(screenshots, "health.png"), fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it("Pools shows root, next index and tree account of each default pool, or that it has none", async () => {
    const { url } = relay!;
    await page.getByRole("link", { name: "Pools" }).click();
    await page.getByRole("heading", { level: 1, name: "Pools" }).waitFor();
    expect(new URL(page.url()).hash).toBe("#/pools");

    const roots = new Map<string, string>();
    for (const network of NETWORKS) {
      for (const pool of POOLS) {
        const res = await fetch(`${url}/get_merkle/${pool.mint}/32/${network}`, { method: "POST" });
        const card = page.locator(`[data-pool="${network}:${pool.symbol}"]`);
        // Settled: facts, the empty state, or an error.
        await card.locator(".pool-facts, .state-empty, .state-error").first().waitFor();
        expect(await card.locator(".state-error").count(), `${pool.symbol} on ${network} shows an error`).toBe(0);
        if (res.status === 404) {
          expect(await res.json()).toEqual({ error: "PoolNotFound" });
          await card.getByText("No pool yet").waitFor();
        } else {
          expect(res.status).toBe(200);
          const body = (await res.json()) as { address: string; json: { root: number[]; nextIndex: number } };
          roots.set(`${network}:${pool.symbol}`, bytesToHex(body.json.root));
          await card.getByText(shortHex(bytesToHex(body.json.root))).waitFor();
          await card.getByTitle(body.address).waitFor();
          expect(await card.locator(".pool-count").textContent()).toMatch(/^[\d,]+$/);
        }
      }
    }

    // Copy gives the full value, not the shortened one on screen.
    for (const [key, root] of [...roots].slice(0, 1)) {
      const copyRoot = page.locator(`[data-pool="${key}"]`).getByRole("button", { name: /^Copy root of/ });
      await copyRoot.click();
      await copyRoot.filter({ hasText: "Copied" }).waitFor();
      expect(await page.evaluate("navigator.clipboard.readText()")).toBe(root);
    }
    await page.waitForTimeout(1_600); // let "Copied" fade before the screenshot

    await page.screenshot({ path: join(screenshots, "pools.png"), fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it("inside the desktop app, takes the API address from the preload bridge", async () => {
    const { url } = relay!;
    const context = await browser!.newContext({ viewport: { width: 1280, height: 860 } });
    // The shape src-preload exposes as window.relayDesktop (see src-preload/api.ts).
    await context.addInitScript(
      ({ base }) => {
        Object.defineProperty(globalThis, "relayDesktop", {
          value: Object.freeze({
            getApiBase: async () => base,
            getAppInfo: async () => ({
              name: "private-withdrawal-relay",
              version: "0.1.0",
              electron: "41.7.1",
              chrome: "146.0.0.0",
              node: "24.14.0",
              platform: "linux",
              dataDir: "/home/operator/.config/private-withdrawal-relay",
            }),
          }),
        });
      },
      { base: url },
    );
    const desktop = await context.newPage();
    const errors: string[] = [];
    desktop.on("pageerror", (err) => errors.push(err.message));
    await desktop.goto(`${url}/console/#/health`);
    await desktop.getByRole("heading", { level: 2, name: "Desktop app" }).waitFor();
    await desktop.getByText("/home/operator/.config/private-withdrawal-relay", { exact: true }).waitFor();
    await desktop.getByRole("list", { name: "Health checks" }).waitFor();
    await context.close();
    expect(errors).toEqual([]);
  });

  it("the relay stops gracefully on SIGTERM, through start.mjs", async () => {
    relay!.child.kill("SIGTERM");
    const { code, signal } = await relay!.exited;
    expect({ code, signal }, relay!.output()).toEqual({ code: 0, signal: null });
  });
});
