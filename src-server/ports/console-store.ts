import type { AdminArchivedPool } from "../../src-shared/api/admin";
import type { Network } from "../../src-shared/networks";
import type { RelayRecord } from "./relay-store";

export interface RelayFilter {
  network?: Network;
  mint?: string;
  status?: RelayRecord["status"];
  /** Unix ms, inclusive. */
  from?: number;
  /** Unix ms, exclusive. */
  to?: number;
}

export interface RelayPageQuery extends RelayFilter {
  limit: number;
  /** Strictly older than this (receivedAt, id), newest first. */
  before?: { receivedAt: number; id: string };
}

/** One day of relays that retention folded away: counts and sums, nothing that identifies a relay. */
export interface RelayDailyAggregate {
  /** YYYY-MM-DD, UTC. */
  day: string;
  network: Network;
  mint: string;
  kind: "relay" | "swap";
  status: RelayRecord["status"];
  count: number;
  volume: bigint;
  fees: bigint;
}

export interface StoredPause {
  network: Network;
  /** null: the whole network. */
  mint: string | null;
  reason: string;
  at: number;
}

/**
 * A fee the operator set at run time. `policy` null: back to the config
 * file's. `previous`: what was in force before, accepted for the grace period.
 */
export interface StoredFeeOverride {
  network: Network;
  /** null: the network's default. */
  mint: string | null;
  policy: { bps: number; floor: bigint } | null;
  previous: { bps: number; floor: bigint };
  at: number;
}

/**
 * A pool's leaves by kind (protocol v3), counted in one grouped read. Deposits of known
 * amount are counted per standard bucket: the largest standard amount (1, 2 or 5 x 10^k)
 * at or below the deposit, which covers every standard amount up to it and none above.
 */
export interface LeafCensus {
  /** The pool's row id: a census of another id (the pool was archived and opened anew) does not add up with this one. */
  poolId: number;
  /** One past the highest leaf index counted; the next census can start there. */
  upTo: number;
  deposits: number;
  changes: number;
  depositsOfUnknownAmount: number;
  /** Deposit leaves per standard bucket, each with the largest deposit in it. */
  buckets: { standard: bigint; count: number; largest: bigint }[];
}

/**
 * The console's reads over what the relay already records (relays, indexed
 * leaves, roots) plus its own state (pause switches, daily aggregates).
 */
export interface ConsoleStore {
  relays(q: RelayPageQuery): Promise<RelayRecord[]>;
  relayById(id: string): Promise<RelayRecord | null>;
  relayCounts(f: RelayFilter): Promise<Partial<Record<RelayRecord["status"], number>>>;
  relaysByNullifier(nullifierHex: string): Promise<RelayRecord[]>;
  /** Confirmed relays received from `fromMs` on: what fees were earned on. */
  confirmedSince(fromMs: number): Promise<{ receivedAt: number; network: Network; mint: string; depositSize: bigint; fee: bigint }[]>;
  /** Deposit leaves the indexer applied to a pool (change leaves not counted), per bucket (`bucketMs` wide, aligned to the epoch). */
  depositBuckets(network: Network, mint: string, fromMs: number, bucketMs: number): Promise<{ at: number; count: number }[]>;
  recentRoots(network: Network, mint: string, limit: number): Promise<{ root: Uint8Array; nextIndex: number; at: number }[]>;
  /** A filled leaf's transaction and kind; `amount` is a deposit's (null for a change leaf, or a deposit indexed before v3 without one). */
  leaf(
    network: Network,
    mint: string,
    leafIndex: number,
  ): Promise<{ signature: string; slot: number; indexedAt: number; kind: "deposit" | "change"; amount: string | null } | null>;
  /**
   * The leaves of index `fromLeaf` to `toLeaf` (exclusive), by kind and standard bucket; null
   * for a pool the store does not have. Leaves are only ever appended, so censuses of
   * consecutive ranges add up.
   */
  leafCensus(network: Network, mint: string, fromLeaf: number, toLeaf: number): Promise<LeafCensus | null>;
  dailyAggregates(fromDay: string): Promise<RelayDailyAggregate[]>;
  /**
   * Folds relay records received before `cutoffMs` into daily aggregates and
   * deletes them, atomically. Answers how many records went.
   */
  pruneRelaysBefore(cutoffMs: number): Promise<number>;
  pauses(): Promise<StoredPause[]>;
  setPause(p: StoredPause): Promise<void>;
  clearPause(network: Network, mint: string | null): Promise<void>;
  feeOverrides(): Promise<StoredFeeOverride[]>;
  /** Pools set aside at a protocol upgrade (migration 11), newest first. */
  archivedPools(): Promise<AdminArchivedPool[]>;
  setFeeOverride(o: StoredFeeOverride): Promise<void>;
}
