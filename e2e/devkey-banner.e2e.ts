/**
 * A solana network allowed to run on the development verifying key (published seed): the
 * relay says so at start, /admin/health flags the network, and the console shows a red
 * banner on every page (docs/security.md, "Development verifying key"). The relay runs on
 * the local validator, started the way operators start it (`node scripts/start.mjs`).
 */
import { writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminHealth } from "../src-shared/api/admin";
import { solanaRelayConfig, startLocalnet, type Localnet } from "../tests/support/localnet";
import { freshDataDir, signIn, stopRelay, type Relay, startRelayAndBrowser, openConsolePage } from "./support";

const TOKEN = "devkey-e2e-operator-token-5b81d0";

describe("the development verifying key banner (local validator, Chromium)", () => {
  let net: Localnet | undefined;
  let dataDir: string;
  let relay: Relay | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    dataDir = freshDataDir("devkey");
    net = await startLocalnet();
    const config = join(dataDir, "relay.json");
    writeFileSync(config, JSON.stringify(solanaRelayConfig(net)));
    ({ relay, browser } = await startRelayAndBrowser(join(dataDir, "data"), { RELAY_CONFIG: config, RELAY_OPERATOR_TOKEN: TOKEN }));
    const opened = await openConsolePage(browser!);
    page = opened.page;
    pageErrors = opened.errors;
  });

  afterAll(async () => {
    await browser?.close();
    if (relay) await stopRelay(relay);
    await net?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("is announced at start and flagged by /admin/health for that network only", async () => {
    expect(relay!.output()).toMatch(
      /WARNING: mainnet \(solana\) verifies proofs with the DEVELOPMENT verifying key .*allowed by networks\.mainnet\.allowDevelopmentVerifyingKey/,
    );
    const health = (await (await fetch(`${relay!.url}/admin/health`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as AdminHealth;
    expect(health.networks.map((n) => [n.name, n.backend, n.developmentVerifyingKey])).toEqual([
      ["mainnet", "solana", true],
      ["devnet", "sandbox", false],
    ]);
  });

  it("shows a red banner naming the network on every page of the console", async () => {
    await signIn(page, relay!.url, TOKEN);
    for (const [hash, heading] of [
      ["health", "Health"],
      ["relays", "Relays"],
      ["relays/rejected", "Rejected relays"],
      ["settings", "Settings"],
    ] as const) {
      await page.goto(`${relay!.url}/console/#/${hash}`);
      await page.getByRole("heading", { level: 1, name: heading }).waitFor();
      const banner = page.getByTestId("devkey-banner");
      await banner.waitFor();
      expect(await banner.getAttribute("role")).toBe("alert");
      expect(await banner.textContent()).toMatch(/Development verifying key on mainnet.*anyone can forge proofs/);
    }
    // Red: the console's --bad colour (#b42318) as its border.
    const color = await page
      .getByTestId("devkey-banner")
      .evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { borderTopColor: string } }).getComputedStyle(el).borderTopColor);
    expect(color).toBe("rgb(180, 35, 24)");
    expect(pageErrors).toEqual([]);
  });
});
