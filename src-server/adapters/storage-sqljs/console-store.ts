import type { AdminArchivedPool } from "../../../src-shared/api/admin";
import { toHex } from "../../../src-shared/encoding/bytes";
import type { Network } from "../../../src-shared/networks";
import type { RelayState } from "../../core/relay/states";
import type { ConsoleStore, LeafCensus, RelayDailyAggregate, RelayFilter, RelayPageQuery, StoredFeeOverride, StoredPause } from "../../ports/console-store";
import type { RelayRecord } from "../../ports/relay-store";
import type { DurableDb, SqlStatement, SqlValue } from "./durable-db";
import {
  censusOfKinds,
  decodeKindRecord,
  decodeLeafRecord,
  isChangeRecord,
  LEAF_RECORD,
  leafPage,
  readKinds,
  readLeafTimes,
  TIME_BYTES,
  timePage,
} from "./leaf-pages";
import { RELAY_COLUMNS } from "../storage-rows/relay-rows";
import * as consoleRows from "../storage-rows/console-rows";
import { toRelayRecord, type RelayRow } from "./relay-store";

const DAY_MS = 86_400_000;

export const utcDay = (ms: number): string => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);

/** The console's queries over relays, indexed leaves (page files, migration 13) and roots (migrations 1 and 4) and its own tables (migration 8). */
export class SqlConsoleStore implements ConsoleStore {
  constructor(private readonly db: DurableDb) {}

  async relays(q: RelayPageQuery): Promise<RelayRecord[]> {
    const { where, params } = relayWhere(q);
    if (q.before) {
      where.push("(received_at < ? OR (received_at = ? AND id > ?))");
      params.push(q.before.receivedAt, q.before.receivedAt, q.before.id);
    }
    const sql = `SELECT ${RELAY_COLUMNS} FROM relays ${clause(where)} ORDER BY received_at DESC, id LIMIT ?`;
    return this.db.all<RelayRow>(sql, [...params, q.limit]).map(toRelayRecord);
  }

  async relayById(id: string): Promise<RelayRecord | null> {
    const row = this.db.get<RelayRow>(`SELECT ${RELAY_COLUMNS} FROM relays WHERE id = ?`, [id]);
    return row ? toRelayRecord(row) : null;
  }

  async relayCounts(f: RelayFilter): Promise<Partial<Record<RelayState["kind"], number>>> {
    const { where, params } = relayWhere(f);
    const rows = this.db.all<{ status: RelayState["kind"]; n: number }>(`SELECT status, COUNT(*) AS n FROM relays ${clause(where)} GROUP BY status`, params);
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  async relaysByNullifier(nullifierHex: string): Promise<RelayRecord[]> {
    return this.db
      .all<RelayRow>(`SELECT ${RELAY_COLUMNS} FROM relays WHERE nullifier_hash = ? ORDER BY received_at DESC, id LIMIT 50`, [nullifierHex])
      .map(toRelayRecord);
  }

  async confirmedSince(fromMs: number): Promise<{ receivedAt: number; network: Network; mint: string; depositSize: bigint; fee: bigint }[]> {
    return this.db
      .all<consoleRows.ConfirmedRelayRow>(
        "SELECT received_at, network, mint, deposit_size, fee FROM relays WHERE status = 'confirmed' AND received_at >= ? ORDER BY received_at",
        [fromMs],
      )
      .map(consoleRows.toConfirmedRelay);
  }

  async depositBuckets(network: Network, mint: string, fromMs: number, bucketMs: number): Promise<{ at: number; count: number }[]> {
    // Indexed-at times are Unix seconds, one per leaf in the pool's times page file.
    const pool = this.pool(network, mint);
    if (!pool) return [];
    const bucketSec = Math.max(1, Math.round(bucketMs / 1000));
    const from = Math.floor(fromMs / 1000);
    const times = readLeafTimes(this.db.pages, pool.id, pool.next_index);
    const firstInRange = times.findIndex((t) => t !== 0 && t >= from);
    if (firstInRange < 0) return [];
    // Protocol v3: withdrawals' change leaves have times too; only the range's own kinds are read.
    const kinds = readKinds(this.db.pages, pool.id, firstInRange, pool.next_index);
    for (let i = firstInRange; i < times.length; i++) if (isChangeRecord(kinds, i - firstInRange)) times[i] = 0;
    const counts = new Map<number, number>();
    for (let i = firstInRange; i < times.length; i++) {
      const t = times[i]!;
      if (t === 0 || t < from) continue;
      const b = Math.floor(t / bucketSec) * bucketSec;
      counts.set(b, (counts.get(b) ?? 0) + 1);
    }
    return [...counts.entries()].sort((x, y) => x[0] - y[0]).map(([b, n]) => ({ at: b * 1000, count: n }));
  }

  async recentRoots(network: Network, mint: string, limit: number): Promise<{ root: Uint8Array; nextIndex: number; at: number }[]> {
    return this.db
      .all<{ root: Uint8Array; next_index: number; created_at: number }>(
        `SELECT r.root, r.next_index, r.created_at FROM tree_roots r JOIN pools p ON p.id = r.pool_id
         WHERE p.network = ? AND p.mint = ? ORDER BY r.seq DESC LIMIT ?`,
        [network, mint, limit],
      )
      .map((r) => ({ root: r.root, nextIndex: r.next_index, at: r.created_at * 1000 }));
  }

  async leaf(
    network: Network,
    mint: string,
    leafIndex: number,
  ): Promise<{ signature: string; slot: number; indexedAt: number; kind: "deposit" | "change"; amount: string | null } | null> {
    const pool = this.pool(network, mint);
    if (!pool || !Number.isSafeInteger(leafIndex) || leafIndex < 0 || leafIndex >= pool.next_index) return null;
    const rec = decodeLeafRecord(this.db.pages.read(leafPage(pool.id), leafIndex * LEAF_RECORD, LEAF_RECORD));
    if (!rec) return null;
    const time = this.db.pages.read(timePage(pool.id), leafIndex * TIME_BYTES, TIME_BYTES);
    const indexedAt = time.length === TIME_BYTES ? new DataView(time.buffer, time.byteOffset, TIME_BYTES).getUint32(0, true) : 0;
    const kind = decodeKindRecord(readKinds(this.db.pages, pool.id, leafIndex, leafIndex + 1), 0);
    return {
      signature: rec.signature,
      slot: rec.slot,
      indexedAt: indexedAt * 1000,
      kind: kind?.kind ?? "deposit",
      amount: kind?.amount === null || kind?.amount === undefined ? null : kind.amount.toString(),
    };
  }

  async leafCensus(network: Network, mint: string, fromLeaf: number, toLeaf: number): Promise<LeafCensus | null> {
    const pool = this.pool(network, mint);
    if (!pool) return null;
    // Only the committed prefix of the kinds page file is trusted (see PageFiles).
    const from = Math.max(0, fromLeaf);
    const to = Math.min(toLeaf, pool.next_index);
    return consoleRows.foldCensus(pool.id, fromLeaf, to > from ? censusOfKinds(readKinds(this.db.pages, pool.id, from, to), from) : []);
  }

  private pool(network: Network, mint: string): { id: number; next_index: number } | undefined {
    return this.db.get<{ id: number; next_index: number }>("SELECT id, next_index FROM pools WHERE network = ? AND mint = ?", [network, mint]);
  }

  async dailyAggregates(fromDay: string): Promise<RelayDailyAggregate[]> {
    return this.db
      .all<consoleRows.RelayDailyRow>("SELECT day, network, mint, kind, status, count, volume, fees FROM relay_daily WHERE day >= ? ORDER BY day", [fromDay])
      .map(consoleRows.toRelayDailyAggregate);
  }

  async pruneRelaysBefore(cutoffMs: number): Promise<number> {
    // Reads and the write are issued in one synchronous turn: nothing can slip in between.
    const rows = this.db.all<{
      kind: "relay" | "swap";
      network: Network;
      mint: string;
      status: RelayState["kind"];
      deposit_size: string;
      fee: string;
      received_at: number;
    }>("SELECT kind, network, mint, status, deposit_size, fee, received_at FROM relays WHERE received_at < ?", [cutoffMs]);
    if (rows.length === 0) return 0;
    const sums = new Map<string, RelayDailyAggregate>();
    for (const r of rows) {
      const day = utcDay(r.received_at);
      const key = [day, r.network, r.mint, r.kind, r.status].join("|");
      let agg = sums.get(key);
      if (!agg) {
        const prev = this.db.get<{ count: number; volume: string; fees: string }>(
          "SELECT count, volume, fees FROM relay_daily WHERE day = ? AND network = ? AND mint = ? AND kind = ? AND status = ?",
          [day, r.network, r.mint, r.kind, r.status],
        );
        agg = {
          day,
          network: r.network,
          mint: r.mint,
          kind: r.kind,
          status: r.status,
          count: prev?.count ?? 0,
          volume: BigInt(prev?.volume ?? "0"),
          fees: BigInt(prev?.fees ?? "0"),
        };
        sums.set(key, agg);
      }
      agg.count += 1;
      agg.volume += BigInt(r.deposit_size);
      // A fee is earned only by a relay that landed.
      if (r.status === "confirmed") agg.fees += BigInt(r.fee);
    }
    const stmts: SqlStatement[] = [...sums.values()].map((a) => ({
      sql: `INSERT INTO relay_daily (day, network, mint, kind, status, count, volume, fees) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (day, network, mint, kind, status) DO UPDATE SET count = excluded.count, volume = excluded.volume, fees = excluded.fees`,
      params: [a.day, a.network, a.mint, a.kind, a.status, a.count, a.volume.toString(), a.fees.toString()],
    }));
    stmts.push({ sql: "DELETE FROM relays WHERE received_at < ?", params: [cutoffMs] });
    await this.db.write(stmts);
    return rows.length;
  }

  async pauses(): Promise<StoredPause[]> {
    return this.db
      .all<consoleRows.PauseRow>("SELECT network, mint, reason, paused_at FROM console_pauses ORDER BY network, mint")
      .map(consoleRows.toStoredPause);
  }

  async setPause(p: StoredPause): Promise<void> {
    await this.db.write([
      {
        sql: `INSERT INTO console_pauses (network, mint, reason, paused_at) VALUES (?, ?, ?, ?)
              ON CONFLICT (network, mint) DO UPDATE SET reason = excluded.reason, paused_at = excluded.paused_at`,
        params: consoleRows.pauseParams(p),
      },
    ]);
  }

  async clearPause(network: Network, mint: string | null): Promise<void> {
    await this.db.write([{ sql: "DELETE FROM console_pauses WHERE network = ? AND mint = ?", params: [network, mint ?? consoleRows.WHOLE_NETWORK] }]);
  }

  async archivedPools(): Promise<AdminArchivedPool[]> {
    return this.db
      .all<{ network: Network; mint: string; protocol: number; leaves: number; root: Uint8Array | null; archived_at: number; reason: string }>(
        "SELECT network, mint, protocol, leaves, root, archived_at, reason FROM archived_pools ORDER BY archived_at DESC, network, mint",
      )
      .map((r) => ({
        network: r.network,
        mint: r.mint,
        protocol: r.protocol,
        leaves: r.leaves,
        root: r.root ? toHex(r.root) : null,
        archivedAt: r.archived_at,
        reason: r.reason,
      }));
  }

  async feeOverrides(): Promise<StoredFeeOverride[]> {
    return this.db
      .all<consoleRows.FeeOverrideRow>("SELECT network, mint, bps, floor, prev_bps, prev_floor, set_at FROM fee_overrides ORDER BY network, mint")
      .map(consoleRows.toStoredFeeOverride);
  }

  async setFeeOverride(o: StoredFeeOverride): Promise<void> {
    await this.db.write([
      {
        sql: `INSERT INTO fee_overrides (network, mint, bps, floor, prev_bps, prev_floor, set_at) VALUES (?, ?, ?, ?, ?, ?, ?)
              ON CONFLICT (network, mint) DO UPDATE SET bps = excluded.bps, floor = excluded.floor, prev_bps = excluded.prev_bps,
                prev_floor = excluded.prev_floor, set_at = excluded.set_at`,
        params: [
          o.network,
          o.mint ?? consoleRows.WHOLE_NETWORK,
          o.policy?.bps ?? null,
          o.policy?.floor.toString() ?? null,
          o.previous.bps,
          o.previous.floor.toString(),
          o.at,
        ],
      },
    ]);
  }
}

function relayWhere(f: RelayFilter): { where: string[]; params: SqlValue[] } {
  const where: string[] = [];
  const params: SqlValue[] = [];
  const add = (clause: string, value: SqlValue): void => {
    where.push(clause);
    params.push(value);
  };
  if (f.network) add("network = ?", f.network);
  if (f.mint) add("mint = ?", f.mint);
  if (f.status) add("status = ?", f.status);
  if (f.from !== undefined) add("received_at >= ?", f.from);
  if (f.to !== undefined) add("received_at < ?", f.to);
  return { where, params };
}

const clause = (where: string[]): string => (where.length ? `WHERE ${where.join(" AND ")}` : "");
