/**
 * The operator console's dashboards end to end: a real relay (`scripts/start.mjs`, its own
 * data dir, RELAY_OPERATOR_TOKEN), a real deposit and a relay with a real Groth16 proof
 * (tests/support/proofs.ts; protocol v3: a part of a note, with its change leaf), and Chromium signing in and reading every dashboard. A
 * screenshot of each dashboard lands in docs/screenshots/.
 */
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revertMessage } from "../src-shared/messages";
import { prepareWithdrawal, testRecipient, type PreparedWithdrawal } from "../tests/support/proofs";
import { sendRaw } from "../tests/support/raw-http";
import { airdrop, deposit, USDC } from "../tests/support/sandbox";
import { newWallet, post, type TestWallet } from "../tests/support/wallet";
import { freshDataDir, openPage, screenshots, signIn, stopRelay, type Relay, startRelayAndBrowser } from "./support";

const TOKEN = "e2e-operator-token-5b1d0c9e2f";
const admin = { authorization: `Bearer ${TOKEN}` };

describe("operator console dashboards (headless, Chromium)", () => {
  let dataDir: string;
  let relay: Relay | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let pageErrors: string[] = [];
  let wallet: TestWallet;
  let walletToken: string;
  let relayed: PreparedWithdrawal;
  let relaySignature: string;

  const shot = (name: string) => page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
  const go = async (hash: string, heading: string) => {
    await page.goto(`${relay!.url}/console/#/${hash}`);
    await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  };
  const login = async (w: TestWallet): Promise<string> => {
    const t = Math.floor(Date.now() / 1000);
    return ((await post(`${relay!.url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t })).json as { id: string }).id;
  };

  beforeAll(async () => {
    dataDir = freshDataDir("admin-console");
    ({ relay, browser } = await startRelayAndBrowser(dataDir, { RELAY_OPERATOR_TOKEN: TOKEN, RELAY_RATE_LIMITS: "off" }));
    const context = await browser!.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "light" });
    ({ page, errors: pageErrors } = await openPage(context));
    wallet = newWallet();
    await airdrop(relay!.url, wallet, 50_000_000, USDC);
    walletToken = await login(wallet);
  });

  afterAll(async () => {
    await browser?.close();
    if (relay) await stopRelay(relay);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("asks for the operator token, refuses a wrong one, and keeps a good one for the tab only", async () => {
    await page.goto(`${relay!.url}/console/`);
    await page.getByRole("heading", { level: 1, name: "Operator sign-in" }).waitFor();
    await shot("login");
    await page.getByLabel("Operator token").fill("not-the-token-at-all");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("The relay did not accept this token").waitFor();
    await signIn(page, relay!.url, TOKEN);
    await page.getByRole("heading", { level: 1, name: "Health" }).waitFor();
    expect(await page.evaluate("Object.values(sessionStorage)")).toEqual([TOKEN]);
    expect(await page.evaluate("localStorage.length")).toBe(0);
    expect(relay!.output()).not.toContain(TOKEN);
  });

  it("shows mixed deposits, a partial withdrawal's change leaf and each standard amount's anonymity set, and the relay's part and change leaf", async () => {
    // Protocol v3: a deposit of 2.5 USDC, then a note of 1 USDC of which 0.4 is withdrawn; its change leaf (0.6, private) is leaf 2.
    const other = createHash("sha256").update("e2e-console:other-deposit").digest();
    other[0] = other[0]! % 0x30;
    expect((await deposit(relay!.url, wallet, Array.from(other), 2_500_000, USDC)).status).toBe("indexed");
    relayed = await prepareWithdrawal(relay!.url, wallet, USDC, { recipient: testRecipient("e2e-console"), amount: 1_000_000, withdraw: 400_000 });
    // On a connection of its own: proving held this process for seconds, long enough for the relay to close
    // fetch's idle keep-alive socket unnoticed, and a request sent on it fails ("other side closed").
    const r = await sendRaw(`${relay!.url}/relay`, {
      headers: { "content-type": "application/json", "x-api-auth": walletToken },
      body: JSON.stringify(relayed.body),
    });
    expect(r.status, r.text).toBe(200);
    const answer = r.json as { signature: string; changeLeafIndex: number };
    relaySignature = answer.signature;
    expect(answer.changeLeafIndex).toBe(2);

    await go("pools", "Pools");
    const card = page.locator('[data-pool="mainnet:USDC"]');
    await card.getByTestId("next-index").filter({ hasText: /^3$/ }).waitFor();
    expect(await card.getByTestId("deposit-leaves").textContent()).toBe("2");
    expect(await card.getByTestId("change-leaves").textContent()).toBe("1");
    await card.getByText("Deposits into USDC on mainnet: 2 deposits").waitFor();
    // Each standard amount up to the largest deposit: both deposits and the change leaf could cover up to 1 USDC, 2 USDC only the 2.5 USDC deposit and the change leaf.
    const sets = card.getByTestId("anonymity-sets");
    const rows = await sets.locator("tr[data-amount]").evaluateAll((els) => els.map((e) => [e.getAttribute("data-amount"), e.getAttribute("data-notes")]));
    expect(rows).toEqual([
      ...["1000", "2000", "5000", "10000", "20000", "50000", "100000", "200000", "500000", "1000000"].map((a) => [a, "3"]),
      ["2000000", "2"],
    ]);
    await sets.getByRole("row", { name: "0.001 USDC 3" }).waitFor();
    await sets.getByRole("row", { name: "2 USDC 2" }).waitFor();
    await shot("pools");

    await card.getByRole("link", { name: "Explore the tree" }).click();
    const explorer = page.getByTestId("tree-explorer");
    await explorer.getByText("3 leaves below").waitFor();
    await explorer.getByRole("button", { name: "Newest leaf" }).click();
    await explorer.getByText("Leaf 2").waitFor();
    await explorer.getByText("change leaf").waitFor();
    await explorer.getByText(/^private:/).waitFor();
    await explorer.getByTitle(relaySignature).waitFor();
    await explorer.getByLabel("Leaf index").fill(String(relayed.deposit.leafIndex));
    await explorer.getByRole("button", { name: "Go" }).click();
    await explorer.getByText(`Leaf ${relayed.deposit.leafIndex}`).waitFor();
    await explorer.getByText("deposit leaf").waitFor();
    await explorer.getByText("1 USDC", { exact: true }).waitFor();
    await explorer.getByTitle(relayed.deposit.signature).waitFor();
    await explorer.screenshot({ path: join(screenshots, "tree.png") });

    await go("relays", "Relays");
    const row = page.locator('[data-testid="relays-table"] tr[data-status="confirmed"]');
    await row.waitFor();
    await page.getByTestId("relay-counts").getByText("1 confirmed").waitFor();
    await row.getByText("0.4 USDC").waitFor();
    await shot("relays");
    await row.getByRole("link").click();
    await page.getByRole("heading", { level: 1, name: "Relay" }).waitFor();
    const steps = page.getByTestId("pipeline").locator("[data-step]");
    await steps.nth(3).waitFor();
    expect(await steps.evaluateAll((els) => els.map((e) => e.getAttribute("data-step")))).toEqual(["received", "verified", "submitted", "confirmed"]);
    await page.getByTitle(relaySignature).first().waitFor();
    // Protocol v2: the record names the key the proof was bound to, which received the fee.
    await page.getByText("Fee receiver").waitFor();
    await page.getByRole("button", { name: "Copy fee receiver" }).waitFor();
    // Protocol v3: the part withdrawn, and the change leaf the withdrawal inserted.
    await page
      .getByRole("definition")
      .filter({ hasText: /^0\.4 USDC$/ })
      .waitFor();
    const change = page.getByTestId("change-leaf");
    await change.getByRole("link", { name: "leaf 2" }).waitFor();
    await change.getByTitle(`0x${Buffer.from(relayed.body.changeCommitment).toString("hex")}`).waitFor();
    await shot("relay-detail");
    // The link opens the tree explorer at that leaf.
    await change.getByRole("link", { name: "leaf 2" }).click();
    await page.getByTestId("tree-explorer").getByText("Leaf 2").waitFor();
    await page.getByTestId("tree-explorer").getByText("change leaf").waitFor();
  });

  it("finds the spent nullifier and the relay that spent it", async () => {
    await go("nullifiers", "Nullifiers");
    const hex = Buffer.from(relayed.body.nullifierHash).toString("hex");
    await page.getByTestId("spent-table").getByTitle(hex).waitFor();
    await page.getByLabel("Nullifier hash").fill(JSON.stringify(relayed.body.nullifierHash));
    await page.getByRole("button", { name: "Search" }).click();
    const results = page.getByTestId("nullifier-results");
    await results.getByText("spent", { exact: true }).waitFor();
    await results.getByText("in the USDC pool on mainnet").waitFor();
    await shot("nullifiers");
  });

  it("adds up the fee earned and the relayer's balance", async () => {
    await go("money", "Money");
    // 25 bps of the 0.4 USDC withdrawn.
    await page.getByTestId("money-totals").getByText("0.001 USDC").waitFor();
    await page.locator('.payer[data-network="mainnet"]').getByText("0.001 USDC").waitFor();
    await shot("money");
  });

  it("pauses a pool from Settings: its relays answer 503 RelayPaused and Health says why, until resumed", async () => {
    const next = await prepareWithdrawal(relay!.url, wallet, USDC, { recipient: testRecipient("e2e-console-paused"), amount: 1_000_000 });
    await go("settings", "Settings");
    const sw = page.locator('[data-switch="mainnet:USDC"]');
    await sw.getByRole("button", { name: "Pause USDC on mainnet…" }).click();
    await sw.getByLabel("Reason to pause USDC on mainnet").fill("e2e maintenance");
    await sw.getByRole("button", { name: "Pause", exact: true }).click();
    await sw.getByText("paused: e2e maintenance").waitFor();
    await page.getByTestId("keys-table").getByText("relayer").waitFor();
    await shot("settings");

    const refused = await post(`${relay!.url}/relay`, next.body, { "x-api-auth": walletToken });
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ status: 503, error: "RelayPaused" });
    await go("health", "Health");
    await page
      .getByTestId("paused-banner")
      .getByText(/e2e maintenance/)
      .waitFor();

    await go("settings", "Settings");
    await sw.getByRole("button", { name: "Resume USDC on mainnet" }).click();
    await sw.getByText("relaying").waitFor();
    expect((await post(`${relay!.url}/relay`, next.body, { "x-api-auth": walletToken })).status).toBe(200);
  });

  it("changes a pool's fee from Settings: GET /fees publishes it at once, and it goes back to the config file's", async () => {
    await go("settings", "Settings");
    const form = page.getByRole("form", { name: "Change a fee" });
    await form.getByRole("combobox").nth(1).selectOption({ label: "USDC" });
    await form.getByLabel("Rate (bps)").fill("40");
    await form.getByRole("button", { name: "Set fee" }).click();
    await page.getByRole("row", { name: /USDC mainnet 40 bps/ }).waitFor();
    const fees = (await (await fetch(`${relay!.url}/fees`)).json()) as { pools: { mainnet: Record<string, { bps: number }> } };
    expect(fees.pools.mainnet[USDC]).toMatchObject({ bps: 40 });
    await form.getByRole("button", { name: "Back to the config file's" }).click();
    await page.getByRole("row", { name: /USDC mainnet 40 bps/ }).waitFor({ state: "detached" });
  });

  it("turns Health red when a sandbox chain fails, and green when it recovers", async () => {
    await go("health", "Health");
    const status = page.getByTestId("health-status");
    await status.getByText("Operational").waitFor();
    const down = await post(`${relay!.url}/admin/sandbox/faults`, { network: "devnet", chainDown: true }, admin);
    expect(down.status).toBe(200);
    // The dashboard polls every 5 s: no reload needed.
    await status.getByText("Degraded").waitFor({ timeout: 15_000 });
    const check = page.locator('[data-check="chain:devnet"]');
    await check.getByText("Fail").waitFor();
    await check.getByText(/sandbox chain unreachable/).waitFor();
    await page.locator('tr[data-network="devnet"]').getByText("chain down (simulated)").waitFor();
    await shot("health-degraded");

    await page.locator('tr[data-network="devnet"]').getByRole("button", { name: "End outage" }).click();
    await status.getByText("Operational").waitFor({ timeout: 15_000 });
    await shot("health");
  });

  it("lists revert requests and compliance decisions for support", async () => {
    const failed = await deposit(relay!.url, wallet, new Array(32).fill(0), 2_000_000, USDC);
    expect(failed.status).toBe("failed");
    const sig = failed.signature;
    const reverted = await post(`${relay!.url}/revert/mainnet/${walletToken}/${sig}`, {
      wallet: wallet.address,
      signature: wallet.sign(revertMessage(sig)),
      message: revertMessage(sig),
    });
    expect(reverted.status, reverted.text).toBe(200);

    await go("reverts", "Reverts");
    const row = page.locator("[data-revert]").first();
    await row.getByText("processed").waitFor();
    await row.getByText("2 USDC").waitFor();
    await row.getByRole("button", { name: "Details" }).click();
    await page.getByText(wallet.address, { exact: true }).waitFor();
    await shot("reverts");

    await go("compliance", "Compliance");
    const decisions = page.getByTestId("decisions-table");
    await decisions.getByText("relay recipient").first().waitFor();
    await decisions.getByText("clear").first().waitFor();
    await shot("compliance");
  });

  it("signing out forgets the token and shows only the sign-in form", async () => {
    await go("relays", "Relays");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Operator token").waitFor();
    expect(await page.evaluate("sessionStorage.length")).toBe(0);
    await page.goto(`${relay!.url}/console/#/money`);
    await page.getByLabel("Operator token").waitFor();
    expect(await page.getByRole("heading", { level: 1, name: "Money" }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
