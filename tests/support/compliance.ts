import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DurableDb } from "../../src-server/adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../../src-server/adapters/storage-sqljs/schema-migrations";
import { post, type TestWallet } from "./wallet";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** POST /login now; a second login of the same wallet within a second signs the next second. */
export async function login(url: string, w: TestWallet): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  for (let ahead = 0; ahead < 5; ahead++) {
    const t = now + ahead;
    const r = await post(`${url}/login`, { wallet: w.address, signature: w.sign(String(t)), message: t });
    if (r.status === 200) return (r.json as { id: string }).id;
    if (r.status !== 400) throw new Error(`login: ${r.status} ${r.text}`);
  }
  throw new Error("login kept failing");
}

/** A JSON config file for RELAY_CONFIG. */
export function configFile(config: unknown): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "relay-cfg-")), "config.json");
  writeFileSync(file, JSON.stringify(config));
  return file;
}

/** Runs the operator's `npm run sanctions -- ...` on a data dir (the relay must be stopped). */
export function sanctionsAdmin(
  dataDir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src-server/cli/sanctions.ts", ...args], {
      cwd: ROOT,
      env: { ...process.env, RELAY_DATA_DIR: dataDir, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Reads a stopped relay's database: what the console will show. */
export async function withStoppedDb<T>(dataDir: string, read: (db: DurableDb) => T | Promise<T>): Promise<T> {
  const db = await DurableDb.open({ dir: dataDir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS });
  try {
    return await read(db);
  } finally {
    await db.close();
  }
}

export async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 10_000, everyMs = 100): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
