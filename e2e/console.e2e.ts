/**
 * The operator console, end to end: the real headless relay started the way operators
 * start it (`node scripts/start.mjs`), the console opened in Chromium at
 * /console/, signed in with the operator token, its pages compared with what the API
 * says. Needs Chromium at /usr/bin/chromium (never skipped). Screenshots are taken by
 * admin-console.e2e.ts.
 */
import { rmSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytesToHex, shortHex } from "../src-renderer/lib/format";
import { adminHealth } from "../src-shared/api/admin";
import { healthDetail } from "../src-shared/api/public";
import { freshDataDir, openPage, signIn, stopRelay, type Relay, startRelayAndBrowser } from "./support";

const TOKEN = "console-e2e-operator-token-7f3a9c";
const POOLS = [
  { symbol: "SOL", mint: "So11111111111111111111111111111111111111112" },
  { symbol: "USDC", mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" },
] as const;
const NETWORKS = ["mainnet", "devnet"] as const;

describe("operator console (headless, Chromium)", () => {
  let dataDir: string;
  let relay: Relay | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    dataDir = freshDataDir("console");
    ({ relay, browser } = await startRelayAndBrowser(dataDir, { RELAY_OPERATOR_TOKEN: TOKEN }));
    const context = await browser!.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: "light" });
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    const opened = await openPage(context);
    page = opened.page;
    pageErrors = opened.errors;
  });

  afterAll(async () => {
    await browser?.close();
    if (relay) await stopRelay(relay);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("Health shows every check, the version and the API address", async () => {
    const { url } = relay!;
    const answer = healthDetail(await (await fetch(`${url}/health/detail`, { headers: { authorization: `Bearer ${TOKEN}` } })).json());
    if (!answer.ok) throw new Error(`/health/detail: ${answer.error}`);
    const detail = answer.value;
    const version = (await (await fetch(`${url}/version`)).text()).trim();
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(detail.checks.length).toBeGreaterThan(0);

    await signIn(page, url, TOKEN);
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
    if ((detail.networks ?? []).some((n) => n.sandbox)) await page.locator(".sandbox-badge").waitFor();

    // The embedded store has one instance: the one that answered, named by its host and pid.
    const admin = adminHealth(await (await fetch(`${url}/admin/health`, { headers: { authorization: `Bearer ${TOKEN}` } })).json());
    if (!admin.ok) throw new Error(`/admin/health: ${admin.error}`);
    const { cluster } = admin.value;
    expect(cluster.engine).toBe("sqljs");
    expect(cluster.instances).toEqual([expect.objectContaining({ id: cluster.self, self: true })]);
    const instances = page.getByTestId("instances-panel");
    await instances.getByText("One instance (embedded sql.js store)").waitFor();
    await instances.getByText("this instance").waitFor();
    await instances.getByText(`pid ${cluster.instances[0]!.pid}`).waitFor();
    await instances.getByText(cluster.self.slice(-8)).waitFor();
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
        const facts = card.locator(".pool-facts");
        expect(await card.locator(".state-error").count(), `${pool.symbol} on ${network} shows an error`).toBe(0);
        if (res.status === 404) {
          expect(await res.json()).toEqual({ error: "PoolNotFound" });
          await card.getByText("No pool yet").waitFor();
        } else {
          expect(res.status).toBe(200);
          const body = (await res.json()) as { address: string; json: { root: number[]; nextIndex: number } };
          roots.set(`${network}:${pool.symbol}`, bytesToHex(body.json.root));
          await facts.getByText(shortHex(bytesToHex(body.json.root))).waitFor();
          await facts.getByTitle(body.address).waitFor();
          expect(await card.getByTestId("next-index").textContent()).toBe(body.json.nextIndex.toLocaleString("en-US"));
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
    expect(pageErrors).toEqual([]);
  });

  it("inside the desktop app, takes the API address and the operator token from the preload bridge", async () => {
    const { url } = relay!;
    for (const token of [TOKEN, null]) {
      const context = await browser!.newContext({ viewport: { width: 1280, height: 860 } });
      // The shape src-preload exposes as window.relayDesktop (see src-preload/api.ts).
      await context.addInitScript(
        ({ base, token }) => {
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
              getOperatorToken: async () => token,
            }),
          });
        },
        { base: url, token },
      );
      const { page: desktop, errors } = await openPage(context);
      await desktop.goto(`${url}/console/#/health`);
      if (token) {
        // Signed in by the host: no form, and nothing written to the tab's storage.
        await desktop.getByText("Signed in by the desktop app").waitFor();
        await desktop.getByRole("heading", { level: 2, name: "Desktop app" }).waitFor();
        await desktop.getByText("/home/operator/.config/private-withdrawal-relay", { exact: true }).waitFor();
        await desktop.getByRole("list", { name: "Health checks" }).waitFor();
        expect(await desktop.evaluate("sessionStorage.length")).toBe(0);
      } else {
        // A host that keeps only the token's hash: the operator types it.
        await desktop.getByLabel("Operator token").waitFor();
      }
      await context.close();
      expect(errors).toEqual([]);
    }
  });

  it("the relay stops gracefully on SIGTERM, through start.mjs", async () => {
    relay!.child.kill("SIGTERM");
    const { code, signal } = await relay!.exited;
    expect({ code, signal }, relay!.output()).toEqual({ code: 0, signal: null });
  });
});
