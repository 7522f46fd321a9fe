import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Network } from "../../src-shared/networks";
import type { ChainBackend, TreeAccount } from "../ports/chain";
import { ChainFollower, type ChainFollowerOptions, type PoolSubscribe } from "./chain-follower";
import type { IndexedPool } from "./indexer";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const WSOL = "So11111111111111111111111111111111111111112";
const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCaSpmPbKsiG8XqE7rN";
const POLL = 1000;
const MAX_LAG = 30;

/** A chain whose tree accounts count deposits; `fail` makes every call throw. */
class FakeChain {
  readonly network: Network = "mainnet";
  readonly kind = "solana" as const;
  readonly deposits = new Map<string, number>();
  pools: string[] = [];
  fail: string | null = null;
  listCalls = 0;

  async listPools(): Promise<string[]> {
    this.listCalls++;
    if (this.fail) throw new Error(this.fail);
    return [...this.pools];
  }

  async treeAccount(mint: string): Promise<TreeAccount | null> {
    if (this.fail) throw new Error(this.fail);
    return { root: new Uint8Array(32), nextIndex: this.deposits.get(mint) ?? 0 };
  }

  deposit(mint: string, n = 1): void {
    this.deposits.set(mint, (this.deposits.get(mint) ?? 0) + n);
  }
}

/** An indexer whose sync copies the chain's count (or fails / stalls / is slow, as scripted). */
class FakeIndexer {
  readonly trees = new Map<string, { nextIndex: number }>();
  syncCalls = 0;
  inFlight = 0;
  maxInFlight = 0;
  stalled = false;
  delayMs = 0;

  constructor(private readonly chain: FakeChain) {}

  async sync(network: Network, mint: string): Promise<void> {
    this.syncCalls++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
      if (this.chain.fail) throw new Error(this.chain.fail);
      const tree = this.tree(mint);
      if (!this.stalled) tree.nextIndex = this.chain.deposits.get(mint) ?? 0;
    } finally {
      this.inFlight--;
    }
    void network;
  }

  get(network: Network, mint: string): IndexedPool | null {
    const tree = this.trees.get(mint);
    return tree ? ({ network, mint, tree, drift: null } as unknown as IndexedPool) : null;
  }

  list(): IndexedPool[] {
    return [...this.trees.keys()].map((m) => this.get("mainnet", m)!);
  }

  tree(mint: string): { nextIndex: number } {
    let t = this.trees.get(mint);
    if (!t) this.trees.set(mint, (t = { nextIndex: 0 }));
    return t;
  }
}

/** Records subscriptions; `notify(mint)` plays a log notification. */
class FakeSubscriptions {
  readonly listeners = new Map<string, Set<() => void>>();
  subscribeCalls = 0;
  fail: string | null = null;

  readonly subscribe: PoolSubscribe = ({ mint }, onChange) => {
    this.subscribeCalls++;
    if (this.fail) throw new Error(this.fail);
    const set = this.listeners.get(mint) ?? new Set();
    this.listeners.set(mint, set);
    set.add(onChange);
    return () => set.delete(onChange);
  };

  notify(mint: string): void {
    for (const f of this.listeners.get(mint) ?? []) f();
  }

  count(mint: string): number {
    return this.listeners.get(mint)?.size ?? 0;
  }
}

function setup(o: Partial<ChainFollowerOptions> = {}) {
  const chain = new FakeChain();
  const indexer = new FakeIndexer(chain);
  const subs = new FakeSubscriptions();
  const logs: string[] = [];
  const make = () =>
    new ChainFollower({
      indexer,
      networks: new Map([["mainnet", { chain: chain as unknown as ChainBackend, pollMs: POLL, maxIndexerLagSec: MAX_LAG }]]),
      subscribe: subs.subscribe,
      log: (l) => logs.push(l),
      discoverEveryCycles: 5,
      maxBackoffMs: 16 * POLL,
      ...o,
    });
  return { chain, indexer, subs, logs, make };
}

const tick = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** A follower made and started, with its first syncs run. */
async function started(make: () => ChainFollower): Promise<ChainFollower> {
  const f = make();
  await f.start();
  await tick(0);
  return f;
}

describe("ChainFollower", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_700_000_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("follows the chain's pools: subscribes to each and syncs on start", async () => {
    const { chain, indexer, subs, make } = setup();
    chain.pools = [USDC, WSOL];
    chain.deposit(USDC, 3);
    const f = await started(make);
    expect(subs.count(USDC)).toBe(1);
    expect(subs.count(WSOL)).toBe(1);
    expect(indexer.tree(USDC).nextIndex).toBe(3);
    expect(f.stats().map((s) => [s.mint, s.treeNextIndex, s.chainNextIndex, s.subscribed])).toEqual([
      [USDC, 3, 3, true],
      [WSOL, 0, 0, true],
    ]);
    await f.stop();
  });

  it("syncs on a log notification without waiting for the poll", async () => {
    const { chain, indexer, subs, make } = setup();
    chain.pools = [USDC];
    const f = await started(make);
    chain.deposit(USDC);
    subs.notify(USDC);
    await tick(1);
    expect(indexer.tree(USDC).nextIndex).toBe(1);
    expect(f.stats()[0]!.notifications).toBe(1);
    await f.stop();
  });

  it("polls every pollMs, so a lost notification delays a deposit by one interval at most", async () => {
    const { chain, indexer, make } = setup();
    chain.pools = [USDC];
    const f = await started(make);
    const calls = indexer.syncCalls;
    chain.deposit(USDC, 2); // no notification
    await tick(POLL - 1);
    expect(indexer.tree(USDC).nextIndex).toBe(0);
    await tick(1);
    expect(indexer.tree(USDC).nextIndex).toBe(2);
    await tick(10 * POLL);
    expect(indexer.syncCalls - calls).toBe(11);
    await f.stop();
  });

  it("coalesces a burst of notifications during a sync into one more sync", async () => {
    const { chain, indexer, subs, make } = setup();
    chain.pools = [USDC];
    indexer.delayMs = 200;
    const f = make();
    await f.start();
    await tick(250);
    expect(indexer.inFlight).toBe(0);
    const calls = indexer.syncCalls;
    for (let k = 0; k < 20; k++) {
      chain.deposit(USDC);
      subs.notify(USDC);
    }
    await tick(500); // before the next poll
    expect(indexer.syncCalls - calls).toBe(2);
    expect(indexer.maxInFlight).toBe(1);
    expect(indexer.tree(USDC).nextIndex).toBe(20);
    await f.stop();
  });

  it("backs off while the RPC fails, logs once per failure streak, then recovers and resubscribes", async () => {
    const { chain, indexer, subs, logs, make } = setup();
    chain.pools = [USDC];
    const f = await started(make);
    const calls = indexer.syncCalls;
    chain.fail = "fetch failed: ECONNREFUSED";
    await tick(60 * POLL);
    const failedCalls = indexer.syncCalls - calls;
    // Backoff 1, 2, 4, 8, 16, 16 … intervals: far fewer than 60 polls.
    expect(failedCalls).toBeGreaterThanOrEqual(5);
    expect(failedCalls).toBeLessThanOrEqual(9);
    expect(logs.filter((l) => l.includes("sync failed"))).toHaveLength(1);
    expect(logs.filter((l) => l.includes("listing pools failed"))).toHaveLength(1);
    expect(f.stats()[0]!.failures).toBe(failedCalls);
    expect(f.stats()[0]!.lastError).toMatch(/ECONNREFUSED/);
    // The relay has not synced for longer than the lag budget: red.
    expect(f.health()[0]!.ok).toBe(false);
    expect(f.health()[0]!.detail).toMatch(/no successful sync/);

    chain.fail = null;
    chain.deposit(USDC, 4);
    const subscribes = subs.subscribeCalls;
    await tick(17 * POLL);
    expect(indexer.tree(USDC).nextIndex).toBe(4);
    expect(logs.filter((l) => l.includes("recovered"))).toHaveLength(2);
    expect(subs.subscribeCalls).toBe(subscribes + 1);
    expect(subs.count(USDC)).toBe(1);
    expect(f.health()[0]!).toEqual({ name: "indexer-lag:mainnet", ok: true, detail: "1 pools in sync" });
    await f.stop();
  });

  it("measures lag in deposits and in seconds since the oldest unindexed deposit was seen; red past maxIndexerLagSec", async () => {
    const { chain, indexer, make } = setup();
    chain.pools = [USDC];
    chain.deposit(USDC, 5);
    const f = await started(make);
    indexer.stalled = true; // e.g. the RPC does not return a transaction yet
    chain.deposit(USDC, 2);
    await tick(POLL);
    chain.deposit(USDC, 3);
    await tick(10 * POLL);
    let s = f.stats()[0]!;
    expect(s.lagDeposits).toBe(5);
    expect(s.lagSec).toBe(10);
    expect(f.health()[0]!.ok).toBe(true);
    expect(f.health()[0]!.detail).toMatch(/largest lag 5 deposits \(10s\)/);
    await tick((MAX_LAG - 9) * POLL);
    expect(f.health()[0]!.ok).toBe(false);
    expect(f.health()[0]!.detail).toMatch(/5 deposits unindexed for 31s \(max 30s\)/);

    // Partly caught up: the lag is now that of the later deposits, first seen one poll after the others.
    indexer.stalled = false;
    indexer.tree(USDC).nextIndex = 7;
    await tick(0);
    indexer.stalled = true;
    await tick(POLL);
    s = f.stats()[0]!;
    expect(s.lagDeposits).toBe(3);
    expect(s.lagSec).toBe(MAX_LAG + 1);
    indexer.stalled = false;
    await tick(POLL);
    s = f.stats()[0]!;
    expect([s.lagDeposits, s.lagSec]).toEqual([0, 0]);
    expect(f.health()[0]!.ok).toBe(true);
    await f.stop();
  });

  it("adopts pools that appear on chain on its discovery cycle", async () => {
    const { chain, indexer, subs, logs, make } = setup();
    chain.pools = [USDC];
    const f = await started(make);
    expect(chain.listCalls).toBe(1);
    chain.pools = [USDC, BONK];
    chain.deposit(BONK, 2);
    await tick(4 * POLL);
    expect(subs.count(BONK)).toBe(0);
    await tick(POLL);
    expect(chain.listCalls).toBe(2);
    expect(subs.count(BONK)).toBe(1);
    expect(indexer.tree(BONK).nextIndex).toBe(2);
    expect(logs).toContain(`follower: following mainnet/${BONK}`);
    await f.stop();
  });

  it("also follows the pools the indexer already has", async () => {
    const { indexer, subs, make } = setup();
    indexer.tree(WSOL);
    const f = make();
    await f.start();
    expect(subs.count(WSOL)).toBe(1);
    await f.stop();
  });

  it("keeps polling when the subscription cannot be made, and retries it", async () => {
    const { chain, indexer, subs, logs, make } = setup();
    chain.pools = [USDC];
    subs.fail = "websocket closed";
    const f = make();
    await f.start();
    chain.deposit(USDC);
    await tick(3 * POLL);
    expect(indexer.tree(USDC).nextIndex).toBe(1);
    expect(f.stats()[0]!.subscribed).toBe(false);
    expect(logs.filter((l) => l.includes("log subscription failed"))).toHaveLength(1);
    subs.fail = null;
    await tick(4 * POLL);
    expect(f.stats()[0]!.subscribed).toBe(true);
    expect(subs.count(USDC)).toBe(1);
    await f.stop();
  });

  it("stops: unsubscribes and polls no more", async () => {
    const { chain, indexer, subs, make } = setup();
    chain.pools = [USDC, WSOL];
    const f = await started(make);
    await f.stop();
    expect(subs.count(USDC) + subs.count(WSOL)).toBe(0);
    const calls = indexer.syncCalls;
    await tick(10 * POLL);
    expect(indexer.syncCalls).toBe(calls);
  });

  it("reports one check per network, green with no pools", async () => {
    const { make } = setup();
    const f = make();
    await f.start();
    expect(f.health()).toEqual([{ name: "indexer-lag:mainnet", ok: true, detail: "no pools" }]);
    await f.stop();
  });

  it("on a network another instance follows, reads neither the chain nor its logs: it adopts and syncs from the store every 500 ms; a takeover subscribes and syncs at once, a deposal unsubscribes", async () => {
    let leads = false;
    const listeners = new Set<(network: Network) => void>();
    const roles = {
      leads: () => leads,
      onChange: (l: (network: Network) => void) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
    };
    const { chain, indexer, subs, make } = setup({ roles });
    chain.pools = [USDC];
    indexer.tree(USDC);
    let adopted = 0;
    Object.assign(indexer, { adoptStored: async () => void adopted++ });
    let accountReads = 0;
    const account = chain.treeAccount.bind(chain);
    chain.treeAccount = async (mint: string) => {
      accountReads++;
      return account(mint);
    };
    const f = await started(make);
    expect(subs.subscribeCalls).toBe(0);
    expect(chain.listCalls).toBe(0);
    expect(indexer.syncCalls).toBe(1);
    await tick(1_000);
    expect(indexer.syncCalls).toBe(3);
    expect(adopted).toBe(2);
    expect(accountReads).toBe(0);
    expect(f.stats()[0]).toMatchObject({ role: "reader", subscribed: false });
    expect(f.health()[0]!.detail).toBe("reading the tree another instance follows; 1 pools at 0 leaves");

    leads = true;
    for (const l of listeners) l("mainnet");
    await tick(0);
    expect(subs.count(USDC)).toBe(1);
    expect(chain.listCalls).toBe(1);
    expect(indexer.syncCalls).toBe(4);
    expect(accountReads).toBe(1);
    expect(f.stats()[0]).toMatchObject({ role: "leader", subscribed: true });
    // Back to the leader's pace.
    await tick(POLL - 1);
    expect(indexer.syncCalls).toBe(4);

    leads = false;
    for (const l of listeners) l("mainnet");
    await tick(0);
    expect(subs.count(USDC)).toBe(0);
    expect(f.stats()[0]).toMatchObject({ role: "reader", lagDeposits: 0 });
    await f.stop();
  });
});
