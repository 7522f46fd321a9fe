import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import type { Network } from "../../src-shared/networks";
import { DurableDb } from "../adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../adapters/storage-sqljs/schema-migrations";
import { SqlTreeStore } from "../adapters/storage-sqljs/tree-store";
import type { ChainBackend, DepositEventPage } from "../ports/chain";
import { IndexerService } from "./indexer";

const MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
let dir: string;
let db: DurableDb;

/** A chain whose history after any cursor is `pages`, one per call. */
const chainWith = (pages: DepositEventPage[], seen: (string | null)[]): ChainBackend =>
  ({
    network: "mainnet",
    kind: "solana",
    listPools: async () => [MINT],
    fetchDepositEvents: async (_mint: string, cursor: string | null) => {
      seen.push(cursor);
      return pages.shift() ?? { events: [], cursor };
    },
    treeAccount: async () => null,
  }) as unknown as ChainBackend;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "indexer-"));
  db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
});
afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("IndexerService cursor", () => {
  it("persists a cursor moved past history without deposits, so a restart resumes after it", async () => {
    const hasher = await createPoseidonHasher();
    const seen: (string | null)[] = [];
    const indexer = new IndexerService(
      new SqlTreeStore(db),
      new Map<Network, ChainBackend>([["mainnet", chainWith([{ events: [], cursor: "SIG-OF-A-WITHDRAWAL" }], seen)]]),
      hasher,
      () => "tree",
    );
    await indexer.start();
    expect(indexer.get("mainnet", MINT)!.stored.cursor).toBe("SIG-OF-A-WITHDRAWAL");

    await db.close();
    db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
    const after: (string | null)[] = [];
    const restarted = new IndexerService(new SqlTreeStore(db), new Map<Network, ChainBackend>([["mainnet", chainWith([], after)]]), hasher, () => "tree");
    await restarted.start();
    expect(after[0]).toBe("SIG-OF-A-WITHDRAWAL");
    expect(restarted.get("mainnet", MINT)!.tree.nextIndex).toBe(0);
  });
});
