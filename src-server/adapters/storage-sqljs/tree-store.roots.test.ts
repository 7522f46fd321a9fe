/**
 * Issue 25: the relay accepts a proof's root while it is among the pool's last
 * 1,000, and a restart must not shorten that to what the store used to keep (100).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { toHex } from "../../../src-shared/encoding/bytes";
import { bigIntToBytes32 } from "../../../src-shared/encoding/field";
import { MerkleTree, ROOT_HISTORY_SIZE } from "../../core/merkle/tree";
import { DurableDb } from "./durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "./schema-migrations";
import { SqlTreeStore } from "./tree-store";
import { TEST_FENCE } from "../../../tests/support/fence";

const MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
let hasher: FieldHasher;
let dir: string;

beforeAll(async () => {
  hasher = await createPoseidonHasher();
  dir = mkdtempSync(path.join(tmpdir(), "tree-store-roots-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("reloads the last 1,000 roots after a restart, so the relay accepts the same roots as before it", async () => {
  expect(ROOT_HISTORY_SIZE).toBe(1000);
  let db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0, fsync: false });
  const store = new SqlTreeStore(db, () => 1_780_000_000);
  const pool = await store.createPool("mainnet", MINT);
  // Depth 12 keeps 1,005 one-leaf appends quick; the store keeps roots whatever the depth.
  const tree = new MerkleTree(hasher, 12);
  for (let i = 0; i < 1005; i++) {
    const r = tree.append(bigIntToBytes32(BigInt(i) * 7919n + 3n));
    if (!r.ok) throw new Error(r.error);
    await store.saveAppend(
      pool,
      r.value,
      String(i + 1),
      [{ leafIndex: i, commitment: new Uint8Array(32), signature: `sig${i}`.padEnd(88, "x"), slot: i, kind: "deposit", amount: 1n }],
      TEST_FENCE,
    );
  }
  await db.close();
  db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0, fsync: false });
  try {
    const reloaded = new MerkleTree(hasher, 12);
    const reopened = new SqlTreeStore(db);
    await reopened.loadTree((await reopened.listPools())[0]!, reloaded);
    expect(reloaded.recentRoots()).toHaveLength(1000);
    expect(reloaded.recentRoots().map(toHex)).toEqual(tree.recentRoots().map(toHex));
  } finally {
    await db.close();
  }
});
