import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { MerkleTree } from "../../core/merkle/tree";
import { RelayState } from "../../core/relay/states";
import type { IndexedLeaf } from "../../ports/tree-store";
import { RetentionJob } from "../../services/admin/retention-job";
import { addCensus, CENSUS_CHUNK, fillBuckets, firstBucket, poolLeaves, updateCensus } from "../../services/admin/pools";
import { toAdminRelay } from "../../services/admin/relays";
import { SqlConsoleStore, utcDay } from "./console-store";
import { DurableDb } from "./durable-db";
import { encodeKindRecord, KIND_RECORD, kindPage } from "./leaf-pages";
import { SqlRelayStore } from "./relay-store";
import { MIGRATIONS, SQL_FUNCTIONS } from "./schema-migrations";
import { SqlTreeStore } from "./tree-store";
import { TEST_FENCE } from "../../../tests/support/fence";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 30, 12, 0, 0);

let dir: string;
let db: DurableDb;
let relays: SqlRelayStore;
let store: SqlConsoleStore;
let n = 0;

async function relay(at: number, status: "confirmed" | "failed", fee = 100n, mint = USDC): Promise<string> {
  const id = `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
  await relays.create(
    {
      id,
      kind: "relay",
      network: "mainnet",
      mint,
      outputMint: null,
      recipient: "R",
      nullifierHash: `${n}`.padStart(64, "0"),
      depositSize: 1000n,
      changeCommitment: `${n}`.padStart(64, "c"),
      fee,
      relayer: "F",
      minOut: null,
      receivedAt: at,
      holder: "test",
    },
    RelayState.received(at),
  );
  await relays.advance(id, status === "confirmed" ? RelayState.confirmed(at + 5, "sig", 40 + n) : RelayState.failed(at + 5, "InvalidProof", "bad"));
  return id;
}

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "console-store-"));
  db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
  relays = new SqlRelayStore(db);
  store = new SqlConsoleStore(db);
});
afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("SqlConsoleStore", () => {
  it("pages relays newest first with filters and a cursor", async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await relay(NOW - i * 1000, i % 2 ? "failed" : "confirmed"));
    const first = await store.relays({ limit: 2 });
    expect(first.map((r) => r.id)).toEqual(ids.slice(0, 2));
    const rest = await store.relays({ limit: 10, before: { receivedAt: first[1]!.receivedAt, id: first[1]!.id } });
    expect(rest.map((r) => r.id)).toEqual(ids.slice(2));
    expect((await store.relays({ limit: 10, status: "failed" })).map((r) => r.id)).toEqual([ids[1], ids[3]]);
    expect((await store.relays({ limit: 10, from: NOW - 1500, to: NOW })).map((r) => r.id)).toEqual([ids[1]]);
    expect(await store.relayCounts({})).toEqual({ confirmed: 3, failed: 2 });
    expect((await store.relayById(ids[2]!))?.steps.map((s) => s.kind)).toEqual(["received", "confirmed"]);
  });

  it("folds relays older than the cutoff into daily aggregates and deletes them, adding to earlier folds", async () => {
    await relay(NOW - 40 * DAY, "confirmed", 100n);
    await relay(NOW - 40 * DAY + 1000, "confirmed", 50n);
    await relay(NOW - 40 * DAY + 2000, "failed", 70n);
    await relay(NOW - 31 * DAY, "confirmed", 10n);
    const kept = await relay(NOW - 1 * DAY, "confirmed", 1n);

    const job = new RetentionJob(
      store,
      30,
      () => {},
      () => NOW,
    );
    await job.runOnce();
    expect((await store.relays({ limit: 10 })).map((r) => r.id)).toEqual([kept]);
    expect(db.get("SELECT COUNT(*) AS n FROM relays WHERE recipient = 'R'")).toEqual({ n: 1 });
    const day40 = utcDay(NOW - 40 * DAY);
    expect(await store.dailyAggregates("2000-01-01")).toEqual([
      { day: day40, network: "mainnet", mint: USDC, kind: "relay", status: "confirmed", count: 2, volume: 2000n, fees: 150n },
      { day: day40, network: "mainnet", mint: USDC, kind: "relay", status: "failed", count: 1, volume: 1000n, fees: 0n },
      { day: utcDay(NOW - 31 * DAY), network: "mainnet", mint: USDC, kind: "relay", status: "confirmed", count: 1, volume: 1000n, fees: 10n },
    ]);

    // A late record of an already folded day adds to its aggregate.
    await relay(NOW - 40 * DAY + 3000, "confirmed", 5n);
    expect(await store.pruneRelaysBefore(NOW - 30 * DAY)).toBe(1);
    expect((await store.dailyAggregates(day40))[0]).toMatchObject({ status: "confirmed", count: 3, fees: 155n });
    expect(await store.pruneRelaysBefore(NOW - 30 * DAY)).toBe(0);
  });

  it("keeps the change leaf a relay inserts, and where it went once confirmed", async () => {
    const ok = await relay(NOW, "confirmed");
    const failed = await relay(NOW + 1, "failed");
    expect(toAdminRelay((await store.relayById(ok))!)).toMatchObject({ changeCommitment: `${n - 1}`.padStart(64, "c"), changeLeafIndex: 40 + n - 1 });
    expect(toAdminRelay((await store.relayById(failed))!)).toMatchObject({ changeCommitment: `${n}`.padStart(64, "c"), changeLeafIndex: null });
  });

  it("keeps pause switches for a pool and for a whole network", async () => {
    await store.setPause({ network: "mainnet", mint: null, reason: "upgrade", at: 1 });
    await store.setPause({ network: "devnet", mint: USDC, reason: "audit", at: 2 });
    await store.setPause({ network: "devnet", mint: USDC, reason: "audit, day 2", at: 3 });
    expect(await store.pauses()).toEqual([
      { network: "devnet", mint: USDC, reason: "audit, day 2", at: 3 },
      { network: "mainnet", mint: null, reason: "upgrade", at: 1 },
    ]);
    await store.clearPause("mainnet", null);
    expect(await store.pauses()).toHaveLength(1);
  });
});

describe("leaf census (protocol v3)", () => {
  let hasher: FieldHasher;
  beforeAll(async () => {
    hasher = await createPoseidonHasher();
  });

  /** Appends leaves as the indexer does (tree nodes, page files): a deposit of each amount given, a change leaf for each null. */
  async function appendLeaves(trees: SqlTreeStore, tree: MerkleTree, amounts: (bigint | null)[]): Promise<void> {
    const pool = (await trees.listPools()).find((p) => p.mint === USDC) ?? (await trees.createPool("mainnet", USDC));
    const first = tree.nextIndex;
    const bytes = new Uint8Array(amounts.length * 32);
    amounts.forEach((_, i) => (bytes[i * 32 + 31] = (first + i + 1) & 0xff));
    const r = tree.append(bytes);
    if (!r.ok) throw new Error(r.error);
    const meta: IndexedLeaf[] = amounts.map((amount, i) => ({
      leafIndex: first + i,
      commitment: bytes.subarray(i * 32, i * 32 + 32),
      signature: `sig-${first + i}`,
      slot: first + i,
      ...(amount === null ? { kind: "change" as const, amount: null } : { kind: "deposit" as const, amount }),
    }));
    await trees.saveAppend(pool, r.value, String(tree.nextIndex), meta, TEST_FENCE);
  }

  const ALL = 2 ** 32;

  it("counts leaves by kind and deposits by standard bucket in one read, adding up across consecutive ranges", async () => {
    const trees = new SqlTreeStore(db);
    const tree = new MerkleTree(hasher);
    expect(await store.leafCensus("mainnet", USDC, 0, ALL)).toBeNull();
    // Bucket edges: 999 is in 500's; 1,000 and 1,999 in 1,000's; 2,000 and 4,999 in 2,000's; 5,000 and 9,999 in 5,000's.
    await appendLeaves(trees, tree, [999n, 1000n, 1999n, null, 2000n, 4999n, 5000n, 9999n, null]);
    const first = (await store.leafCensus("mainnet", USDC, 0, ALL))!;
    expect(first).toMatchObject({ upTo: 9, deposits: 7, changes: 2, depositsOfUnknownAmount: 0 });
    expect(first.buckets).toEqual([
      { standard: 500n, count: 1, largest: 999n },
      { standard: 1000n, count: 2, largest: 1999n },
      { standard: 2000n, count: 2, largest: 4999n },
      { standard: 5000n, count: 2, largest: 9999n },
    ]);

    // u64's largest amount and a change leaf, read from where the first census stopped.
    await appendLeaves(trees, tree, [18446744073709551615n, null, 1000n]);
    const more = (await store.leafCensus("mainnet", USDC, first.upTo, ALL))!;
    expect(more).toMatchObject({ upTo: 12, deposits: 2, changes: 1 });
    expect(more.buckets).toEqual([
      { standard: 1000n, count: 1, largest: 1000n },
      { standard: 10_000_000_000_000_000_000n, count: 1, largest: 18446744073709551615n },
    ]);
    const all = (await store.leafCensus("mainnet", USDC, 0, ALL))!;
    expect(addCensus(first, more)).toEqual(all);
    expect(await store.leafCensus("mainnet", USDC, 0, 4)).toMatchObject({ upTo: 4, deposits: 3, changes: 1 });
    expect(await store.leafCensus("mainnet", USDC, all.upTo, ALL)).toEqual({ ...all, deposits: 0, changes: 0, depositsOfUnknownAmount: 0, buckets: [] });
    expect(await updateCensus(store, "mainnet", USDC, first)).toEqual(all);

    // Deposits over time count deposit leaves only.
    const buckets = await store.depositBuckets("mainnet", USDC, Date.now() - DAY, DAY);
    expect(buckets.reduce((n, b) => n + b.count, 0)).toBe(9);
    expect(await store.depositBuckets("mainnet", USDC, Date.now() + DAY, DAY)).toEqual([]);

    // A leaf names its kind and a deposit its amount; a change leaf's value stays private.
    expect(await store.leaf("mainnet", USDC, 3)).toMatchObject({ signature: "sig-3", kind: "change", amount: null });
    expect(await store.leaf("mainnet", USDC, 9)).toMatchObject({ kind: "deposit", amount: "18446744073709551615" });
  });

  it("gives each standard amount from the floor to the largest deposit the deposits of at least it plus every change leaf", async () => {
    const trees = new SqlTreeStore(db);
    const tree = new MerkleTree(hasher);
    // USDC (6 decimals): floor 1,000 base units. Deposits 1,000, 2,500, 3,000,000 and 999 (below the floor), two change leaves.
    await appendLeaves(trees, tree, [1000n, 2500n, null, 3_000_000n, 999n, null]);
    const leaves = poolLeaves(await store.leafCensus("mainnet", USDC, 0, ALL), USDC);
    expect(leaves).toMatchObject({ deposits: 4, changes: 2, depositsOfUnknownAmount: 0, largestDeposit: "3000000", decimals: 6, standardFloor: "1000" });
    const sets = Object.fromEntries(leaves.anonymitySets.map((s) => [s.amount, [s.deposits, s.notes]]));
    expect(sets).toEqual({
      "1000": [3, 5],
      "2000": [2, 4],
      "5000": [1, 3],
      "10000": [1, 3],
      "20000": [1, 3],
      "50000": [1, 3],
      "100000": [1, 3],
      "200000": [1, 3],
      "500000": [1, 3],
      "1000000": [1, 3],
      "2000000": [1, 3],
    });
    // SOL (9 decimals) starts at 10^6 lamports, a mint of unknown decimals at 1,000 base units.
    expect(poolLeaves(await store.leafCensus("mainnet", USDC, 0, ALL), "So11111111111111111111111111111111111111112")).toMatchObject({
      standardFloor: "1000000",
      anonymitySets: [
        { amount: "1000000", deposits: 1, notes: 3 },
        { amount: "2000000", deposits: 1, notes: 3 },
      ],
    });
    expect(poolLeaves(await store.leafCensus("mainnet", USDC, 0, ALL), "Unknown1111111111111111111111111111111111111").standardFloor).toBe("1000");
    expect(poolLeaves(null, USDC)).toMatchObject({ deposits: 0, changes: 0, largestDeposit: null, anonymitySets: [] });
  });

  it("leaves deposits indexed before v3 without an amount out of every set, and says how many", async () => {
    const trees = new SqlTreeStore(db);
    const tree = new MerkleTree(hasher);
    await appendLeaves(trees, tree, [5000n, 5000n, null]);
    const pool = (await trees.listPools())[0]!;
    // As migration 17 writes a row of migration 15 that had no amount.
    await db.write([{ sql: "SELECT page_put(?, ?, leaf_kind('deposit', NULL))", params: [kindPage(pool.id), 1 * KIND_RECORD] }]);
    const leaves = poolLeaves(await store.leafCensus("mainnet", USDC, 0, ALL), USDC);
    expect(leaves).toMatchObject({ deposits: 2, changes: 1, depositsOfUnknownAmount: 1, largestDeposit: "5000" });
    expect(leaves.anonymitySets).toEqual([
      { amount: "1000", deposits: 1, notes: 2 },
      { amount: "2000", deposits: 1, notes: 2 },
      { amount: "5000", deposits: 1, notes: 2 },
    ]);
  });

  it("counts a million leaves in grouped reads of CENSUS_CHUNK leaves, each answering a handful of rows", async () => {
    const trees = new SqlTreeStore(db);
    const pool = await trees.createPool("mainnet", USDC);
    // Kind records and the leaf count only (the census reads nothing else): deposits of 1 .. 10^6 base units, every tenth leaf a change leaf.
    const kinds = new Uint8Array(1_000_000 * KIND_RECORD);
    const view = new DataView(kinds.buffer);
    for (let n = 0; n < 1_000_000; n++) encodeKindRecord(n % 10 === 9 ? "change" : "deposit", n % 10 === 9 ? null : BigInt(n + 1), view, n * KIND_RECORD);
    await db.write([
      { sql: "SELECT page_put(?, 0, ?)", params: [kindPage(pool.id), kinds] },
      { sql: "UPDATE pools SET next_index = 1000000 WHERE id = ?", params: [pool.id] },
    ]);
    const reads: { from: number; to: number; buckets: number }[] = [];
    const counting = {
      leafCensus: async (network: "mainnet", mint: string, from: number, to: number) => {
        const c = await store.leafCensus(network, mint, from, to);
        reads.push({ from, to, buckets: c?.buckets.length ?? 0 });
        return c;
      },
    };
    const census = (await updateCensus(counting, "mainnet", USDC, null))!;
    expect(census).toMatchObject({ upTo: 1_000_000, deposits: 900_000, changes: 100_000, depositsOfUnknownAmount: 0 });
    expect(reads).toHaveLength(Math.ceil(1_000_000 / CENSUS_CHUNK));
    expect(reads.every((r, i) => r.from === i * CENSUS_CHUNK && r.to === r.from + CENSUS_CHUNK && r.buckets <= 62)).toBe(true);
    // Deposits of at least x: amounts x .. 10^6 whose leaf is not a change leaf (amount n + 1 at leaf n, a change leaf when n % 10 = 9).
    const atLeast = (x: number) => Array.from({ length: 1_000_001 - x }, (_, k) => x + k).filter((a) => (a - 1) % 10 !== 9).length;
    const sets = poolLeaves(census, USDC).anonymitySets;
    // The largest deposit is 999,999 (leaf 999,999 is a change leaf): the sets stop at 500,000.
    expect(poolLeaves(census, USDC).largestDeposit).toBe("999999");
    expect(sets.map((s) => s.amount)).toEqual(["1000", "2000", "5000", "10000", "20000", "50000", "100000", "200000", "500000"]);
    for (const s of sets) expect(s, s.amount).toEqual({ amount: s.amount, deposits: atLeast(Number(s.amount)), notes: atLeast(Number(s.amount)) + 100_000 });
    // Afterwards only new leaves are read.
    reads.length = 0;
    expect(await updateCensus(counting, "mainnet", USDC, census)).toEqual(census);
    expect(reads).toEqual([{ from: 1_000_000, to: 1_000_000 + CENSUS_CHUNK, buckets: 0 }]);
  }, 120_000);
});

describe("chart buckets", () => {
  it("fills every bucket of the range, aligned to the epoch, zero where empty", () => {
    const hour = 3_600_000;
    const now = Date.UTC(2026, 0, 2, 10, 30);
    const start = firstBucket(now, 24 * hour, hour);
    expect(start).toBe(Date.UTC(2026, 0, 1, 11));
    const b = fillBuckets([{ at: start + hour, count: 3 }], now, 24 * hour, hour);
    expect(b).toHaveLength(24);
    expect(b[0]).toEqual({ at: start, count: 0 });
    expect(b[1]).toEqual({ at: start + hour, count: 3 });
    expect(b[23]!.at).toBe(Date.UTC(2026, 0, 2, 10));
  });
});
