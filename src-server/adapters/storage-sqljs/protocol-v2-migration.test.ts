/**
 * Migration 11 on a store written by protocol v1: its sandbox pools (v1
 * leaves) are archived whole and never mixed with v2 ones; relay, revert and
 * compliance records, balances and Solana pools are kept.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqlConsoleStore } from "./console-store";
import { DurableDb } from "./durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "./schema-migrations";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const SOL = "So11111111111111111111111111111111111111112";
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "v2-migration-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A data dir as protocol v1 left it: migrations 1..10, a sandbox pool with two leaves, a solana pool, a relay. */
async function writeV1Store(): Promise<void> {
  const db = await DurableDb.open({ dir, migrations: MIGRATIONS.filter((m) => m.version <= 10), functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
  const root = new Uint8Array(32).fill(7);
  await db.write([
    { sql: "INSERT INTO pools (id, network, mint, next_index, root, created_at) VALUES (1, 'mainnet', ?, 2, ?, 1)", params: [USDC, root] },
    { sql: "INSERT INTO pools (id, network, mint, next_index, root, created_at) VALUES (2, 'devnet', ?, 5, ?, 1)", params: [SOL, root] },
    { sql: "INSERT INTO tree_roots (pool_id, seq, root, next_index, created_at) VALUES (1, 1, ?, 2, 1), (2, 1, ?, 5, 1)", params: [root, root] },
    { sql: "INSERT INTO indexed_leaves (pool_id, leaf_index, signature, slot, indexed_at) VALUES (1, 0, 's0', 1, 1), (1, 1, 's1', 2, 1), (2, 0, 't0', 1, 1)" },
    {
      sql: "INSERT INTO sandbox_pools (network, mint, next_index, filled_subtrees, roots, created_slot) VALUES ('mainnet', ?, 2, x'00', x'00', 1)",
      params: [USDC],
    },
    {
      sql: "INSERT INTO sandbox_deposits (network, signature, mint, amount, commitment, depositor, status, leaf_index, slot, created_at) VALUES ('mainnet', 's0', ?, '1000', ?, 'D', 'indexed', 0, 1, 1)",
      params: [USDC, new Uint8Array(32).fill(1)],
    },
    { sql: "INSERT INTO sandbox_balances (network, owner, mint, amount) VALUES ('mainnet', 'D', ?, '500')", params: [USDC] },
    {
      sql: `INSERT INTO relays (id, kind, network, mint, output_mint, recipient, nullifier_hash, deposit_size, fee, status, error, signature, received_at, updated_at, steps)
            VALUES ('r1', 'relay', 'mainnet', ?, NULL, 'R', ?, '1000', '3', 'confirmed', NULL, 'sig', 1, 2, '[]')`,
      params: [USDC, "00".repeat(32)],
    },
  ]);
  await db.close();
}

describe("migration 11 (protocol v2) on a v1 store", () => {
  it("archives the sandbox pools built on v1 leaves and drops the indexer's copies of them only", async () => {
    await writeV1Store();
    // Up to 11: migration 13 moves indexed_leaves out of SQL (tree-pages-migration.test.ts).
    const db = await DurableDb.open({ dir, migrations: MIGRATIONS.filter((m) => m.version <= 11), functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
    try {
      const archived = await new SqlConsoleStore(db).archivedPools();
      expect(archived).toEqual([
        expect.objectContaining({
          network: "mainnet",
          mint: USDC,
          protocol: 1,
          leaves: 2,
          root: "07".repeat(32),
          reason: expect.stringMatching(/protocol v1 leaves/),
        }),
      ]);
      // The sandbox pool's tree is gone from the indexer; the solana pool keeps its tree.
      expect(db.all("SELECT network, mint FROM pools ORDER BY id")).toEqual([{ network: "devnet", mint: SOL }]);
      expect(db.get("SELECT COUNT(*) AS n FROM indexed_leaves")).toEqual({ n: 1 });
      expect(db.get("SELECT COUNT(*) AS n FROM tree_roots")).toEqual({ n: 1 });
      // The v1 ledger rows are kept, apart; the v2 tables start empty with the precommitment column.
      expect(db.get("SELECT COUNT(*) AS n FROM v1_sandbox_deposits")).toEqual({ n: 1 });
      expect(db.get("SELECT COUNT(*) AS n FROM v1_sandbox_pools")).toEqual({ n: 1 });
      expect(db.get("SELECT COUNT(*) AS n FROM sandbox_deposits")).toEqual({ n: 0 });
      expect(db.all("SELECT name FROM pragma_table_info('sandbox_deposits') WHERE name IN ('precommitment', 'commitment') ORDER BY name")).toEqual([
        { name: "commitment" },
        { name: "precommitment" },
      ]);
      // Records and balances are kept.
      expect(db.get("SELECT id, fee, relayer, min_out FROM relays")).toEqual({ id: "r1", fee: "3", relayer: null, min_out: null });
      expect(db.get("SELECT amount FROM sandbox_balances WHERE owner = 'D'")).toEqual({ amount: "500" });
    } finally {
      await db.close();
    }
  });

  it("archives nothing in a store that never had sandbox pools", async () => {
    const db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
    try {
      expect(await new SqlConsoleStore(db).archivedPools()).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
