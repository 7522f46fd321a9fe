/**
 * The console's alerts, end to end: the headless relay (started as operators start it)
 * with fast evaluation; the sandbox fee payer drained with the drill; the badge appears
 * next to Alerts on every page, the Alerts page lists the alert and the history, and the
 * Settings page's alert rules editor saves a threshold (a bad one refused naming it).
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminAlerts } from "../src-shared/api/alerts";
import { freshDataDir, signIn, stopRelay, type Relay, startRelayAndBrowser, openConsolePage } from "./support";

const TOKEN = "alerts-e2e-operator-token-3c7d21";

describe("alerts in the operator console (headless, Chromium)", () => {
  let dataDir: string;
  let relay: Relay | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let pageErrors: string[] = [];
  const admin = async (method: string, p: string, body?: unknown) =>
    fetch(`${relay!.url}/admin${p}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    dataDir = freshDataDir("alerts");
    const config = join(dataDir, "relay.json");
    writeFileSync(config, JSON.stringify({ metrics: { feePayerSampleSec: 1 }, alerts: { evaluateSec: 1 } }));
    ({ relay, browser } = await startRelayAndBrowser(join(dataDir, "data"), { RELAY_CONFIG: config, RELAY_OPERATOR_TOKEN: TOKEN }));
    const opened = await openConsolePage(browser!);
    page = opened.page;
    pageErrors = opened.errors;
  });

  afterAll(async () => {
    await browser?.close();
    if (relay) await stopRelay(relay);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("shows the badge on every page while the fee payer is drained, and the alert on the Alerts page", async () => {
    await signIn(page, relay!.url, TOKEN);
    await page.getByRole("heading", { level: 1, name: "Health" }).waitFor();
    expect(await page.getByTestId("alerts-badge").count()).toBe(0);
    expect((await admin("POST", "/sandbox/faults", { network: "mainnet", feePayerLamports: "0" })).status).toBe(200);
    for (const [hash, heading] of [
      ["health", "Health"],
      ["relays", "Relays"],
      ["settings", "Settings"],
    ] as const) {
      await page.goto(`${relay!.url}/console/#/${hash}`);
      await page.getByRole("heading", { level: 1, name: heading }).waitFor();
      await page.getByTestId("alerts-badge").filter({ hasText: "1" }).waitFor({ timeout: 15_000 });
    }
    await page
      .getByRole("navigation", { name: "Sections" })
      .getByRole("link", { name: /^Alerts/ })
      .click();
    await page.getByRole("heading", { level: 1, name: "Alerts" }).waitFor();
    await page.getByTestId("alerts-active").getByText("Fee payer on mainnet is empty").waitFor();

    expect((await admin("POST", "/sandbox/faults", { network: "mainnet", feePayerLamports: null })).status).toBe(200);
    await page.getByText("Nothing is firing").waitFor({ timeout: 15_000 });
    await page.getByTestId("alerts-history").getByText("resolved").first().waitFor();
    expect(await page.getByTestId("alerts-badge").count()).toBe(0);
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it("saves an alert threshold from Settings and shows the relay's refusal of a bad one", async () => {
    await page.goto(`${relay!.url}/console/#/settings`);
    const form = page.getByRole("form", { name: "Alert rules" });
    await form.waitFor();
    await form.getByLabel("Fee payer runway below").fill("72");
    await form.getByRole("button", { name: "Save alert rules" }).click();
    await form.getByText("Saved.").waitFor();
    const view = (await (await admin("GET", "/alerts")).json()) as AdminAlerts;
    expect(view.rules.feePayerRunwayHours).toBe(72);
    await form.getByLabel("Relay failures above").fill("250");
    await form.getByRole("button", { name: "Save alert rules" }).click();
    await page.getByRole("alert").filter({ hasText: "rules.relayFailurePercent" }).waitFor();
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
