import type { AdminArchivedPool } from "../../../src-shared/api/admin";
import type { Network } from "../../../src-shared/networks";
import type { RelayState } from "../../core/relay/states";
import type { ConsoleStore, LeafCensus, RelayDailyAggregate, RelayFilter, RelayPageQuery, StoredFeeOverride, StoredPause } from "../../ports/console-store";
import { bytes, type PgDatabase, type PgValue } from "./pool";
import { RELAY_COLUMNS } from "../storage-rows/relay-rows";
import * as consoleRows from "../storage-rows/console-rows";
import { toRelayRecord, type PgRelayRow } from "./relay-store";
import type { RelayRecord as HeldRelayRecord } from "../../ports/relay-store";

const DAY_MS = 86_400_000;

/** The console's queries over every instance's relays, the leader's indexed leaves and roots, and the console's own tables. */
export class PgConsoleStore implements ConsoleStore {
  constructor(private readonly db: PgDatabase) {}

  async relays(q: RelayPageQuery): Promise<HeldRelayRecord[]> {
    const w = relayWhere(q);
    if (q.before) {
      const a = w.param(q.before.receivedAt);
      w.where.push(`(received_at < ${a} OR (received_at = ${a} AND id > ${w.param(q.before.id)}))`);
    }
    const sql = `SELECT ${RELAY_COLUMNS} FROM relays ${w.clause()} ORDER BY received_at DESC, id LIMIT ${w.param(q.limit)}`;
    return (await this.db.query<PgRelayRow>(sql, w.params)).map(toRelayRecord);
  }

  async relayById(id: string): Promise<HeldRelayRecord | null> {
    const rows = await this.db.query<PgRelayRow>(`SELECT ${RELAY_COLUMNS} FROM relays WHERE id = $1`, [id]);
    return rows[0] ? toRelayRecord(rows[0]) : null;
  }

  async relayCounts(f: RelayFilter): Promise<Partial<Record<RelayState["kind"], number>>> {
    const w = relayWhere(f);
    const rows = await this.db.query<{ status: RelayState["kind"]; n: number }>(
      `SELECT status, count(*)::integer AS n FROM relays ${w.clause()} GROUP BY status`,
      w.params,
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  async relaysByNullifier(nullifierHex: string): Promise<HeldRelayRecord[]> {
    const rows = await this.db.query<PgRelayRow>(`SELECT ${RELAY_COLUMNS} FROM relays WHERE nullifier_hash = $1 ORDER BY received_at DESC, id LIMIT 50`, [
      nullifierHex,
    ]);
    return rows.map(toRelayRecord);
  }

  async confirmedSince(fromMs: number): Promise<{ receivedAt: number; network: Network; mint: string; depositSize: bigint; fee: bigint }[]> {
    const rows = await this.db.query<consoleRows.ConfirmedRelayRow>(
      "SELECT received_at, network, mint, deposit_size, fee FROM relays WHERE status = 'confirmed' AND received_at >= $1 ORDER BY received_at",
      [fromMs],
    );
    return rows.map(consoleRows.toConfirmedRelay);
  }

  /** Deposit leaves per bucket of their indexed-at second (change leaves and leaves without metadata not counted). */
  async depositBuckets(network: Network, mint: string, fromMs: number, bucketMs: number): Promise<{ at: number; count: number }[]> {
    const bucketSec = Math.max(1, Math.round(bucketMs / 1000));
    const rows = await this.db.query<{ b: number; n: number }>(
      `SELECT (l.indexed_at / $3::bigint) * $3::bigint AS b, count(*)::integer AS n
       FROM tree_leaves l JOIN pools p ON p.id = l.pool_id
       WHERE p.network = $1 AND p.mint = $2 AND l.kind = 'deposit' AND l.indexed_at <> 0 AND l.indexed_at >= $4
       GROUP BY b ORDER BY b`,
      [network, mint, bucketSec, Math.floor(fromMs / 1000)],
    );
    return rows.map((r) => ({ at: r.b * 1000, count: r.n }));
  }

  async recentRoots(network: Network, mint: string, limit: number): Promise<{ root: Uint8Array; nextIndex: number; at: number }[]> {
    const rows = await this.db.query<{ root: Uint8Array; next_index: number; created_at: number }>(
      `SELECT r.root, r.next_index, r.created_at FROM tree_roots r JOIN pools p ON p.id = r.pool_id
       WHERE p.network = $1 AND p.mint = $2 ORDER BY r.seq DESC LIMIT $3`,
      [network, mint, limit],
    );
    return rows.map((r) => ({ root: bytes(r.root), nextIndex: r.next_index, at: r.created_at * 1000 }));
  }

  async leaf(
    network: Network,
    mint: string,
    leafIndex: number,
  ): Promise<{ signature: string; slot: number; indexedAt: number; kind: "deposit" | "change"; amount: string | null } | null> {
    if (!Number.isSafeInteger(leafIndex) || leafIndex < 0) return null;
    const rows = await this.db.query<{ signature: string; slot: number; indexed_at: number | null; kind: "deposit" | "change"; amount: string | null }>(
      `SELECT l.signature, l.slot, l.indexed_at, l.kind, l.amount::text AS amount FROM tree_leaves l JOIN pools p ON p.id = l.pool_id
       WHERE p.network = $1 AND p.mint = $2 AND l.leaf_index = $3 AND l.leaf_index < p.next_index AND l.signature IS NOT NULL`,
      [network, mint, leafIndex],
    );
    const r = rows[0];
    if (!r) return null;
    const kind = r.kind === "change" ? "change" : "deposit";
    return { signature: r.signature, slot: r.slot, indexedAt: (r.indexed_at ?? 0) * 1000, kind, amount: kind === "deposit" ? r.amount : null };
  }

  async leafCensus(network: Network, mint: string, fromLeaf: number, toLeaf: number): Promise<LeafCensus | null> {
    const pools = await this.db.query<{ id: number }>("SELECT id FROM pools WHERE network = $1 AND mint = $2", [network, mint]);
    const pool = pools[0];
    if (!pool) return null;
    return consoleRows.foldCensus(pool.id, fromLeaf, await this.db.query<consoleRows.CensusRow>(CENSUS_SQL, [pool.id, fromLeaf, toLeaf]));
  }

  async dailyAggregates(fromDay: string): Promise<RelayDailyAggregate[]> {
    const rows = await this.db.query<consoleRows.RelayDailyRow>(
      "SELECT day, network, mint, kind, status, count, volume::text AS volume, fees::text AS fees FROM relay_daily WHERE day >= $1 ORDER BY day, network, mint, kind, status",
      [fromDay],
    );
    return rows.map(consoleRows.toRelayDailyAggregate);
  }

  /**
   * Folds the records received before `cutoffMs` into relay_daily and deletes them, in one
   * statement: two instances pruning at once fold each record once (the second finds it gone).
   */
  async pruneRelaysBefore(cutoffMs: number): Promise<number> {
    const rows = await this.db.query<{ n: number }>(
      `WITH gone AS (
         DELETE FROM relays WHERE received_at < $1 RETURNING received_at, network, mint, kind, status, deposit_size, fee
       ), folded AS (
         INSERT INTO relay_daily AS d (day, network, mint, kind, status, count, volume, fees)
         SELECT to_char(timestamp '1970-01-01' + (received_at / ${DAY_MS}) * interval '1 day', 'YYYY-MM-DD'), network, mint, kind, status,
                count(*), sum(deposit_size), coalesce(sum(fee) FILTER (WHERE status = 'confirmed'), 0)
         FROM gone GROUP BY 1, network, mint, kind, status
         ON CONFLICT (day, network, mint, kind, status) DO UPDATE
           SET count = d.count + EXCLUDED.count, volume = d.volume + EXCLUDED.volume, fees = d.fees + EXCLUDED.fees
         RETURNING 1
       )
       SELECT count(*)::integer AS n FROM gone`,
      [cutoffMs],
    );
    return rows[0]?.n ?? 0;
  }

  async pauses(): Promise<StoredPause[]> {
    const rows = await this.db.query<consoleRows.PauseRow>("SELECT network, mint, reason, paused_at FROM console_pauses ORDER BY network, mint");
    return rows.map(consoleRows.toStoredPause);
  }

  async setPause(p: StoredPause): Promise<void> {
    await this.db.query(
      `INSERT INTO console_pauses (network, mint, reason, paused_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (network, mint) DO UPDATE SET reason = EXCLUDED.reason, paused_at = EXCLUDED.paused_at`,
      consoleRows.pauseParams(p),
    );
  }

  async clearPause(network: Network, mint: string | null): Promise<void> {
    await this.db.query("DELETE FROM console_pauses WHERE network = $1 AND mint = $2", [network, mint ?? consoleRows.WHOLE_NETWORK]);
  }

  /** A PostgreSQL store starts at protocol v3: no pool was ever archived in it (migration 11 is sql.js history). */
  async archivedPools(): Promise<AdminArchivedPool[]> {
    return [];
  }

  async feeOverrides(): Promise<StoredFeeOverride[]> {
    const rows = await this.db.query<consoleRows.FeeOverrideRow>(
      "SELECT network, mint, bps, floor, prev_bps, prev_floor, set_at FROM fee_overrides ORDER BY network, mint",
    );
    return rows.map(consoleRows.toStoredFeeOverride);
  }

  async setFeeOverride(o: StoredFeeOverride): Promise<void> {
    await this.db.query(
      `INSERT INTO fee_overrides (network, mint, bps, floor, prev_bps, prev_floor, set_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (network, mint) DO UPDATE SET bps = EXCLUDED.bps, floor = EXCLUDED.floor, prev_bps = EXCLUDED.prev_bps,
         prev_floor = EXCLUDED.prev_floor, set_at = EXCLUDED.set_at`,
      [o.network, o.mint ?? consoleRows.WHOLE_NETWORK, o.policy?.bps ?? null, o.policy?.floor ?? null, o.previous.bps, o.previous.floor, o.at],
    );
  }
}

/**
 * The sql.js census (console-store.ts there) over tree_leaves: a range of a pool's leaves grouped
 * by CHANGE, UNKNOWN (a deposit without an amount, or of amount 0) or, for a deposit, its
 * standard bucket as digits × 10 + mantissa (1, 2 or 5). Amounts are numeric here, so their text
 * has no leading zeros and MAX is numeric.
 */
const CENSUS_SQL = `
  SELECT bucket, count(*)::integer AS n, max(amount)::text AS largest, max(leaf_index) AS last
  FROM (
    SELECT leaf_index, amount,
           CASE WHEN kind = 'change' THEN ${consoleRows.CHANGE}
                WHEN amount > 0 THEN length(amount::text) * 10 + CASE substr(amount::text, 1, 1) WHEN '1' THEN 1 WHEN '2' THEN 2 WHEN '3' THEN 2 WHEN '4' THEN 2 ELSE 5 END
                ELSE ${consoleRows.UNKNOWN} END AS bucket
    FROM tree_leaves WHERE pool_id = $1 AND leaf_index >= $2 AND leaf_index < $3 AND kind IS NOT NULL
  ) l
  GROUP BY bucket`;

function relayWhere(f: RelayFilter): { where: string[]; params: PgValue[]; param(v: PgValue): string; clause(): string } {
  const where: string[] = [];
  const params: PgValue[] = [];
  const param = (v: PgValue): string => {
    params.push(v);
    return `$${params.length}`;
  };
  if (f.network) where.push(`network = ${param(f.network)}`);
  if (f.mint) where.push(`mint = ${param(f.mint)}`);
  if (f.status) where.push(`status = ${param(f.status)}`);
  if (f.from !== undefined) where.push(`received_at >= ${param(f.from)}`);
  if (f.to !== undefined) where.push(`received_at < ${param(f.to)}`);
  return { where, params, param, clause: () => (where.length ? `WHERE ${where.join(" AND ")}` : "") };
}
