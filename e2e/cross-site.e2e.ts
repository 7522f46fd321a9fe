/**
 * A page on another origin cannot lock the operator out of the loopback console nor use up
 * the operator's /login budget (docs/security.md, "Cross-site requests"): a real page served
 * by a second local server makes Chromium fire <img> GETs at the operator's endpoints (which
 * carry no token: they used to count toward the sign-in lockout) and empty form POSTs at
 * /login and /admin; afterwards the operator signs in with the right token and /login still
 * answers that address.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { rmSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newWallet } from "../tests/support/wallet";
import { freshDataDir, openConsolePage, openPage, signIn, startRelayAndBrowser, stopRelay, type Relay } from "./support";

const TOKEN = "cross-site-e2e-operator-token-7c1e94";
const IMAGES = 30; // the lockout allowed 20 failed sign-ins a minute
const FORMS = 35; // /login allows 30 a minute per address

/** The attacker's page: every request is fired at once, and each one's end (load or error) is counted in `window.fired`. */
function attackPage(relay: string): string {
  return `<!doctype html><html><body><script>
window.fired = 0;
const done = () => { window.fired++; };
const operatorPaths = ["/admin/session", "/admin/relays", "/health/detail", "/metrics"];
for (let i = 0; i < ${IMAGES}; i++) {
  const img = new Image();
  img.onload = done; img.onerror = done;
  img.src = ${JSON.stringify(relay)} + operatorPaths[i % operatorPaths.length] + "?i=" + i;
}
for (let i = 0; i < ${FORMS}; i++) {
  const frame = document.createElement("iframe");
  frame.name = "f" + i;
  frame.onload = done;
  document.body.appendChild(frame);
  const form = document.createElement("form");
  form.method = "POST";
  form.target = frame.name;
  form.action = ${JSON.stringify(relay)} + (i % 5 === 4 ? "/admin/pauses" : "/login");
  document.body.appendChild(form);
  form.submit();
}
</script></body></html>`;
}

describe("a page on another origin fires requests at the loopback relay (Chromium)", () => {
  let dataDir: string;
  let relay: Relay | undefined;
  let browser: Browser | undefined;
  let evil: Server | undefined;
  let evilUrl: string;
  let page: Page;

  beforeAll(async () => {
    dataDir = freshDataDir("cross-site");
    ({ relay, browser } = await startRelayAndBrowser(dataDir, { RELAY_OPERATOR_TOKEN: TOKEN }));
    const html = attackPage(relay.url);
    evil = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(html);
    });
    await new Promise<void>((resolve) => evil!.listen(0, "127.0.0.1", resolve));
    evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    await browser?.close();
    if (relay) await stopRelay(relay);
    await new Promise<void>((resolve) => (evil ? evil.close(() => resolve()) : resolve()));
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("lets every request of the page through to the relay and back", async () => {
    ({ page } = await openPage(await browser!.newContext()));
    await page.goto(evilUrl);
    await page.waitForFunction((n) => (globalThis as unknown as { fired: number }).fired >= n, IMAGES + FORMS, { timeout: 30_000 });
    // The relay saw them: its log has the refusals (403, before anything counted them).
    expect(relay!.output()).toMatch(/"status":403/);
  });

  it("afterwards signs the operator in with the right token", async () => {
    const { page: consolePage, errors } = await openConsolePage(browser!);
    await signIn(consolePage, relay!.url, TOKEN);
    expect(await consolePage.getByRole("navigation", { name: "Sections" }).isVisible()).toBe(true);
    expect(errors).toEqual([]);
  });

  it("afterwards still answers /login from that address", async () => {
    const w = newWallet();
    const t = Math.floor(Date.now() / 1000);
    const r = await fetch(`${relay!.url}/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ wallet: w.address, signature: w.sign(String(t)), message: t }),
    });
    expect(r.status).toBe(200);
    expect(Number(r.headers.get("ratelimit-remaining"))).toBe(29);
  });
});
