/**
 * Same records in, same records out: every store of the PostgreSQL adapter answers what the
 * sql.js adapter answers for the same writes (relays, reverts, tokens, alerts, compliance,
 * sanctions overrides, the console's reads over relays, leaves and roots).
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { MerkleTree } from "../../core/merkle/tree";
import { RelayState } from "../../core/relay/states";
import { RevertState } from "../../core/revert/states";
import type { IndexedLeaf } from "../../ports/tree-store";
import { SqlAlertStore } from "../storage-sqljs/alert-store";
import { SqlAuthStore } from "../storage-sqljs/auth-store";
import { SqlComplianceLog } from "../storage-sqljs/compliance-log";
import { SqlConsoleStore } from "../storage-sqljs/console-store";
import type { DurableDb } from "../storage-sqljs/durable-db";
import { SqlRelayStore } from "../storage-sqljs/relay-store";
import { SqlRevertStore } from "../storage-sqljs/revert-store";
import { SqlSanctionsStore } from "../storage-sqljs/sanctions-store";
import { SqlTreeStore } from "../storage-sqljs/tree-store";
import { pgStoresPerTest } from "../../../tests/support/pg-stores";
import { storeDirPerTest } from "../../../tests/support/store-dir";
import type { PgStores } from "./open";
import { PgDatabase } from "./pool";
import { PgTreeStore } from "./tree-store";
import type { NewRelayRecord as HeldNewRelayRecord } from "../../ports/relay-store";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const WSOL = "So11111111111111111111111111111111111111112";
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 30, 12, 0, 0);
const NOW_SEC = NOW / 1000;

const pg = pgStoresPerTest();
const dir = storeDirPerTest("pg-same-records-");
let hasher: FieldHasher;
beforeAll(async () => {
  hasher = await createPoseidonHasher();
});

function sqlSide(db: DurableDb) {
  return {
    relays: new SqlRelayStore(db),
    reverts: new SqlRevertStore(db),
    auth: new SqlAuthStore(db),
    alerts: new SqlAlertStore(db),
    compliance: new SqlComplianceLog(db),
    console: new SqlConsoleStore(db),
    sanctions: new SqlSanctionsStore(db),
  };
}

function pgSide(s: PgStores) {
  return {
    relays: s.relays,
    reverts: s.reverts,
    auth: s.auth,
    alerts: s.alerts,
    compliance: s.compliance,
    console: s.console,
    sanctions: s.sanctionsOverrides,
  };
}

type Side = ReturnType<typeof sqlSide> | ReturnType<typeof pgSide>;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** The holder is PostgreSQL's alone until the sql.js records carry it too. */
function comparable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(comparable);
  if (v && typeof v === "object" && !(v instanceof Uint8Array)) {
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => k !== "holder")
        .map(([k, x]) => [k, comparable(x)]),
    );
  }
  return v;
}

async function engines(): Promise<{
  sql: Side;
  pg: Side;
  sqlDb: DurableDb;
  pgStores: PgStores;
  same<R>(f: (s: Side) => R): Promise<Awaited<R>>;
  both(f: (s: Side) => unknown): Promise<void>;
}> {
  const sqlDb = await dir.open();
  closers.push(() => sqlDb.close());
  const pgStores = await pg.open();
  const sql = sqlSide(sqlDb);
  const pgs = pgSide(pgStores);
  return {
    sql,
    pg: pgs,
    sqlDb,
    pgStores,
    async same<R>(f: (s: Side) => R): Promise<Awaited<R>> {
      const want = await f(sql);
      const got = await f(pgs);
      expect(comparable(got)).toEqual(comparable(want));
      return got;
    },
    async both(f) {
      await f(sql);
      await f(pgs);
    },
  };
}

let n = 0;
function relayRecord(at: number, over: Partial<HeldNewRelayRecord> = {}): HeldNewRelayRecord {
  n++;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    kind: "relay",
    network: "mainnet",
    mint: USDC,
    outputMint: null,
    recipient: `R${n % 3}`,
    nullifierHash: `${n}`.padStart(64, "0"),
    depositSize: 1000n * BigInt(n),
    changeCommitment: `${n}`.padStart(64, "c"),
    fee: 10n * BigInt(n),
    relayer: "F",
    minOut: null,
    receivedAt: at,
    holder: "instance-a",
    ...over,
  };
}

describe("PostgreSQL stores give back what the sql.js stores do", () => {
  it("relays, and the console's pages, counts and lookups over them", async () => {
    const e = await engines();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const r = relayRecord(NOW - i * 1000, { network: i === 3 ? "devnet" : "mainnet", mint: i === 5 ? WSOL : USDC });
      ids.push(r.id);
      await e.both((s) => s.relays.create(r, RelayState.received(r.receivedAt)));
      await e.both((s) => s.relays.advance(r.id, RelayState.verified(r.receivedAt + 1, 20 + i)));
      if (i % 3 === 0) await e.both((s) => s.relays.advance(r.id, RelayState.confirmed(r.receivedAt + 5, `sig${i}`, 40 + i)));
      if (i % 3 === 1) await e.both((s) => s.relays.advance(r.id, RelayState.failed(r.receivedAt + 5, "InvalidProof", "bad")));
    }
    await e.same((s) => s.relays.get(ids[2]!));
    await e.same((s) => s.relays.unfinished());
    await e.same((s) => s.relays.recent(4));
    const first = await e.same((s) => s.console.relays({ limit: 3 }));
    await e.same((s) => s.console.relays({ limit: 10, before: { receivedAt: first[2]!.receivedAt, id: first[2]!.id } }));
    await e.same((s) => s.console.relays({ limit: 10, status: "confirmed", network: "mainnet", mint: USDC }));
    await e.same((s) => s.console.relays({ limit: 10, from: NOW - 4500, to: NOW - 1000 }));
    await e.same((s) => s.console.relayById(ids[4]!));
    await e.same((s) => s.console.relayById("missing"));
    await e.same((s) => s.console.relayCounts({}));
    await e.same((s) => s.console.relayCounts({ network: "mainnet", from: NOW - 3500 }));
    await e.same((s) => s.console.relaysByNullifier(`${n - 2}`.padStart(64, "0")));
    await e.same((s) => s.console.confirmedSince(NOW - 3500));
  });

  it("folds old relays into daily aggregates the same way, adding to earlier folds", async () => {
    const e = await engines();
    const add = async (at: number, status: "confirmed" | "failed", fee: bigint, kind: "relay" | "swap" = "relay"): Promise<void> => {
      const r = relayRecord(at, { fee, kind });
      await e.both((s) => s.relays.create(r, RelayState.received(at)));
      await e.both((s) => s.relays.advance(r.id, status === "confirmed" ? RelayState.confirmed(at + 5, "sig") : RelayState.failed(at + 5, "RelayFailed", "x")));
    };
    await add(NOW - 40 * DAY, "confirmed", 100n);
    await add(NOW - 40 * DAY + 1000, "confirmed", 50n, "swap");
    await add(NOW - 40 * DAY + 2000, "failed", 70n);
    await add(NOW - 31 * DAY, "confirmed", 10n);
    await add(NOW - DAY, "confirmed", 1n);
    expect(await e.same((s) => s.console.pruneRelaysBefore(NOW - 30 * DAY))).toBe(4);
    await add(NOW - 40 * DAY + 3000, "confirmed", 5n);
    expect(await e.same((s) => s.console.pruneRelaysBefore(NOW - 30 * DAY))).toBe(1);
    expect(await e.same((s) => s.console.pruneRelaysBefore(NOW - 30 * DAY))).toBe(0);
    // Within a day the order is the engine's own: compared sorted.
    const key = (d: { day: string; kind: string; status: string }): string => `${d.day} ${d.kind} ${d.status}`;
    const days = await e.same(async (s) => [...(await s.console.dailyAggregates("2000-01-01"))].sort((a, b) => (key(a) < key(b) ? -1 : 1)));
    expect(days.find((d) => d.status === "confirmed" && d.kind === "relay")).toMatchObject({ count: 2, fees: 105n });
    await e.same((s) => s.console.relays({ limit: 10 }));
  });

  it("the console's pauses and fee overrides, and no archived pools", async () => {
    const e = await engines();
    await e.both((s) => s.console.setPause({ network: "mainnet", mint: null, reason: "upgrade", at: 1 }));
    await e.both((s) => s.console.setPause({ network: "devnet", mint: USDC, reason: "audit", at: 2 }));
    await e.both((s) => s.console.setPause({ network: "devnet", mint: USDC, reason: "audit, day 2", at: 3 }));
    await e.same((s) => s.console.pauses());
    await e.both((s) => s.console.clearPause("mainnet", null));
    await e.same((s) => s.console.pauses());
    await e.both((s) =>
      s.console.setFeeOverride({ network: "mainnet", mint: null, policy: { bps: 30, floor: 5000n }, previous: { bps: 25, floor: 4000n }, at: 4 }),
    );
    await e.both((s) =>
      s.console.setFeeOverride({ network: "mainnet", mint: USDC, policy: null, previous: { bps: 10, floor: 18_446_744_073_709_551_615n }, at: 5 }),
    );
    await e.same((s) => s.console.feeOverrides());
    await e.same((s) => s.console.archivedPools());
  });

  it("indexed leaves, roots, deposit buckets and leaf censuses", async () => {
    const e = await engines();
    const sqlTree = new SqlTreeStore(e.sqlDb, () => NOW_SEC);
    const pgDb = new PgDatabase({ url: pg.urlOf(e.pgStores) });
    closers.push(() => pgDb.close());
    const pgTree = new PgTreeStore(pgDb, () => NOW_SEC);
    const sqlPool = await sqlTree.createPool("mainnet", USDC);
    const pgPool = await pgTree.createPool("mainnet", USDC);
    expect(pgPool).toEqual(sqlPool);
    const lease = await e.pgStores.coordination.lead("mainnet", 60_000);
    const fence = { network: "mainnet" as const, holder: e.pgStores.coordination.instanceId, epoch: lease!.epoch };
    const sqlMerkle = new MerkleTree(hasher);
    const pgMerkle = new MerkleTree(hasher);
    // Deposits of amounts in several standard buckets (and one of amount 0), change leaves between them.
    const amounts = [1n, 2n, 3n, 5n, 9n, 10n, 0n, 150n, 18_446_744_073_709_551_615n, 7n, 20n, 55n];
    let next = 0;
    for (const batch of [3, 1, 5, 3]) {
      const bytes = new Uint8Array(batch * 32);
      const meta: IndexedLeaf[] = [];
      for (let i = 0; i < batch; i++) {
        const index = next + i;
        bytes[i * 32 + 31] = index + 1;
        const commitment = bytes.slice(i * 32, i * 32 + 32);
        meta.push(
          index % 4 === 3
            ? { leafIndex: index, commitment, signature: `change${index}`, slot: 100 + index, kind: "change", amount: null }
            : { leafIndex: index, commitment, signature: `deposit${index}`, slot: 100 + index, kind: "deposit", amount: amounts[index]! },
        );
      }
      const a = sqlMerkle.append(bytes);
      const b = pgMerkle.append(bytes);
      if (!a.ok || !b.ok) throw new Error("append");
      await sqlTree.saveAppend(sqlPool, a.value, `c${next}`, meta, fence);
      await pgTree.saveAppend(pgPool, b.value, `c${next}`, meta, fence);
      next += batch;
    }
    expect(pgPool).toEqual(sqlPool);
    expect(await pgTree.listPools()).toEqual(await sqlTree.listPools());
    expect(await pgTree.listLeaves(pgPool, 2, 10)).toEqual(await sqlTree.listLeaves(sqlPool, 2, 10));
    await e.same((s) => s.console.recentRoots("mainnet", USDC, 3));
    await e.same((s) => s.console.recentRoots("devnet", USDC, 3));
    for (const index of [0, 3, 8, 11, 12, -1]) await e.same((s) => s.console.leaf("mainnet", USDC, index));
    await e.same((s) => s.console.leafCensus("mainnet", USDC, 0, 12));
    await e.same((s) => s.console.leafCensus("mainnet", USDC, 4, 9));
    await e.same((s) => s.console.leafCensus("mainnet", WSOL, 0, 12));
    await e.same((s) => s.console.depositBuckets("mainnet", USDC, NOW - DAY, 3_600_000));
    await e.same((s) => s.console.depositBuckets("mainnet", USDC, NOW + 1000, 3_600_000));
  });

  it("reverts, with a wallet's quota and what was paid back", async () => {
    const e = await engines();
    const revert = (i: number, wallet: string) => ({ id: `rev-${i}`, network: "mainnet" as const, depositSignature: `dep${i}`, wallet, requestedAt: NOW + i });
    for (let i = 0; i < 5; i++) await e.both((s) => s.reverts.create(revert(i, i % 2 ? "W1" : "W2"), RevertState.requested(NOW + i)));
    await e.both((s) => s.reverts.advance("rev-0", RevertState.submitted(NOW + 10), { mint: USDC, amount: 18_446_744_073_709_551_615n }));
    await e.both((s) => s.reverts.advance("rev-0", RevertState.processed(NOW + 11, "rsig0")));
    await e.both((s) => s.reverts.advance("rev-2", RevertState.submitted(NOW + 12), { mint: USDC, amount: 5n }));
    await e.both((s) => s.reverts.advance("rev-2", RevertState.processed(NOW + 13, "rsig2")));
    await e.both((s) => s.reverts.advance("rev-1", RevertState.submitted(NOW + 14), { mint: WSOL, amount: 7n }));
    await e.both((s) => s.reverts.advance("rev-3", RevertState.failed(NOW + 15, "RevertFailed", "no deposit")));
    await e.same((s) => s.reverts.get("rev-0"));
    await e.same((s) => s.reverts.get("rev-3"));
    await e.same((s) => s.reverts.get("missing"));
    await e.same((s) => s.reverts.recent(3));
    await e.same((s) => s.reverts.paidOrSentSince("W2", NOW));
    await e.same((s) => s.reverts.paidOrSentSince("W1", NOW + 2));
    const back = async (s: Side) => [...(await s.reverts.paidBack())].sort((a, b) => (a.network + a.mint < b.network + b.mint ? -1 : 1));
    expect(await e.same(back)).toEqual([{ network: "mainnet", mint: USDC, reverts: 2, amount: 18_446_744_073_709_551_620n }]);
  });

  it("login replays, tokens and their pruning", async () => {
    const e = await engines();
    expect(await e.same((s) => s.auth.consumeLogin("W", 1_700_000_000, NOW_SEC + 60))).toBe(true);
    expect(await e.same((s) => s.auth.consumeLogin("W", 1_700_000_000, NOW_SEC + 60))).toBe(false);
    await e.both((s) => s.auth.saveToken({ id: "tok-1", wallet: "W", expiresAt: NOW_SEC + 10 }, NOW_SEC));
    await e.both((s) => s.auth.saveToken({ id: "tok-2", wallet: "W", expiresAt: NOW_SEC + 100 }, NOW_SEC));
    await e.same((s) => s.auth.findToken("tok-1"));
    await e.both((s) => s.auth.prune(NOW_SEC + 60));
    expect(await e.same((s) => s.auth.findToken("tok-1"))).toBeNull();
    await e.same((s) => s.auth.findToken("tok-2"));
    expect(await e.same((s) => s.auth.consumeLogin("W", 1_700_000_000, NOW_SEC + 60))).toBe(true);
  });

  it("alerts from firing to resolution, and the rule overrides", async () => {
    const e = await engines();
    const fired = await e.same((s) =>
      s.alerts.fire({ rule: "indexer-lag", subject: "mainnet", summary: "lag", detail: "60 s", startedAt: NOW, lastNotifiedAt: NOW, notifications: 1 }),
    );
    await e.same((s) =>
      s.alerts.fire({ rule: "disk-space", subject: "relay", summary: "disk", detail: "5%", startedAt: NOW + 1, lastNotifiedAt: NOW + 1, notifications: 1 }),
    );
    await e.both((s) => s.alerts.notified(fired.id, NOW + 5, "lag again", "90 s"));
    await e.same((s) => s.alerts.open());
    await e.both((s) => s.alerts.resolve(fired.id, NOW + 9));
    await e.both((s) => s.alerts.resolve(fired.id, NOW + 10));
    await e.same((s) => s.alerts.open());
    await e.same((s) => s.alerts.recent(5));
    await e.same((s) => s.alerts.ruleOverrides());
    await e.both((s) => s.alerts.setRuleOverrides({ indexerLagSec: 120, diskFreePercent: null }));
    await e.same((s) => s.alerts.ruleOverrides());
  });

  it("compliance decisions, newest first, by address", async () => {
    const e = await engines();
    await e.both((s) =>
      s.compliance.record({
        at: NOW,
        purpose: "relay_recipient",
        network: "mainnet",
        address: "A",
        outcome: "clear",
        listVersion: "v1",
        expiresAt: null,
        detail: null,
      }),
    );
    await e.both((s) =>
      s.compliance.record({
        at: NOW + 1,
        purpose: "ofac_signature",
        network: null,
        address: "B",
        outcome: "issued",
        listVersion: "v1",
        expiresAt: NOW_SEC + 3600,
        detail: "ok",
      }),
    );
    await e.both((s) =>
      s.compliance.record({
        at: NOW + 2,
        purpose: "ofac_signature",
        network: null,
        address: "A",
        outcome: "error",
        listVersion: null,
        expiresAt: null,
        detail: "no list",
      }),
    );
    await e.same((s) => s.compliance.recent(10));
    await e.same((s) => s.compliance.recent(1, "A"));
  });

  it("sanctions overrides and their history", async () => {
    const e = await engines();
    await e.both((s) => s.sanctions.putOverride({ address: "X", action: "add", reason: "court order", createdAt: NOW }));
    await e.both((s) => s.sanctions.putOverride({ address: "Y", action: "remove", reason: "false positive", createdAt: NOW + 1 }));
    await e.both((s) => s.sanctions.putOverride({ address: "X", action: "remove", reason: "lifted", createdAt: NOW + 2 }));
    expect(await e.same((s) => s.sanctions.clearOverride("Y", "done", NOW + 3))).toBe(true);
    expect(await e.same((s) => s.sanctions.clearOverride("Y", "again", NOW + 4))).toBe(false);
    await e.same((s) => s.sanctions.overrides());
    await e.same((s) => s.sanctions.history());
    await e.same((s) => s.sanctions.history("X"));
    const version = { version: "v1+ab", baseVersion: "v1", source: "/lists/ofac.txt", contentSha256: "00ff", count: 10, baseCount: 9, overrides: 1, at: NOW };
    await e.both((s) => s.sanctions.recordVersion(version));
    await e.both((s) => s.sanctions.recordVersion({ ...version, source: "https://example.org/ofac.txt", at: NOW + 5 }));
    const probe = new PgDatabase({ url: pg.urlOf(e.pgStores) });
    closers.push(() => probe.close());
    const rows = await probe.query("SELECT source, first_at, last_at FROM sanctions_versions");
    expect(rows).toEqual([{ source: "https://example.org/ofac.txt", first_at: NOW, last_at: NOW + 5 }]);
  });
});
