/**
 * Migration 15 on a store written by protocol v2: deposit leaves are the same in v3, so
 * its pools are kept whole (tree, roots, cursor, the sandbox ledger and its events) and a
 * v3 withdrawal's change leaf follows them; each leaf gets its kind and, where the store
 * knows it, its amount; relay records are kept, without a change leaf.
 */
import nacl from "tweetnacl";
import { beforeAll, describe, expect, it } from "vitest";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { toHex } from "../../../src-shared/encoding/bytes";
import { bigIntToBytes32 } from "../../../src-shared/encoding/field";
import { vaultAddress } from "../../../src-shared/solana/pda";
import { FrontierTree } from "../../core/merkle/frontier";
import { MerkleTree } from "../../core/merkle/tree";
import type { ChainBackend } from "../../ports/chain";
import { IndexerService } from "../../services/indexer";
import { SandboxChain } from "../chain-sandbox/sandbox-chain";
import { Signer } from "../../../src-shared/node/keypair-file";
import { SqlRelayStore } from "./relay-store";
import { MIGRATIONS } from "./schema-migrations";
import { SqlTreeStore } from "./tree-store";
import { TEST_FENCE } from "../../../tests/support/fence";
import { storeDirPerTest } from "../../../tests/support/store-dir";

const MINT_KEY = nacl.sign.keyPair().publicKey;
const MINT = encodeBase58(MINT_KEY);
const PROGRAM = new Uint8Array(32).fill(4);
const AMOUNTS = [3_000_000n, 1_000n, 250_000n];
let hasher: FieldHasher;

beforeAll(async () => {
  hasher = await createPoseidonHasher();
});
const { open } = storeDirPerTest("v3-migration-");
const leafOf = (i: number): Uint8Array => hasher.hash([bigIntToBytes32(BigInt(i + 1)), bigIntToBytes32(AMOUNTS[i]!)]);

/**
 * A data dir as protocol v2 left it (migrations 1..14): a sandbox pool of three deposits (its
 * ledger, frontier and events), the indexer's copy of that tree with its cursor, one relay.
 */
async function writeV2Store(): Promise<{ root: Uint8Array }> {
  const db = await open(MIGRATIONS.filter((m) => m.version <= 14));
  const frontier = new FrontierTree(hasher);
  const full = new MerkleTree(hasher);
  const stmts = [];
  for (let i = 0; i < AMOUNTS.length; i++) {
    const leaf = leafOf(i);
    if (!frontier.insert(leaf).ok) throw new Error("insert");
    stmts.push(
      {
        sql: "INSERT INTO sandbox_deposits (network, signature, mint, amount, precommitment, commitment, depositor, status, leaf_index, slot, created_at) VALUES ('mainnet', ?, ?, ?, ?, ?, 'D', 'indexed', ?, ?, 1)",
        params: [`dep${i}`, MINT, AMOUNTS[i]!.toString(), new Uint8Array(32).fill(i + 1), leaf, i, i + 1],
      },
      {
        sql: "INSERT INTO sandbox_events (id, network, mint, signature, leaf_index, commitment, depositor, amount, slot) VALUES (?, 'mainnet', ?, ?, ?, ?, 'D', ?, ?)",
        params: [i + 1, MINT, `dep${i}`, i, leaf, AMOUNTS[i]!.toString(), i + 1],
      },
    );
  }
  // A failed deposit (no leaf) sits in the ledger too; it must not give any leaf an amount.
  stmts.push({
    sql: "INSERT INTO sandbox_deposits (network, signature, mint, amount, precommitment, commitment, depositor, status, leaf_index, slot, created_at) VALUES ('mainnet', 'failed0', ?, '77', ?, NULL, 'D', 'failed', NULL, 9, 1)",
    params: [MINT, new Uint8Array(32)],
  });
  const state = frontier.state();
  stmts.push(
    {
      sql: "INSERT INTO sandbox_pools (network, mint, next_index, filled_subtrees, roots, created_slot) VALUES ('mainnet', ?, ?, ?, ?, 0)",
      params: [MINT, state.nextIndex, state.filledSubtrees, state.roots],
    },
    { sql: "INSERT INTO sandbox_meta (network, slot) VALUES ('mainnet', 9)" },
    {
      sql: `INSERT INTO relays (id, kind, network, mint, output_mint, recipient, nullifier_hash, deposit_size, fee, status, error, signature, received_at, updated_at, steps, relayer, min_out)
            VALUES ('r1', 'relay', 'mainnet', ?, NULL, 'R', ?, '1000', '3', 'confirmed', NULL, 'sig', 1, 2, '[]', 'F', NULL)`,
      params: [MINT, "00".repeat(32)],
    },
  );
  await db.write(stmts);
  // The indexer's copy: the same leaves through the tree store (v2 wrote no kinds).
  const store = new SqlTreeStore(db);
  const pool = await store.createPool("mainnet", MINT);
  const appended = full.append(Uint8Array.from(AMOUNTS.flatMap((_, i) => [...leafOf(i)])));
  if (!appended.ok) throw new Error(appended.error);
  await store.saveAppend(pool, appended.value, "3", [], TEST_FENCE);
  await db.close();
  expect(toHex(full.root())).toBe(toHex(frontier.root()));
  return { root: full.root() };
}

describe("migration 15 (protocol v3) on a v2 store", () => {
  it("keeps the pools: the same tree, root, cursor and sandbox ledger, each leaf a deposit with the amount the ledger knows", async () => {
    const { root } = await writeV2Store();
    const db = await open();
    try {
      const store = new SqlTreeStore(db);
      const [pool] = await store.listPools();
      expect(pool).toMatchObject({ network: "mainnet", mint: MINT, nextIndex: 3, cursor: "3" });
      const tree = new MerkleTree(hasher);
      await store.loadTree(pool!, tree);
      expect(toHex(tree.root())).toBe(toHex(root));
      // Through migration 17 too: the kinds and amounts are read from the page file now.
      expect(await store.listLeaves(pool!, 0, 10)).toEqual(AMOUNTS.map((a, i) => ({ leafIndex: i, kind: "deposit", amount: a })));
      // The sandbox's events keep their ids (the indexer's cursor) and become deposit leaf events.
      expect(db.all("SELECT id, kind, leaf_index, depositor, amount, nullifier_hash FROM sandbox_leaf_events ORDER BY id")).toEqual(
        AMOUNTS.map((a, i) => ({ id: i + 1, kind: "deposit", leaf_index: i, depositor: "D", amount: a.toString(), nullifier_hash: null })),
      );
      expect(db.get("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'sandbox_events'")).toEqual({ n: 0 });
      // The v2 relay is kept; it made no change leaf.
      expect(await new SqlRelayStore(db).get("r1")).toMatchObject({ depositSize: 1000n, relayer: "F", changeCommitment: null, changeLeafIndex: null });
    } finally {
      await db.close();
    }
  });

  it("lets the upgraded sandbox and indexer go on from there: a v3 withdrawal's change leaf follows the v2 deposits, with the same roots on both sides", async () => {
    await writeV2Store();
    const db = await open();
    try {
      const relayer = new Signer(nacl.sign.keyPair().secretKey);
      // What is under test is where the leaf goes after the upgrade, not the proof.
      const chain = new SandboxChain("mainnet", db, hasher, relayer, PROGRAM, { verify: async () => true, close: async () => {} });
      const indexer = new IndexerService(new SqlTreeStore(db), new Map<"mainnet", ChainBackend>([["mainnet", chain]]), hasher, () => "tree");
      await indexer.start();
      const before = (await chain.treeAccount(MINT))!;
      expect(before.nextIndex).toBe(3);
      expect(toHex(indexer.get("mainnet", MINT)!.tree.root())).toBe(toHex(before.root));

      // The ledger's vault holds the v2 deposits' funds.
      await db.write([
        {
          sql: "INSERT INTO sandbox_balances (network, owner, mint, amount) VALUES ('mainnet', ?, ?, ?)",
          params: [vaultAddress(PROGRAM, MINT_KEY), MINT, "3251000"],
        },
      ]);
      const change = hasher.hash([bigIntToBytes32(42n), bigIntToBytes32(43n)]);
      const r = await chain.submitWithdrawal({
        mint: MINT,
        mintBytes: MINT_KEY,
        recipient: encodeBase58(nacl.sign.keyPair().publicKey),
        root: before.root,
        nullifierHash: hasher.hash([bigIntToBytes32(1n)]),
        proof: new Uint8Array(256),
        depositSize: 1_000_000n,
        changeCommitment: change,
        fee: 0n,
      });
      expect(r).toMatchObject({ ok: true, changeLeafIndex: 3 });
      await indexer.sync("mainnet", MINT);
      const pool = indexer.get("mainnet", MINT)!;
      expect(pool.tree.nextIndex).toBe(4);
      expect(pool.drift).toBeNull();
      expect(toHex(pool.tree.root())).toBe(toHex((await chain.treeAccount(MINT))!.root));
      expect(toHex(pool.tree.nodeAt(0, 3))).toBe(toHex(change));
      expect(await new SqlTreeStore(db).listLeaves((await new SqlTreeStore(db).listPools())[0]!, 2, 10)).toEqual([
        { leafIndex: 2, kind: "deposit", amount: 250_000n },
        { leafIndex: 3, kind: "change", amount: null },
      ]);
    } finally {
      await db.close();
    }
  });
});
