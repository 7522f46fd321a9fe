import {
  ADMIN_RANGES,
  KNOWN_MINTS,
  UNKNOWN_MINT_STANDARD_FLOOR,
  type AdminArchivedPool,
  type AdminPoolLeaves,
  type AdminPoolSummary,
  type AdminRange,
  type AdminTreeNode,
  type AdminTreeNodeRef,
  type TimeBucket,
} from "../../../src-shared/api/admin";
import { bytesEqual, toHex } from "../../../src-shared/encoding/bytes";
import type { Network } from "../../../src-shared/networks";
import type { ChainBackend } from "../../ports/chain";
import { defaultStandardFloor, standardAmounts } from "../../../src-shared/privacy/standard-amounts";
import type { ConsoleStore, LeafCensus } from "../../ports/console-store";
import type { IndexedPool, IndexerService } from "../indexer";

export interface AdminPoolsDeps {
  store: ConsoleStore;
  indexer: IndexerService;
  chains: ReadonlyMap<Network, ChainBackend>;
  pausedReason(network: Network, mint: string): string | null;
  now?: () => number;
}

export type NodeLookupError = "PoolNotFound" | "IndexOutOfRange";

/** Pools, their deposits over time and a walk through each tree, for the console. */
export class AdminPools {
  private readonly now: () => number;
  /** Per pool, the census so far: each read counts only the leaves appended since. */
  private readonly censuses = new Map<string, LeafCensus>();
  private readonly counting = new Map<string, Promise<LeafCensus | null>>();

  constructor(private readonly deps: AdminPoolsDeps) {
    this.now = deps.now ?? Date.now;
  }

  async list(range: AdminRange): Promise<AdminPoolSummary[]> {
    const pools = [...this.deps.indexer.list()].sort((a, b) => a.network.localeCompare(b.network) || a.mint.localeCompare(b.mint));
    return Promise.all(pools.map((p) => this.summary(p, range, 5)));
  }

  /** Pools set aside at a protocol upgrade: shown apart, never relayed from. */
  archived(): Promise<AdminArchivedPool[]> {
    return this.deps.store.archivedPools();
  }

  async get(network: Network, mint: string, range: AdminRange): Promise<AdminPoolSummary | null> {
    const pool = this.deps.indexer.get(network, mint);
    return pool ? this.summary(pool, range, 100) : null;
  }

  async node(network: Network, mint: string, heapIndex: number): Promise<{ ok: true; value: AdminTreeNode } | { ok: false; error: NodeLookupError }> {
    const pool = this.deps.indexer.get(network, mint);
    if (!pool) return { ok: false, error: "PoolNotFound" };
    const depth = pool.tree.depth;
    if (!Number.isSafeInteger(heapIndex) || heapIndex < 1 || heapIndex >= 2 ** (depth + 1)) return { ok: false, error: "IndexOutOfRange" };
    const ref = (index: number): AdminTreeNodeRef & { height: number; firstLeaf: number; span: number; empty: boolean } => {
      const fromTop = Math.floor(Math.log2(index));
      // log2 of large integers can round; settle on the exact row.
      const row = 2 ** fromTop > index ? fromTop - 1 : 2 ** (fromTop + 1) <= index ? fromTop + 1 : fromTop;
      const height = depth - row;
      const position = index - 2 ** row;
      const span = 2 ** height;
      const firstLeaf = position * span;
      const filled = Math.max(0, Math.min(span, pool.tree.nextIndex - firstLeaf));
      const value = pool.tree.nodeAt(height, position);
      return { index, value: toHex(value), filled, height, firstLeaf, span, empty: bytesEqual(value, pool.tree.zeros[height]!) };
    };
    const self = ref(heapIndex);
    const children = self.height > 0 ? [ref(2 * heapIndex), ref(2 * heapIndex + 1)].map(({ index, value, filled }) => ({ index, value, filled })) : [];
    const leaf = self.height === 0 && self.filled > 0 ? await this.deps.store.leaf(network, mint, self.firstLeaf) : null;
    return {
      ok: true,
      value: {
        network,
        mint,
        index: heapIndex,
        value: self.value,
        filled: self.filled,
        height: self.height,
        parent: heapIndex > 1 ? Math.floor(heapIndex / 2) : null,
        firstLeaf: self.firstLeaf,
        span: self.span,
        empty: self.empty,
        children,
        leaf: leaf ? { leafIndex: self.firstLeaf, ...leaf } : null,
      },
    };
  }

  private async summary(pool: IndexedPool, range: AdminRange, roots: number): Promise<AdminPoolSummary> {
    const chain = this.deps.chains.get(pool.network);
    let chainNextIndex: number | null;
    try {
      chainNextIndex = chain ? ((await chain.treeAccount(pool.mint))?.nextIndex ?? null) : null;
    } catch {
      chainNextIndex = null; // an unreachable chain shows as unknown, not as a failed page
    }
    const { spanMs, bucketMs } = ADMIN_RANGES[range];
    const now = this.now();
    const sparse = await this.deps.store.depositBuckets(pool.network, pool.mint, firstBucket(now, spanMs, bucketMs), bucketMs);
    const buckets = fillBuckets(sparse, now, spanMs, bucketMs);
    return {
      network: pool.network,
      mint: pool.mint,
      address: pool.address,
      sandbox: chain?.kind === "sandbox",
      root: toHex(pool.tree.root()),
      nextIndex: pool.tree.nextIndex,
      chainNextIndex,
      drift: pool.drift,
      paused: this.deps.pausedReason(pool.network, pool.mint),
      recentRoots: (await this.deps.store.recentRoots(pool.network, pool.mint, roots)).map((r) => ({ root: toHex(r.root), nextIndex: r.nextIndex, at: r.at })),
      deposits: { range, bucketMs, buckets, total: buckets.reduce((s, b) => s + b.count, 0) },
      leaves: poolLeaves(await this.census(pool), pool.mint),
    };
  }

  /** One census update per pool at a time: two pages asking at once would count the same new leaves twice. */
  private census(pool: IndexedPool): Promise<LeafCensus | null> {
    const key = `${pool.network}/${pool.mint}`;
    const running = this.counting.get(key);
    if (running) return running;
    const counting = this.countNewLeaves(key, pool).finally(() => this.counting.delete(key));
    this.counting.set(key, counting);
    return counting;
  }

  private async countNewLeaves(key: string, pool: IndexedPool): Promise<LeafCensus | null> {
    const total = await updateCensus(this.deps.store, pool.network, pool.mint, this.censuses.get(key) ?? null);
    if (total) this.censuses.set(key, total);
    else this.censuses.delete(key);
    return total;
  }
}

/**
 * `known` plus the leaves appended since, CENSUS_CHUNK at a time with the event loop free
 * in between: a pool's first census after a start reads all its leaves (seconds for a
 * million), and relays must not wait behind it.
 */
export async function updateCensus(
  store: Pick<ConsoleStore, "leafCensus">,
  network: Network,
  mint: string,
  known: LeafCensus | null,
): Promise<LeafCensus | null> {
  let total = known;
  for (;;) {
    const from = total?.upTo ?? 0;
    const chunk = await store.leafCensus(network, mint, from, from + CENSUS_CHUNK);
    if (!chunk) return null;
    // Leaves are never removed; a pool archived at an upgrade comes back under a new id, counted anew.
    if (total && total.poolId !== chunk.poolId) {
      total = null;
      continue;
    }
    total = total ? addCensus(total, chunk) : chunk;
    if (chunk.upTo < from + CENSUS_CHUNK) return total;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Leaves per census query: at most 0.2 s of the event loop each on a busy 2-core machine (docs/operations.md). */
export const CENSUS_CHUNK = 16_384;

/** Two censuses of consecutive leaf ranges of one pool, as one. */
export function addCensus(a: LeafCensus, b: LeafCensus): LeafCensus {
  const buckets = new Map(a.buckets.map((x) => [x.standard, { ...x }]));
  for (const x of b.buckets) {
    const have = buckets.get(x.standard);
    if (!have) buckets.set(x.standard, { ...x });
    else {
      have.count += x.count;
      if (x.largest > have.largest) have.largest = x.largest;
    }
  }
  return {
    poolId: a.poolId,
    upTo: Math.max(a.upTo, b.upTo),
    deposits: a.deposits + b.deposits,
    changes: a.changes + b.changes,
    depositsOfUnknownAmount: a.depositsOfUnknownAmount + b.depositsOfUnknownAmount,
    buckets: [...buckets.values()].sort((x, y) => (x.standard < y.standard ? -1 : 1)),
  };
}

/**
 * Leaf counts and, for each standard amount from the mint's floor to the largest deposit,
 * the notes that could cover it: deposits of at least that amount and every change leaf
 * (whose value nobody but its owner knows).
 */
export function poolLeaves(census: LeafCensus | null, mint: string): AdminPoolLeaves {
  const decimals = KNOWN_MINTS[mint]?.decimals ?? null;
  const floor = decimals === null ? UNKNOWN_MINT_STANDARD_FLOOR : defaultStandardFloor(decimals);
  const buckets = census?.buckets ?? [];
  const largest = buckets.reduce<bigint | null>((m, b) => (m === null || b.largest > m ? b.largest : m), null);
  const changes = census?.changes ?? 0;
  // Deposits of at least x = those whose bucket is x or above (buckets are standard amounts).
  const anonymitySets = (largest === null ? [] : standardAmounts(floor, largest)).map((amount) => {
    const deposits = buckets.reduce((n, b) => (b.standard >= amount ? n + b.count : n), 0);
    return { amount: amount.toString(), deposits, notes: deposits + changes };
  });
  return {
    deposits: census?.deposits ?? 0,
    changes,
    depositsOfUnknownAmount: census?.depositsOfUnknownAmount ?? 0,
    largestDeposit: largest?.toString() ?? null,
    decimals,
    standardFloor: floor.toString(),
    anonymitySets,
  };
}

/** Every bucket of the range, oldest first, zero where nothing happened (so charts need no gap logic). */
export function fillBuckets(sparse: readonly TimeBucket[], now: number, spanMs: number, bucketMs: number): TimeBucket[] {
  const end = Math.floor(now / bucketMs) * bucketMs;
  const start = firstBucket(now, spanMs, bucketMs);
  const byAt = new Map(sparse.map((b) => [b.at, b.count]));
  const out: TimeBucket[] = [];
  for (let at = start; at <= end; at += bucketMs) out.push({ at, count: byAt.get(at) ?? 0 });
  return out;
}

/** Start of the oldest bucket of a range ending with the bucket that holds `now` (buckets aligned to the epoch). */
export function firstBucket(now: number, spanMs: number, bucketMs: number): number {
  return Math.floor(now / bucketMs) * bucketMs - (Math.ceil(spanMs / bucketMs) - 1) * bucketMs;
}
