/**
 * What every browser test needs: a real headless relay started the way operators start
 * it (`node scripts/start.mjs`) on a free port with its own data dir, and
 * Debian's Chromium driven by playwright-core. Never skipped: Chromium must be there.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
export const root = fileURLToPath(new URL("..", import.meta.url));
export const screenshots = join(root, "docs", "screenshots");

export interface Relay {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A fresh data dir under e2e/.tmp (git-ignored), one per test file. */
export function freshDataDir(prefix: string): string {
  mkdirSync(join(root, "e2e", ".tmp"), { recursive: true });
  return mkdtempSync(join(root, "e2e", ".tmp", `${prefix}-`));
}

/** `node scripts/start.mjs` on a free port; resolves on `listening on http://...`. */
export function startRelay(dataDir: string, extraEnv: Record<string, string> = {}, timeoutMs = 100_000): Promise<Relay> {
  // A config file only when the test passes one, never the caller's own.
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.RELAY_CONFIG;
  // The metrics listener on a free port too: parallel relays never meet on its default 9464.
  Object.assign(env, { RELAY_PORT: "0", RELAY_HOST: "127.0.0.1", RELAY_METRICS_PORT: "0", RELAY_DATA_DIR: dataDir, ...extraEnv });
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
export async function stopRelay(relay: Pick<Relay, "child" | "exited">, graceMs = 15_000): Promise<void> {
  const { child } = relay;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await relay.exited;
  clearTimeout(timer);
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is required at ${CHROMIUM} for the console e2e tests and was not found. ` + "Install it with: apt-get update && apt-get install -y chromium",
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** A page that records uncaught errors and CSP violations (a violation is only a console message). */
export async function openPage(context: BrowserContext): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(err.message));
  page.on("console", (msg) => {
    if (/Content Security Policy/i.test(msg.text())) errors.push(msg.text());
  });
  return { page, errors };
}

/** The sign-in form: paste the token, submit, wait for the first dashboard. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/console/`);
  await page.getByLabel("Operator token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Sections" }).waitFor();
}

/** A relay and Chromium started together; if one of them fails, the other is closed before the failure is thrown. */
export async function startRelayAndBrowser(dataDir: string, env: Record<string, string>): Promise<{ relay: Relay; browser: Browser }> {
  const [started, launched] = await Promise.allSettled([startRelay(dataDir, env), launchChromium()]);
  if (started.status === "fulfilled" && launched.status === "fulfilled") return { relay: started.value, browser: launched.value };
  if (launched.status === "fulfilled") await launched.value.close();
  if (started.status === "fulfilled") await stopRelay(started.value);
  throw started.status === "rejected" ? started.reason : (launched as PromiseRejectedResult).reason;
}

/** A page of the screenshots' size (1280×860) in a new browser context. */
export async function openConsolePage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  return openPage(await browser.newContext({ viewport: { width: 1280, height: 860 } }));
}
