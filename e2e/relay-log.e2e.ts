/**
 * The console's Relay detail shows that relay's log lines: a real withdrawal on the
 * headless relay's sandbox (started as operators start it), then its page lists one line
 * per state change, none holding the recipient.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareWithdrawal, testRecipient } from "../tests/support/proofs";
import { sendRaw } from "../tests/support/raw-http";
import { USDC } from "../tests/support/sandbox";
import { sandboxTestChain } from "../tests/support/test-chain";
import { newWallet, post } from "../tests/support/wallet";
import { freshDataDir, signIn, stopRelay, type Relay, startRelayAndBrowser, openConsolePage } from "./support";

const TOKEN = "relay-log-e2e-operator-token-9e2f44";

describe("the Relay detail's log (headless, Chromium)", () => {
  let dataDir: string;
  let relay: Relay | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    dataDir = freshDataDir("relay-log");
    ({ relay, browser } = await startRelayAndBrowser(join(dataDir, "data"), { RELAY_OPERATOR_TOKEN: TOKEN, RELAY_RATE_LIMITS: "off" }));
    const opened = await openConsolePage(browser!);
    page = opened.page;
    pageErrors = opened.errors;
  });

  afterAll(async () => {
    await browser?.close();
    if (relay) await stopRelay(relay);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("lists one line per state change of a real withdrawal, without its recipient", async () => {
    const url = relay!.url;
    const chain = sandboxTestChain(url, "mainnet");
    const depositor = newWallet();
    await chain.fund(depositor, 100_000_000, USDC);
    const t = Math.floor(Date.now() / 1000);
    const auth = ((await post(`${url}/login`, { wallet: depositor.address, signature: depositor.sign(String(t)), message: t })).json as { id: string }).id;
    const w = await prepareWithdrawal(url, depositor, USDC, { recipient: testRecipient("e2e-relay-log"), amount: 1_000_000, chain });
    // On a connection of its own: proving held this process for seconds, long enough for the relay to close
    // fetch's idle keep-alive socket unnoticed, and a request sent on it fails ("other side closed").
    const r = await sendRaw(`${url}/relay`, { headers: { "content-type": "application/json", "x-api-auth": auth }, body: JSON.stringify(w.body) });
    expect(r.status, r.text).toBe(200);
    const page1 = (await (await fetch(`${url}/admin/relays?limit=5`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { items: { id: string }[] };
    const id = page1.items[0]!.id;

    await signIn(page, url, TOKEN);
    await page.goto(`${url}/console/#/relays/${id}`);
    const log = page.getByTestId("relay-log");
    await log.waitFor();
    for (const state of ["received", "verified", "submitted", "confirmed"]) await log.getByText(`relay ${id}: ${state}`).waitFor();
    expect(await log.textContent()).not.toContain(w.body.recipient);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
