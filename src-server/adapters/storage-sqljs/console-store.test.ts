import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RelayState } from "../../core/relay/states";
import { RetentionJob } from "../../services/admin/retention-job";
import { fillBuckets, firstBucket } from "../../services/admin/pools";
import { SqlConsoleStore, utcDay } from "./console-store";
import { DurableDb } from "./durable-db";
import { SqlRelayStore } from "./relay-store";
import { MIGRATIONS, SQL_FUNCTIONS } from "./schema-migrations";

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
      fee,
      relayer: "F",
      minOut: null,
      receivedAt: at,
    },
    RelayState.received(at),
  );
  await relays.advance(id, status === "confirmed" ? RelayState.confirmed(at + 5, "sig") : RelayState.failed(at + 5, "InvalidProof", "bad"));
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
    const first = store.relays({ limit: 2 });
    expect(first.map((r) => r.id)).toEqual(ids.slice(0, 2));
    const rest = store.relays({ limit: 10, before: { receivedAt: first[1]!.receivedAt, id: first[1]!.id } });
    expect(rest.map((r) => r.id)).toEqual(ids.slice(2));
    expect(store.relays({ limit: 10, status: "failed" }).map((r) => r.id)).toEqual([ids[1], ids[3]]);
    expect(store.relays({ limit: 10, from: NOW - 1500, to: NOW }).map((r) => r.id)).toEqual([ids[1]]);
    expect(store.relayCounts({})).toEqual({ confirmed: 3, failed: 2 });
    expect(store.relayById(ids[2]!)?.steps.map((s) => s.kind)).toEqual(["received", "confirmed"]);
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
    expect(store.relays({ limit: 10 }).map((r) => r.id)).toEqual([kept]);
    expect(db.get("SELECT COUNT(*) AS n FROM relays WHERE recipient = 'R'")).toEqual({ n: 1 });
    const day40 = utcDay(NOW - 40 * DAY);
    expect(store.dailyAggregates("2000-01-01")).toEqual([
      { day: day40, network: "mainnet", mint: USDC, kind: "relay", status: "confirmed", count: 2, volume: 2000n, fees: 150n },
      { day: day40, network: "mainnet", mint: USDC, kind: "relay", status: "failed", count: 1, volume: 1000n, fees: 0n },
      { day: utcDay(NOW - 31 * DAY), network: "mainnet", mint: USDC, kind: "relay", status: "confirmed", count: 1, volume: 1000n, fees: 10n },
    ]);

    // A late record of an already folded day adds to its aggregate.
    await relay(NOW - 40 * DAY + 3000, "confirmed", 5n);
    expect(await store.pruneRelaysBefore(NOW - 30 * DAY)).toBe(1);
    expect(store.dailyAggregates(day40)[0]).toMatchObject({ status: "confirmed", count: 3, fees: 155n });
    expect(await store.pruneRelaysBefore(NOW - 30 * DAY)).toBe(0);
  });

  it("keeps pause switches for a pool and for a whole network", async () => {
    await store.setPause({ network: "mainnet", mint: null, reason: "upgrade", at: 1 });
    await store.setPause({ network: "devnet", mint: USDC, reason: "audit", at: 2 });
    await store.setPause({ network: "devnet", mint: USDC, reason: "audit, day 2", at: 3 });
    expect(store.pauses()).toEqual([
      { network: "devnet", mint: USDC, reason: "audit, day 2", at: 3 },
      { network: "mainnet", mint: null, reason: "upgrade", at: 1 },
    ]);
    await store.clearPause("mainnet", null);
    expect(store.pauses()).toHaveLength(1);
  });
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
