import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import type { Network } from "../../src-shared/networks";
import { DurableDb } from "../adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../adapters/storage-sqljs/schema-migrations";
import { SqlTreeStore } from "../adapters/storage-sqljs/tree-store";
import { MerkleTree } from "../core/merkle/tree";
import type { ChainBackend, LeafEvent, LeafEventPage } from "../ports/chain";
import { IndexerService } from "./indexer";

const MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
let dir: string;
let db: DurableDb;

/** A chain whose history after any cursor is `pages`, one per call. */
const chainWith = (pages: LeafEventPage[], seen: (string | null)[], treeAccount: ChainBackend["treeAccount"] = async () => null): ChainBackend =>
  ({
    network: "mainnet",
    kind: "solana",
    listPools: async () => [MINT],
    fetchLeafEvents: async (_mint: string, cursor: string | null) => {
      seen.push(cursor);
      return pages.shift() ?? { events: [], cursor };
    },
    treeAccount,
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

describe("IndexerService: protocol v3's change leaves", () => {
  const leaf = (i: number): Uint8Array => {
    const b = new Uint8Array(32);
    b[31] = i + 1;
    b[0] = 0x11;
    return b;
  };
  /** Leaf i, inserted at slot i by transaction `signature`. */
  const at = (i: number, signature: string) => ({ signature, leafIndex: i, commitment: leaf(i), slot: i });
  const deposit = (i: number, amount: bigint): LeafEvent => ({ kind: "deposit", ...at(i, `D${i}`), depositor: "W", amount });
  const change = (i: number, nh: number): LeafEvent => ({ kind: "change", ...at(i, `W${i}`), nullifierHash: new Uint8Array(32).fill(nh) });

  it("appends deposit and change leaves in leaf order, records each one's kind and a deposit's amount, and checks the root", async () => {
    const hasher = await createPoseidonHasher();
    const events = [deposit(0, 3_000_000n), change(1, 9), deposit(2, 500n), change(3, 8)];
    const expected = new MerkleTree(hasher);
    for (const e of events) expected.append(e.commitment);
    const indexer = new IndexerService(
      new SqlTreeStore(db),
      new Map<Network, ChainBackend>([
        [
          "mainnet",
          chainWith(
            [
              { events: events.slice(0, 2), cursor: "2" },
              { events: events.slice(2), cursor: "4" },
            ],
            [],
            async () => ({
              root: expected.root(),
              nextIndex: 4,
            }),
          ),
        ],
      ]),
      hasher,
      () => "tree",
    );
    await indexer.start();
    const pool = indexer.get("mainnet", MINT)!;
    expect(pool.tree.nextIndex).toBe(4);
    expect(pool.drift).toBeNull();
    expect(Buffer.from(pool.tree.root()).equals(Buffer.from(expected.root()))).toBe(true);
    const stored = new SqlTreeStore(db);
    expect(await stored.listLeaves((await stored.listPools())[0]!, 0, 10)).toEqual([
      { leafIndex: 0, kind: "deposit", amount: 3_000_000n },
      { leafIndex: 1, kind: "change", amount: null },
      { leafIndex: 2, kind: "deposit", amount: 500n },
      { leafIndex: 3, kind: "change", amount: null },
    ]);
    expect(indexer.changeLeafIndexOf("mainnet", MINT, new Uint8Array(32).fill(8))).toBe(3);
    expect(indexer.changeLeafIndexOf("mainnet", MINT, new Uint8Array(32).fill(7))).toBeNull();
  });

  it("refuses a page whose leaves skip an index, storing nothing of it", async () => {
    const hasher = await createPoseidonHasher();
    const indexer = new IndexerService(
      new SqlTreeStore(db),
      new Map<Network, ChainBackend>([["mainnet", chainWith([{ events: [deposit(0, 1n), change(2, 1)], cursor: "2" }], [])]]),
      hasher,
      () => "tree",
    );
    // The start goes on (a relay that cannot start on such a history would be a crash loop); the sync itself fails, health says why.
    await indexer.start();
    expect(indexer.health()[0]).toMatchObject({ ok: false, detail: expect.stringContaining("has leaf 2, expected 1") });
    expect(indexer.get("mainnet", MINT)!.tree.nextIndex).toBe(0);
    const stored = new SqlTreeStore(db);
    for (const p of await stored.listPools()) expect(await stored.listLeaves(p, 0, 10)).toEqual([]);
  });

  it("serves what it has while a gap stays open, retries, and fills it once the chain answers; repairs are logged and counted", async () => {
    const hasher = await createPoseidonHasher();
    const lines: string[] = [];
    const asked: (number | undefined)[] = [];
    let gapOpen = true;
    const chain = {
      network: "mainnet",
      kind: "solana",
      listPools: async () => [MINT],
      fetchLeafEvents: async (_mint: string, cursor: string | null, _limit: number, nextIndex?: number): Promise<LeafEventPage> => {
        asked.push(nextIndex);
        if (cursor === null) return { events: [deposit(0, 1n)], cursor: "1" };
        if (cursor === "1" && gapOpen)
          throw new Error("transaction 2: the event of its deposit (instruction 0) is missing and its receipt R could not be read");
        if (cursor === "1") return { events: [deposit(1, 2n), change(2, 3)], cursor: "2", repairs: ["2: 1 deposit without an event read from its receipt"] };
        return { events: [], cursor };
      },
      treeAccount: async () => null,
    } as unknown as ChainBackend;
    const indexer = new IndexerService(
      new SqlTreeStore(db),
      new Map<Network, ChainBackend>([["mainnet", chain]]),
      hasher,
      () => "tree",
      (l) => lines.push(l),
    );
    await indexer.start();
    const pool = indexer.get("mainnet", MINT)!;
    expect(pool.tree.nextIndex).toBe(1);
    expect(indexer.health()[0]!.ok).toBe(false);
    await expect(indexer.sync("mainnet", MINT)).rejects.toThrow("could not be read");
    expect(pool.tree.nextIndex).toBe(1);
    gapOpen = false;
    await indexer.sync("mainnet", MINT);
    expect(pool.tree.nextIndex).toBe(3);
    expect(pool.repairs).toBe(1);
    expect(indexer.health()[0]!.ok).toBe(true);
    // The indexer tells the chain where its tree stands at the cursor.
    expect(asked).toEqual([0, 1, 1, 1, 3]);
    expect(lines.filter((l) => l.includes("repaired a gap"))).toEqual([
      `indexer: mainnet/${MINT}: repaired a gap from chain state: 2: 1 deposit without an event read from its receipt`,
    ]);
  });
});
