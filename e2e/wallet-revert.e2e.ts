/**
 * A depositor's failed deposit, reverted from the wallet page (#/wallet, no operator
 * token) with a Wallet Standard wallet in the browser, then seen by the operator in
 * the Reverts queue. The wallet is a test double injected into the page; its
 * signatures are real ed25519 signatures made by the depositor's key in this process.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import bs58 from "bs58";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { airdrop, deposit, USDC } from "../tests/support/sandbox";
import { get, newWallet, type TestWallet } from "../tests/support/wallet";
import { freshDataDir, openPage, screenshots, signIn, stopRelay, type Relay, startRelayAndBrowser } from "./support";

const TOKEN = "wallet-e2e-operator-token-41c7";
const ICON =
  "data:image/svg+xml;base64," +
  Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect width="16" height="16" rx="4" fill="#2f5bd3"/></svg>').toString("base64");

/** Registers a Wallet Standard wallet whose signMessage asks the test process to sign. */
async function injectWallet(page: Page, wallet: TestWallet): Promise<void> {
  await page.addInitScript(
    ({ address, publicKey, icon }) => {
      const chains = ["solana:mainnet", "solana:devnet"];
      // Like a real wallet: no account is visible to the page until it connects.
      const account = { address, publicKey: new Uint8Array(publicKey), chains, features: ["solana:signMessage"] };
      const accounts: (typeof account)[] = [];
      const w = globalThis as unknown as {
        e2eSign(bytes: number[]): Promise<number[]>;
        addEventListener(type: string, listener: (e: { detail: unknown }) => void): void;
        dispatchEvent(e: unknown): boolean;
      };
      const Custom = (globalThis as unknown as { CustomEvent: new (type: string, init: { detail: unknown }) => unknown }).CustomEvent;
      const wallet = {
        version: "1.0.0",
        name: "E2E Wallet",
        icon,
        chains,
        accounts,
        features: {
          "standard:connect": {
            version: "1.0.0",
            connect: async () => {
              if (accounts.length === 0) accounts.push(account);
              return { accounts };
            },
          },
          "standard:disconnect": { version: "1.0.0", disconnect: async () => void accounts.splice(0) },
          "standard:events": { version: "1.0.0", on: () => () => {} },
          "solana:signTransaction": {
            version: "1.0.0",
            supportedTransactionVersions: ["legacy", 0],
            signTransaction: async () => {
              throw new Error("this test wallet signs messages only");
            },
          },
          "solana:signMessage": {
            version: "1.0.0",
            signMessage: async (...inputs: { message: Uint8Array }[]) =>
              Promise.all(inputs.map(async ({ message }) => ({ signedMessage: message, signature: new Uint8Array(await w.e2eSign(Array.from(message))) }))),
          },
        },
      };
      const register = (api: { register(wallet: unknown): unknown }) => api.register(wallet);
      w.addEventListener("wallet-standard:app-ready", (e) => register(e.detail as { register(wallet: unknown): unknown }));
      w.dispatchEvent(new Custom("wallet-standard:register-wallet", { detail: register }));
    },
    { address: wallet.address, publicKey: Array.from(wallet.publicKey), icon: ICON },
  );
}

describe("wallet page: a depositor reverts a failed deposit (headless, Chromium)", () => {
  let dataDir: string;
  let relay: Relay | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    dataDir = freshDataDir("wallet");
    ({ relay, browser } = await startRelayAndBrowser(dataDir, { RELAY_OPERATOR_TOKEN: TOKEN }));
  });

  afterAll(async () => {
    await browser?.close();
    if (relay) await stopRelay(relay);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("connects the wallet, signs the login and the revert, gets the funds back, and the operator sees it", async () => {
    const { url } = relay!;
    const depositor = newWallet();
    await airdrop(url, depositor, 5_000_000, USDC);
    // A commitment of zero cannot enter the tree: the deposit is `failed`, its funds in the vault.
    const failed = await deposit(url, depositor, new Array(32).fill(0), 3_000_000, USDC);
    expect(failed.status).toBe("failed");
    const balance = async () => BigInt(((await get(`${url}/sandbox/balance/mainnet/${depositor.address}/${USDC}`)).json as { amount: string }).amount);
    expect(await balance()).toBe(2_000_000n);

    const context = await browser!.newContext({ viewport: { width: 1100, height: 820 }, colorScheme: "light" });
    const { page, errors } = await openPage(context);
    const signed: string[] = [];
    await page.exposeFunction("e2eSign", (bytes: number[]) => {
      const text = Buffer.from(bytes).toString("utf8");
      signed.push(text);
      return Array.from(bs58.decode(depositor.sign(text)));
    });
    await injectWallet(page, depositor);

    await page.goto(`${url}/console/#/wallet`);
    await page.getByRole("heading", { level: 1, name: "Revert a failed deposit" }).waitFor();
    expect(await page.getByLabel("Operator token").count()).toBe(0); // no operator sign-in here
    await page.getByRole("button", { name: "Connect E2E Wallet" }).click();
    await page.getByTestId("wallet-connected").getByText(depositor.address).waitFor();
    await page.getByLabel("Deposit transaction signature").fill(failed.signature);
    await page.getByRole("button", { name: "Revert deposit" }).click();
    const result = page.getByTestId("revert-result");
    await result.getByText("Reverted: the deposit went back to your wallet").waitFor();
    expect(signed).toHaveLength(2);
    expect(signed[0]).toMatch(/^\d{10}$/);
    expect(signed[1]).toBe(`Revert deposit: ${failed.signature}`);
    expect(await balance()).toBe(5_000_000n);
    await page.screenshot({ path: join(screenshots, "wallet.png"), fullPage: true });

    // A second revert of the same deposit is refused, in words.
    await page.getByRole("button", { name: "Revert deposit" }).click();
    await result.getByText(/already reverted/).waitFor();
    expect(await balance()).toBe(5_000_000n);

    // The operator's support queue shows it, with the depositor and the amount.
    await signIn(page, url, TOKEN);
    await page.goto(`${url}/console/#/reverts`);
    const rows = page.locator("[data-revert]");
    await rows.filter({ hasText: "processed" }).filter({ hasText: "3 USDC" }).waitFor();
    await rows.filter({ hasText: "failed" }).getByText("NullifierSpent").waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
