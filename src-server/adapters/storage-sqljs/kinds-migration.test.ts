/**
 * Migration 17 moves migration 15's row per leaf (kind, a deposit's amount) into the
 * `kinds-<pool>` page file: every reader answers as it did from the rows, the table is
 * gone, and a start killed anywhere in the migration (page bytes written, journal record
 * not yet fsynced; or fsynced without a snapshot) opens to the same result.
 */
import { spawn } from "node:child_process";
import { closeSync, constants, openSync, writeSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { LeafKind } from "../../ports/tree-store";
import { SqlConsoleStore } from "./console-store";
import type { DurableDb } from "./durable-db";
import { PAGES_DIR } from "./page-files";
import { MIGRATIONS } from "./schema-migrations";
import { SqlTreeStore } from "./tree-store";
import { storeDirPerTest } from "../../../tests/support/store-dir";

const MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const OTHER = "So11111111111111111111111111111111111111112";
const CHILD = fileURLToPath(new URL("../../../tests/support/kinds-migration/open-store.ts", import.meta.url));
const { dir, open } = storeDirPerTest("kinds-migration-");

/** Leaf i of the first pool as migration 15 and the indexer left it (kind, amount text). */
function row(i: number): { kind: string; amount: string | null } {
  if (i % 5 === 4) return { kind: "change", amount: null };
  if (i % 7 === 3) return { kind: "deposit", amount: null };
  return { kind: "deposit", amount: String(1_000 * (i + 1)) };
}

/** What listLeaves answered from those rows. */
const expected = (from: number, to: number): LeafKind[] =>
  Array.from({ length: to - from }, (_, k) => {
    const r = row(from + k);
    return { leafIndex: from + k, kind: r.kind as "deposit" | "change", amount: r.kind === "deposit" && r.amount !== null ? BigInt(r.amount) : null };
  });

/** A store at migration 16: two pools, `n` leaves with rows in the first, three in the second (text the indexer never writes among them). */
async function writeV16Store(n: number): Promise<void> {
  const db = await open(MIGRATIONS.filter((m) => m.version <= 16));
  await db.write([
    { sql: "INSERT INTO pools (id, network, mint, next_index, created_at) VALUES (1, 'mainnet', ?, ?, 1), (2, 'devnet', ?, 3, 1)", params: [MINT, n, OTHER] },
    {
      sql: `WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n + 1 < ?)
            INSERT INTO indexed_leaves (pool_id, leaf_index, kind, amount)
            SELECT 1, n, CASE WHEN n % 5 = 4 THEN 'change' ELSE 'deposit' END,
                   CASE WHEN n % 5 = 4 OR n % 7 = 3 THEN NULL ELSE CAST(1000 * (n + 1) AS TEXT) END FROM i`,
      params: [n],
    },
    {
      sql: "INSERT INTO indexed_leaves (pool_id, leaf_index, kind, amount) VALUES (2, 0, 'deposit', '0'), (2, 1, 'deposit', '007'), (2, 2, 'deposit', '18446744073709551616')",
    },
  ]);
  await db.close();
}

async function expectMigrated(db: DurableDb, n: number): Promise<void> {
  expect(db.get("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'indexed_leaves'")).toEqual({ n: 0 });
  expect(db.get("SELECT MAX(version) AS v FROM schema_migrations")).toEqual({ v: 17 });
  const trees = new SqlTreeStore(db);
  const [one, two] = await trees.listPools();
  expect(await trees.listLeaves(one!, 0, n + 10)).toEqual(expected(0, n));
  expect(await trees.listLeaves(one!, n - 7, n - 2)).toEqual(expected(n - 7, n - 2));
  // Amount 0 is kept (it is no standard amount: the census counts it as unknown); text that is no u64 without leading zeros reads as unknown.
  expect(await trees.listLeaves(two!, 0, 3)).toEqual([
    { leafIndex: 0, kind: "deposit", amount: 0n },
    { leafIndex: 1, kind: "deposit", amount: null },
    { leafIndex: 2, kind: "deposit", amount: null },
  ]);
  const console = new SqlConsoleStore(db);
  const census = await console.leafCensus("mainnet", MINT, 0, n + 10);
  const deposits = expected(0, n).filter((l) => l.kind === "deposit");
  expect(census).toMatchObject({
    upTo: n,
    deposits: deposits.length,
    changes: n - deposits.length,
    depositsOfUnknownAmount: deposits.filter((l) => l.amount === null).length,
  });
  const counted = census!.buckets.reduce((a, b) => a + b.count, 0);
  expect(counted).toBe(deposits.filter((l) => l.amount !== null).length);
  expect(await console.leafCensus("devnet", OTHER, 0, 3)).toMatchObject({ deposits: 3, depositsOfUnknownAmount: 3, buckets: [] });
}

describe("migration 17: leaf kinds and amounts in page files", () => {
  it("answers listLeaves and the census as the rows did, and drops the table", async () => {
    await writeV16Store(1_000);
    const db = await open();
    try {
      await expectMigrated(db, 1_000);
    } finally {
      await db.close();
    }
  });

  it("opens to the same result after a start that wrote the page file but died before the journal record, or before a snapshot", async () => {
    await writeV16Store(500);
    // A killed first attempt: kind bytes written to the page cache (here: garbage), the migration never acknowledged.
    const fd = openSync(path.join(dir(), PAGES_DIR, "kinds-1"), constants.O_RDWR | constants.O_CREAT, 0o600);
    writeSync(fd, new Uint8Array(300 * 9).fill(0xab), 0, 300 * 9, 0);
    closeSync(fd);
    const first = await open();
    await expectMigrated(first, 500);
    // Left without a snapshot: the next open replays the migration's journal record onto the migration-16 image.
    const second = await open();
    try {
      await expectMigrated(second, 500);
    } finally {
      await second.close();
    }
  });

  it("survives kill -9 at random moments of the migration", async () => {
    const n = 200_000;
    await writeV16Store(n);
    for (let round = 0; round < 3; round++) {
      // The first kill lands well inside the migration (200k rows take far longer than 50 ms); later ones anywhere.
      const delayMs = Math.floor(Math.random() * (round === 0 ? 50 : 400));
      const outcome = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ["--import", "tsx", CHILD, dir()], { stdio: ["ignore", "pipe", "pipe"] });
        let stderr = "";
        let seen = "";
        child.stderr.on("data", (d: Buffer) => void (stderr += d.toString()));
        child.stdout.on("data", (d: Buffer) => {
          seen += d.toString();
          if (seen.includes("migrating") || seen.includes("opened")) setTimeout(() => child.kill("SIGKILL"), delayMs);
        });
        child.on("exit", (code, signal) =>
          signal === "SIGKILL" ? resolve(seen.trim().split("\n").at(-1) ?? "") : reject(new Error(`exit ${code}: ${stderr}`)),
        );
      });
      expect(round === 0 ? ["migrating"] : ["migrating", "opened"], `round ${round}, killed ${delayMs} ms after: ${outcome}`).toContain(outcome);
    }
    const db = await open();
    try {
      await expectMigrated(db, n);
    } finally {
      await db.close();
    }
  }, 120_000);
});
