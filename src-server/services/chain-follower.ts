/**
 * Keeps the indexer's Solana pools in sync with the chain while the relay runs:
 * each pool is synced when a log notification for its tree arrives and, because
 * websocket notifications can be lost, on a poll every `pollMs` anyway. Pools
 * that appear on chain later are adopted on a slower discovery cycle.
 *
 * Failures back off exponentially (up to `maxBackoffMs`) and are logged once per
 * failure streak, with one line when the streak ends. The follower measures
 * each pool's lag (deposits the chain's tree account has that our tree has not,
 * and how long the oldest of them has been seen) for /health and the console.
 *
 * Where several instances share a store, only the one holding a network's follower lease
 * (services/follower-election.ts) reads that chain. On the others the follower neither subscribes
 * nor reads the chain: every `readerPollMs` it adopts the pools the leader stored and syncs each
 * (the indexer re-applies the leader's appends). A role change switches at once.
 */
import type { Network } from "../../src-shared/networks";
import type { ChainBackend, HealthCheck } from "../ports/chain";
import type { IndexerService } from "./indexer";

/** Calls `onChange` when the pool's tree may have changed; returns the unsubscribe. */
export type PoolSubscribe = (pool: { network: Network; mint: string }, onChange: () => void) => () => void;

export interface FollowedNetwork {
  chain: ChainBackend;
  pollMs: number;
  /** Health turns red when a deposit has waited longer than this to be indexed. */
  maxIndexerLagSec: number;
}

/** Whether this instance follows each network's chain (services/follower-election.ts), and when that changes. */
export interface FollowerRoles {
  leads(network: Network): boolean;
  onChange(listener: (network: Network) => void): () => void;
}

export interface ChainFollowerOptions {
  /** adoptStored: where another instance follows a network, the pools it stored (absent: the indexer's pools only). */
  indexer: Pick<IndexerService, "sync" | "get" | "list"> & Partial<Pick<IndexerService, "adoptStored">>;
  networks: ReadonlyMap<Network, FollowedNetwork>;
  subscribe: PoolSubscribe;
  log?: (line: string) => void;
  /** Milliseconds clock; default Date.now. */
  now?: () => number;
  /** chain.listPools() every this many poll cycles; default 15. */
  discoverEveryCycles?: number;
  /** Longest pause after repeated failures; default 60 s. */
  maxBackoffMs?: number;
  /** Which networks this instance follows; default all of them (one instance owns its store). */
  roles?: FollowerRoles;
  /** On a network another instance follows: how often the store is read for its appends; default 500 ms. */
  readerPollMs?: number;
}

export interface FollowerPoolStats {
  network: Network;
  mint: string;
  /** leader: this instance follows the network's chain and writes the tree; reader: it re-applies another instance's writes from the store. */
  role: "leader" | "reader";
  /** Unix ms of the last successful sync, null before the first. */
  lastSyncedAt: number | null;
  /** The chain tree account's nextIndex at the last look, null when never read. */
  chainNextIndex: number | null;
  treeNextIndex: number;
  /** Deposits on chain not yet in our tree. */
  lagDeposits: number;
  /** Seconds since the oldest unindexed deposit was first seen; 0 when in sync. */
  lagSec: number;
  subscribed: boolean;
  syncs: number;
  notifications: number;
  /** Consecutive failed syncs, and the last error of the streak. */
  failures: number;
  lastError: string | null;
  drift: string | null;
}

/** A failure streak: logged on its first failure and when it ends. */
class Streak {
  count = 0;
  retryAt = 0;
  lastError: string | null = null;

  constructor(
    private readonly what: string,
    private readonly log: (line: string) => void,
  ) {}

  fail(e: unknown, now: number, baseMs: number, maxMs: number): void {
    this.count++;
    this.lastError = e instanceof Error ? e.message : String(e);
    this.retryAt = now + Math.min(maxMs, baseMs * 2 ** Math.min(this.count - 1, 20));
    if (this.count === 1) this.log(`follower: ${this.what} failed: ${this.lastError} (retrying with backoff; logged once until it recovers)`);
  }

  /** True when this ended a streak. */
  ok(): boolean {
    const ended = this.count > 0;
    if (ended) this.log(`follower: ${this.what} recovered after ${this.count} failure${this.count === 1 ? "" : "s"}`);
    this.count = 0;
    this.retryAt = 0;
    this.lastError = null;
    return ended;
  }

  waiting(now: number): boolean {
    return now < this.retryAt;
  }
}

interface PoolState {
  network: Network;
  mint: string;
  running: Promise<void> | null;
  rerun: boolean;
  lastSyncedAt: number | null;
  chainNextIndex: number | null;
  /** (chain nextIndex, when first seen) for each increase not yet indexed, oldest first. */
  seen: { nextIndex: number; at: number }[];
  sync: Streak;
  subscription: Streak;
  unsubscribe: (() => void) | null;
  syncs: number;
  notifications: number;
}

interface NetworkState {
  network: Network;
  config: FollowedNetwork;
  timer: ReturnType<typeof setTimeout> | null;
  cycles: number;
  discovery: Streak;
  startedAt: number;
  /** Whether this instance followed the chain at the last look (roles.leads). */
  leading: boolean;
}

const MAX_SEEN = 256;

export class ChainFollower {
  private readonly pools = new Map<string, PoolState>();
  private readonly nets = new Map<Network, NetworkState>();
  private readonly log: (line: string) => void;
  private readonly now: () => number;
  private readonly discoverEvery: number;
  private readonly maxBackoffMs: number;
  private readonly readerPollMs: number;
  private offRoles: (() => void) | null = null;
  private started = false;
  private stopped = false;

  constructor(private readonly opts: ChainFollowerOptions) {
    this.log = opts.log ?? (() => {});
    this.now = opts.now ?? Date.now;
    this.discoverEvery = Math.max(1, opts.discoverEveryCycles ?? 15);
    this.maxBackoffMs = opts.maxBackoffMs ?? 60_000;
    this.readerPollMs = opts.readerPollMs ?? 500;
  }

  /** Adopts the indexer's and the chains' pools, subscribes, and starts polling. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    for (const [network, config] of this.opts.networks) {
      const net: NetworkState = {
        network,
        config,
        timer: null,
        cycles: 0,
        discovery: new Streak(`${network}: listing pools`, this.log),
        startedAt: this.now(),
        leading: this.opts.roles?.leads(network) ?? true,
      };
      this.nets.set(network, net);
      for (const p of this.opts.indexer.list()) if (p.network === network) this.follow(network, p.mint);
      if (net.leading) await this.discover(net);
      for (const p of this.pools.values()) if (p.network === network) this.trigger(p);
      net.cycles = 1;
      this.schedule(net);
    }
    // A takeover starts following at once, not at the next poll: the lease's end is what the other instances wait for.
    this.offRoles =
      this.opts.roles?.onChange((network) => {
        const net = this.nets.get(network);
        if (!net || this.stopped || !net.timer) return;
        clearTimeout(net.timer);
        net.timer = null;
        void this.cycle(net);
      }) ?? null;
  }

  /** Stops polling, unsubscribes, and waits for syncs in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.offRoles?.();
    for (const net of this.nets.values()) if (net.timer) clearTimeout(net.timer);
    const running: Promise<void>[] = [];
    for (const p of this.pools.values()) {
      this.unsubscribe(p);
      if (p.running) running.push(p.running);
    }
    await Promise.allSettled(running);
  }

  /** Syncs one pool now (coalesced with a sync in flight); resolves when it is done. */
  async syncNow(network: Network, mint: string): Promise<void> {
    const p = this.pools.get(key(network, mint)) ?? this.follow(network, mint);
    if (!p) return;
    this.trigger(p);
    while (p.running) await p.running;
  }

  health(): HealthCheck[] {
    const now = this.now();
    return [...this.nets.values()].map((net) => {
      const max = net.config.maxIndexerLagSec;
      const stats = this.stats().filter((s) => s.network === net.network);
      const problems: string[] = [];
      for (const s of stats) {
        if (s.lagSec > max) problems.push(`${s.mint}: ${s.lagDeposits} deposits unindexed for ${s.lagSec}s (max ${max}s)`);
        const since = s.lastSyncedAt ?? net.startedAt;
        if (s.failures > 0 && (now - since) / 1000 > max) {
          problems.push(`${s.mint}: no successful sync for ${Math.floor((now - since) / 1000)}s: ${s.lastError}`);
        }
      }
      const worst = stats.reduce<FollowerPoolStats | null>(
        (w, s) => (!w || s.lagSec > w.lagSec || (s.lagSec === w.lagSec && s.lagDeposits > w.lagDeposits) ? s : w),
        null,
      );
      const role = net.leading ? "" : "reading the tree another instance follows; ";
      const detail = problems.length
        ? role + problems.join("; ")
        : !worst
          ? `${role}no pools`
          : !net.leading
            ? `${role}${stats.length} pools at ${stats.map((s) => s.treeNextIndex).join(", ")} leaves`
            : !worst
              ? "no pools"
              : worst.lagDeposits > 0
                ? `${stats.length} pools; largest lag ${worst.lagDeposits} deposits (${worst.lagSec}s) on ${worst.mint}`
                : `${stats.length} pools in sync`;
      return { name: `indexer-lag:${net.network}`, ok: problems.length === 0, detail };
    });
  }

  stats(): FollowerPoolStats[] {
    const now = this.now();
    return [...this.pools.values()].map((p) => {
      const treeNextIndex = this.treeNextIndex(p);
      const oldest = p.seen.find((s) => s.nextIndex > treeNextIndex);
      return {
        network: p.network,
        mint: p.mint,
        role: this.nets.get(p.network)?.leading === false ? "reader" : "leader",
        lastSyncedAt: p.lastSyncedAt,
        chainNextIndex: p.chainNextIndex,
        treeNextIndex,
        lagDeposits: Math.max(0, (p.chainNextIndex ?? 0) - treeNextIndex),
        lagSec: oldest ? Math.max(0, Math.floor((now - oldest.at) / 1000)) : 0,
        subscribed: p.unsubscribe !== null,
        syncs: p.syncs,
        notifications: p.notifications,
        failures: p.sync.count,
        lastError: p.sync.lastError,
        drift: this.opts.indexer.get(p.network, p.mint)?.drift ?? null,
      };
    });
  }

  private follow(network: Network, mint: string): PoolState | null {
    const k = key(network, mint);
    const existing = this.pools.get(k);
    if (existing) return existing;
    if (!this.nets.has(network)) return null;
    const p: PoolState = {
      network,
      mint,
      running: null,
      rerun: false,
      lastSyncedAt: null,
      chainNextIndex: null,
      seen: [],
      sync: new Streak(`${k}: sync`, this.log),
      subscription: new Streak(`${k}: log subscription`, this.log),
      unsubscribe: null,
      syncs: 0,
      notifications: 0,
    };
    this.pools.set(k, p);
    this.ensureSubscribed(p);
    return p;
  }

  private schedule(net: NetworkState): void {
    if (this.stopped) return;
    net.timer = setTimeout(
      () => {
        net.timer = null;
        void this.cycle(net);
      },
      net.leading ? net.config.pollMs : this.readerPollMs,
    );
    net.timer.unref?.();
  }

  private async cycle(net: NetworkState): Promise<void> {
    try {
      const leading = this.opts.roles?.leads(net.network) ?? true;
      if (leading !== net.leading) this.switchRole(net, leading);
      if (!leading) return await this.readerCycle(net);
      if (net.cycles % this.discoverEvery === 0) await this.discover(net);
      net.cycles++;
      for (const p of this.pools.values()) {
        if (p.network !== net.network) continue;
        this.ensureSubscribed(p);
        if (!p.sync.waiting(this.now())) this.trigger(p);
      }
    } finally {
      this.schedule(net);
    }
  }

  /** Another instance follows this network: adopt the pools it stored and re-apply its appends, reading no chain. */
  private async readerCycle(net: NetworkState): Promise<void> {
    net.cycles++;
    if (this.opts.indexer.adoptStored && !net.discovery.waiting(this.now())) {
      try {
        await this.opts.indexer.adoptStored(net.network);
        net.discovery.ok();
      } catch (e) {
        net.discovery.fail(e, this.now(), this.readerPollMs, this.maxBackoffMs);
      }
    }
    for (const pool of this.opts.indexer.list()) if (pool.network === net.network) this.follow(net.network, pool.mint);
    for (const p of this.pools.values()) if (p.network === net.network && !p.sync.waiting(this.now())) this.trigger(p);
  }

  /** Leader: subscribe and follow the chain from the next cycle on; reader: stop reading the chain (its lag is the leader's to report). */
  private switchRole(net: NetworkState, leading: boolean): void {
    net.leading = leading;
    net.cycles = 0; // a new leader discovers the chain's pools on its first cycle
    for (const p of this.pools.values()) {
      if (p.network !== net.network) continue;
      if (leading) {
        this.ensureSubscribed(p);
        continue;
      }
      this.unsubscribe(p);
      p.seen = [];
      p.chainNextIndex = null;
    }
  }

  private async discover(net: NetworkState): Promise<void> {
    if (net.discovery.waiting(this.now())) return;
    let mints: string[];
    try {
      mints = await net.config.chain.listPools();
    } catch (e) {
      net.discovery.fail(e, this.now(), net.config.pollMs, this.maxBackoffMs);
      return;
    }
    net.discovery.ok();
    for (const mint of mints) {
      if (this.stopped) return;
      if (this.pools.has(key(net.network, mint))) continue;
      const p = this.follow(net.network, mint);
      if (p && net.cycles > 0) {
        // Found later than start (start syncs every pool itself).
        this.log(`follower: following ${key(net.network, mint)}`);
        this.trigger(p);
      }
    }
  }

  private ensureSubscribed(p: PoolState): void {
    if (this.stopped || p.unsubscribe || p.subscription.waiting(this.now())) return;
    if (this.nets.get(p.network)?.leading === false) return;
    try {
      p.unsubscribe = this.opts.subscribe({ network: p.network, mint: p.mint }, () => {
        p.notifications++;
        if (!p.sync.waiting(this.now())) this.trigger(p);
      });
      p.subscription.ok();
    } catch (e) {
      p.subscription.fail(e, this.now(), this.nets.get(p.network)!.config.pollMs, this.maxBackoffMs);
    }
  }

  private unsubscribe(p: PoolState): void {
    const u = p.unsubscribe;
    p.unsubscribe = null;
    try {
      u?.();
    } catch (e) {
      this.log(`follower: ${key(p.network, p.mint)}: unsubscribing: ${(e as Error).message}`);
    }
  }

  /** Starts a sync, or asks the one in flight to run once more when it ends. */
  private trigger(p: PoolState): void {
    if (this.stopped) return;
    if (p.running) {
      p.rerun = true;
      return;
    }
    p.running = (async () => {
      try {
        do {
          p.rerun = false;
          await this.syncOnce(p);
        } while (p.rerun && !this.stopped && !p.sync.waiting(this.now()));
      } finally {
        p.running = null;
      }
    })();
  }

  private async syncOnce(p: PoolState): Promise<void> {
    const net = this.nets.get(p.network)!;
    p.syncs++;
    try {
      await this.opts.indexer.sync(p.network, p.mint);
      p.lastSyncedAt = this.now();
      if (p.sync.ok()) {
        // The RPC was unreachable for a while: the websocket may have died with it.
        this.unsubscribe(p);
        this.ensureSubscribed(p);
      }
    } catch (e) {
      p.sync.fail(e, this.now(), net.leading ? net.config.pollMs : this.readerPollMs, this.maxBackoffMs);
    }
    if (!net.leading) return;
    // Lag: read the chain's own count even when the sync failed, so a stuck indexer shows.
    try {
      const account = await net.config.chain.treeAccount(p.mint);
      this.observe(p, account?.nextIndex ?? 0);
    } catch {
      // Unreachable: the sync streak (or the chain's own health check) reports it.
    }
  }

  private observe(p: PoolState, chainNextIndex: number): void {
    const now = this.now();
    p.chainNextIndex = chainNextIndex;
    const tree = this.treeNextIndex(p);
    p.seen = p.seen.filter((s) => s.nextIndex > tree);
    const last = p.seen[p.seen.length - 1];
    if (chainNextIndex > tree && (!last || chainNextIndex > last.nextIndex)) {
      p.seen.push({ nextIndex: chainNextIndex, at: now });
      if (p.seen.length > MAX_SEEN) {
        // Merge the two oldest, keeping the older time: lag is never underestimated.
        const [second] = p.seen.splice(1, 1);
        p.seen[0]!.nextIndex = second!.nextIndex;
      }
    }
  }

  private treeNextIndex(p: PoolState): number {
    return this.opts.indexer.get(p.network, p.mint)?.tree.nextIndex ?? 0;
  }
}

const key = (network: Network, mint: string): string => `${network}/${mint}`;
