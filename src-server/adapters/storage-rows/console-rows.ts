/**
 * The console's rows as both storage engines (storage-sqljs, storage-pg) read them: same
 * columns, same JS types (u64 amounts as text: TEXT in SQLite, numeric selected as text by pg).
 * The census groups come from different SQL (SQLite over indexed_leaves' text amounts,
 * PostgreSQL over tree_leaves' numeric ones) but have the same shape and fold the same way.
 */
import type { Network } from "../../../src-shared/networks";
import type { RelayState } from "../../core/relay/states";
import type { LeafCensus, RelayDailyAggregate, StoredFeeOverride, StoredPause } from "../../ports/console-store";

/** Stands for "the whole network" in console_pauses.mint and fee_overrides.mint (a primary key column cannot be NULL-unique). */
export const WHOLE_NETWORK = "*";

export interface ConfirmedRelayRow {
  received_at: number;
  network: Network;
  mint: string;
  deposit_size: string;
  fee: string;
}

export const toConfirmedRelay = (r: ConfirmedRelayRow): { receivedAt: number; network: Network; mint: string; depositSize: bigint; fee: bigint } => ({
  receivedAt: r.received_at,
  network: r.network,
  mint: r.mint,
  depositSize: BigInt(r.deposit_size),
  fee: BigInt(r.fee),
});

export interface RelayDailyRow {
  day: string;
  network: Network;
  mint: string;
  kind: "relay" | "swap";
  status: RelayState["kind"];
  count: number;
  volume: string;
  fees: string;
}

export const toRelayDailyAggregate = (r: RelayDailyRow): RelayDailyAggregate => ({ ...r, volume: BigInt(r.volume), fees: BigInt(r.fees) });

export interface PauseRow {
  network: Network;
  mint: string;
  reason: string;
  paused_at: number;
}

export const toStoredPause = (r: PauseRow): StoredPause => ({
  network: r.network,
  mint: r.mint === WHOLE_NETWORK ? null : r.mint,
  reason: r.reason,
  at: r.paused_at,
});

/** A pause's values for (network, mint, reason, paused_at), in that order. */
export const pauseParams = (p: StoredPause): [Network, string, string, number] => [p.network, p.mint ?? WHOLE_NETWORK, p.reason, p.at];

export interface FeeOverrideRow {
  network: Network;
  mint: string;
  bps: number | null;
  floor: string | null;
  prev_bps: number;
  prev_floor: string;
  set_at: number;
}

export const toStoredFeeOverride = (r: FeeOverrideRow): StoredFeeOverride => ({
  network: r.network,
  mint: r.mint === WHOLE_NETWORK ? null : r.mint,
  policy: r.bps === null || r.floor === null ? null : { bps: r.bps, floor: BigInt(r.floor) },
  previous: { bps: r.prev_bps, floor: BigInt(r.prev_floor) },
  at: r.set_at,
});

/** One group of a census query: a bucket (CHANGE, UNKNOWN or digits × 10 + mantissa), its count, largest amount and last leaf. */
export interface CensusRow {
  bucket: number;
  n: number;
  largest: string | null;
  last: number;
}

export const CHANGE = -1;
export const UNKNOWN = 0;

/** Adds a census query's groups up into the pool's census from `fromLeaf`. */
export function foldCensus(poolId: number, fromLeaf: number, groups: Iterable<CensusRow>): LeafCensus {
  const census: LeafCensus = { poolId, upTo: fromLeaf, deposits: 0, changes: 0, depositsOfUnknownAmount: 0, buckets: [] };
  for (const g of groups) {
    census.upTo = Math.max(census.upTo, g.last + 1);
    if (g.bucket === CHANGE) census.changes += g.n;
    else {
      census.deposits += g.n;
      if (g.bucket === UNKNOWN || g.largest === null) census.depositsOfUnknownAmount += g.n;
      else census.buckets.push({ standard: BigInt(g.bucket % 10) * 10n ** BigInt(Math.floor(g.bucket / 10) - 1), count: g.n, largest: BigInt(g.largest) });
    }
  }
  census.buckets.sort((a, b) => (a.standard < b.standard ? -1 : 1));
  return census;
}
