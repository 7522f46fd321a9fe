import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { bytesEqual, toHex } from "../../src-shared/encoding/bytes";
import type { Network } from "../../src-shared/networks";
import { memoReadingHasher } from "../core/merkle/pair-memo";
import { MerkleTree } from "../core/merkle/tree";
import type { ChainBackend, HealthCheck } from "../ports/chain";
import { FencedOut } from "../ports/store-errors";
import type { IndexedLeaf, LeafKind, StoredPool, TreeStore } from "../ports/tree-store";
import { SOLE_WRITER, type FollowerFences } from "./follower-election";

export interface IndexedPool {
  readonly network: Network;
  readonly mint: string;
  readonly tree: MerkleTree;
  /** The tree account's PDA, cached: it is in every indexer answer. */
  readonly address: string;
  readonly stored: StoredPool;
  /** Set when the chain's tree account disagrees with ours; proofs are then refused. */
  drift: string | null;
  /** Unix ms the root was last compared with the chain's (metrics); null before the first comparison. */
  rootCheckedAt?: number;
  /** Leaves' transactions whose missing events were made up for from chain state since start (receipts, placement by order). */
  repairs?: number;
}

const PAGE = 1000;
/** Recent change leaves remembered by their withdrawal's nullifierHash (the relay's fallback for changeLeafIndex). */
const RECENT_CHANGE_LEAVES = 4096;
const poolKey = (network: Network, mint: string): string => `${network}/${mint}`;

/**
 * Follows each pool's leaf events into its Merkle tree: deposits' leaves and
 * (protocol v3) the change leaf every withdrawal inserts, in leaf order. Every
 * backend goes through the same path: events in order, appended in batches,
 * persisted atomically with the cursor, then checked against the chain's own root.
 */
export class IndexerService {
  /** By network then mint: get() (every indexer read) looks up the path's strings without building a key. */
  private readonly pools = new Map<Network, Map<string, IndexedPool>>();
  /** Pools being created and loaded, by key. */
  private readonly adopting = new Map<string, Promise<IndexedPool>>();
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Per pool, the sync that is queued behind the running one and has not started. */
  private readonly queued = new Map<string, Promise<void>>();
  private lastSyncError: string | null = null;
  private readonly lastLogged = new Map<string, string>();
  /** `network/mint/nullifierHash hex` → the change leaf's index, for the latest RECENT_CHANGE_LEAVES change leaves applied. */
  private readonly recentChangeLeaves = new Map<string, number>();
  /** Per pool, the lease epoch under which this instance last caught up with the store before writing (a new leader may be behind its predecessor). */
  private readonly caughtUp = new Map<string, number>();

  constructor(
    private readonly store: TreeStore,
    private readonly chains: ReadonlyMap<Network, ChainBackend>,
    private readonly hasher: FieldHasher,
    private readonly addressOf: (network: Network, mint: string) => string,
    private readonly log: (line: string) => void = () => {},
    /** Whether this instance writes each network's trees (services/follower-election.ts); on a network it does not, it reads the writer's appends from the store. */
    private readonly fences: FollowerFences = SOLE_WRITER,
  ) {}

  /**
   * Loads persisted trees, adopts every pool the chains know, and catches up.
   * A pool that cannot catch up now (a gap nothing fills yet, an RPC outage)
   * does not stop the start: it serves the leaves it has, its error is in
   * health(), and the chain follower retries it. A start that threw would
   * make the relay a crash loop for as long as the chain's history stays as it is.
   */
  async start(): Promise<void> {
    for (const stored of await this.store.listPools()) await this.adopt(stored);
    for (const [network, chain] of this.chains) {
      // A network another instance follows: its pools are the ones that instance stored (adoptStored).
      if (!this.leads(network)) continue;
      for (const mint of await chain.listPools()) await this.ensurePool(network, mint);
    }
    for (const p of this.list()) await this.sync(p.network, p.mint).catch(() => {}); // logged by syncNow
  }

  get(network: Network, mint: string): IndexedPool | null {
    return this.pools.get(network)?.get(mint) ?? null;
  }

  list(): IndexedPool[] {
    return [...this.pools.values()].flatMap((mints) => [...mints.values()]);
  }

  /** Whether this instance follows `network`'s chain and writes its trees now (else it reads them from the store). */
  leads(network: Network): boolean {
    return this.fences.fenceOf(network) !== null;
  }

  /**
   * Adopts the pools the store has and this indexer does not (on a network another instance
   * follows, that instance creates them): a reader's poll cycle, and a relay naming an unknown pool.
   */
  async adoptStored(network?: Network): Promise<void> {
    for (const stored of await this.store.listPools()) {
      if ((network && stored.network !== network) || this.get(stored.network, stored.mint)) continue;
      const key = poolKey(stored.network, stored.mint);
      let adopting = this.adopting.get(key);
      if (!adopting) {
        adopting = this.adopt(stored).finally(() => this.adopting.delete(key));
        this.adopting.set(key, adopting);
        const pool = await adopting;
        this.log(`indexer: ${key}: adopted from the store at ${pool.tree.nextIndex} leaves`);
      } else await adopting;
    }
  }

  ensurePool(network: Network, mint: string): Promise<IndexedPool> {
    const existing = this.get(network, mint);
    if (existing) return Promise.resolve(existing);
    // Callers that arrive while the pool is being created and loaded share that one pool.
    const key = poolKey(network, mint);
    let adopting = this.adopting.get(key);
    if (!adopting) {
      adopting = this.store
        .createPool(network, mint)
        .then((stored) => this.adopt(stored))
        .finally(() => this.adopting.delete(key));
      this.adopting.set(key, adopting);
    }
    return adopting;
  }

  /**
   * Applies all pending leaf events of one pool; serialized per pool. A
   * caller that arrives while a sync is queued and not yet started joins it:
   * that sync reads the chain only once it starts, so it sees whatever the
   * caller saw (concurrent deposits then share one append and one write).
   */
  sync(network: Network, mint: string): Promise<void> {
    const key = poolKey(network, mint);
    const queued = this.queued.get(key);
    if (queued) return queued;
    const prev = this.locks.get(key) ?? Promise.resolve();
    const next = prev.then(() => {
      if (this.queued.get(key) === next) this.queued.delete(key);
      return this.syncNow(network, mint);
    });
    this.queued.set(key, next);
    this.locks.set(
      key,
      next.catch(() => {}),
    );
    return next;
  }

  /**
   * Where the change leaf of the withdrawal that spent `nullifierHash` went, if this
   * indexer applied it recently (null otherwise): the relay's answer when the chain's
   * verdict did not say.
   */
  changeLeafIndexOf(network: Network, mint: string, nullifierHash: Uint8Array): number | null {
    return this.recentChangeLeaves.get(`${poolKey(network, mint)}/${toHex(nullifierHash)}`) ?? null;
  }

  /**
   * Up to `limit` of the pool's leaves from `from` (get_leaves): each one's kind and a
   * deposit's amount, all public on chain. Bounded by the tree the other reads answer from,
   * so a list never runs ahead of get_merkle's nextIndex.
   */
  leaves(pool: IndexedPool, from: number, limit: number): Promise<LeafKind[]> {
    const to = Math.min(pool.tree.nextIndex, pool.stored.nextIndex, from + limit);
    return this.store.listLeaves(pool.stored, from, to);
  }

  health(): HealthCheck[] {
    const drifted = this.list().filter((p) => p.drift);
    const checks: HealthCheck[] = [
      {
        name: "indexer",
        ok: drifted.length === 0 && this.lastSyncError === null,
        detail: drifted.length
          ? `root drift in ${drifted.map((p) => poolKey(p.network, p.mint)).join(", ")}`
          : (this.lastSyncError ?? `${this.list().length} pools in sync`),
      },
    ];
    return checks;
  }

  private async adopt(stored: StoredPool): Promise<IndexedPool> {
    // Pairs a chain in this process has just hashed (the sandbox's frontier) are read, not hashed again.
    const tree = new MerkleTree(memoReadingHasher(this.hasher));
    await this.store.loadTree(stored, tree);
    const pool: IndexedPool = { network: stored.network, mint: stored.mint, tree, address: this.addressOf(stored.network, stored.mint), stored, drift: null };
    let mints = this.pools.get(stored.network);
    if (!mints) this.pools.set(stored.network, (mints = new Map()));
    mints.set(stored.mint, pool);
    return pool;
  }

  private async syncNow(network: Network, mint: string): Promise<void> {
    const chain = this.chains.get(network);
    if (!chain) return;
    const key = poolKey(network, mint);
    const fence = this.fences.fenceOf(network);
    let pool: IndexedPool | null = this.get(network, mint);
    if (!pool && !fence) {
      // A reader does not create pools: the leader does, and this one adopts what it stored.
      await this.adoptStored(network);
      pool = this.get(network, mint);
      if (!pool) return;
    }
    pool ??= await this.ensurePool(network, mint);
    try {
      if (!fence) {
        await this.replicate(pool);
      } else {
        if (this.caughtUp.get(key) !== fence.epoch) {
          pool = await this.catchUpToWrite(pool);
          this.caughtUp.set(key, fence.epoch);
        }
        pool = await this.follow(chain, pool);
      }
      this.lastSyncError = null;
      this.lastLogged.delete(key);
    } catch (e) {
      if (e instanceof FencedOut) {
        // Another instance took the network over (or wrote ahead of us): its tree is the one; read it from now on.
        this.fences.demote(network, e.message);
        this.caughtUp.delete(key);
        this.log(`indexer: ${key}: a tree write was refused (${e.message}); reading the follower's tree from the store`);
        this.lastSyncError = null;
        // The callers asked for the pool as it is: the new writer's tree is as good an answer as ours would have been.
        const now = this.get(network, mint);
        if (now) await this.replicate(now).catch(() => {});
        return;
      }
      const error = `${key}: ${(e as Error).message}`;
      // An outage fails every poll the same way: one line per pool and distinct failure, not one per retry.
      if (this.lastLogged.get(key) !== error) this.log(`indexer: ${error}`);
      this.lastLogged.set(key, error);
      this.lastSyncError = error;
      throw e;
    }
  }

  /** Applies the chain's leaf events from the stored cursor, each append written under the lease's fence; answers the pool (a new one after a failed write). */
  private async follow(chain: ChainBackend, pool: IndexedPool): Promise<IndexedPool> {
    const { network, mint } = pool;
    for (;;) {
      // Asked per page: a sync that outlives the lease stops writing (the store would refuse it anyway).
      const fence = this.fences.fenceOf(network);
      if (!fence) return pool;
      const page = await chain.fetchLeafEvents(mint, pool.stored.cursor, PAGE, pool.tree.nextIndex);
      if (page.events.length === 0) {
        // History without leaves still moves the cursor, so a restart does not read it again.
        if (page.cursor !== pool.stored.cursor) await this.store.saveCursor(pool.stored, page.cursor, fence);
        break;
      }
      const leaves = new Uint8Array(page.events.length * 32);
      const meta: IndexedLeaf[] = [];
      page.events.forEach((e, i) => {
        if (e.leafIndex !== pool.tree.nextIndex + i) {
          throw new Error(`event ${e.signature} has leaf ${e.leafIndex}, expected ${pool.tree.nextIndex + i}`);
        }
        leaves.set(e.commitment, i * 32);
        meta.push({
          leafIndex: e.leafIndex,
          commitment: e.commitment,
          signature: e.signature,
          slot: e.slot,
          kind: e.kind,
          amount: e.kind === "deposit" ? e.amount : null,
        });
      });
      const appended = pool.tree.append(leaves);
      if (!appended.ok) throw new Error(`append failed: ${appended.error}`);
      try {
        await this.store.saveAppend(pool.stored, appended.value, page.cursor, meta, fence);
      } catch (e) {
        // The store rolled back; rebuild the tree from it so memory matches disk.
        await this.reload(pool);
        throw e;
      }
      for (const e of page.events) if (e.kind === "change") this.rememberChangeLeaf(network, mint, e.nullifierHash, e.leafIndex);
      for (const r of page.repairs ?? []) {
        // Events the chain did not deliver (cut logs, an RPC without inner instructions): the leaves came from chain state; the root check below confirms them.
        pool.repairs = (pool.repairs ?? 0) + 1;
        this.log(`indexer: ${poolKey(network, mint)}: repaired a gap from chain state: ${r}`);
      }
    }
    await this.checkRoot(chain, pool);
    return pool;
  }

  /**
   * Re-applies the appends the store has beyond this tree, one by one, so this tree's root history is
   * the writer's; each resulting root is checked against the stored one. A tree that disagrees is
   * reloaded from the store. Answers the pool as it is now (a new one after a reload).
   */
  private async replicate(pool: IndexedPool): Promise<IndexedPool> {
    for (;;) {
      const appends = await this.store.appendsSince(pool.stored, pool.tree.nextIndex);
      if (appends.length === 0) return pool;
      for (const a of appends) {
        const from = pool.tree.nextIndex;
        const count = a.leaves.length;
        let wrong: string | null = null;
        if (count === 0 || a.leaves[0]!.leafIndex !== from || a.nextIndex !== from + count) {
          wrong = `the store's append to ${a.nextIndex} leaves does not start at this tree's ${from}`;
        } else {
          const leaves = new Uint8Array(count * 32);
          a.leaves.forEach((l, i) => leaves.set(l.commitment, i * 32));
          const appended = pool.tree.append(leaves);
          if (!appended.ok) wrong = `append failed: ${appended.error}`;
          else if (!bytesEqual(pool.tree.root(), a.root))
            wrong = `replica root ${toHex(pool.tree.root())} != stored root ${toHex(a.root)} at ${a.nextIndex} leaves`;
        }
        if (wrong) {
          this.log(`indexer: ${poolKey(pool.network, pool.mint)}: ${wrong}; reloading the tree from the store`);
          return this.reload(pool);
        }
        pool.stored.nextIndex = a.nextIndex;
      }
    }
  }

  /**
   * Before this instance writes a pool under a new lease: what the previous writer stored and this
   * tree lacks, and the cursor it reached (appendsSince does not carry cursors). Under our lease
   * nobody else writes, so the pool's row is final.
   */
  private async catchUpToWrite(pool: IndexedPool): Promise<IndexedPool> {
    pool = await this.replicate(pool);
    const row = (await this.store.listPools()).find((p) => p.id === pool.stored.id);
    if (!row) return pool;
    if (row.nextIndex !== pool.tree.nextIndex) return this.reload(pool);
    pool.stored.nextIndex = row.nextIndex;
    pool.stored.cursor = row.cursor;
    return pool;
  }

  /** Replaces the pool's tree with the store's (which also moves its StoredPool to the stored size and cursor). */
  private async reload(pool: IndexedPool): Promise<IndexedPool> {
    const key = poolKey(pool.network, pool.mint);
    this.pools.get(pool.network)?.delete(pool.mint);
    this.caughtUp.delete(key);
    const fresh = await this.adopt(pool.stored);
    if (pool.repairs) fresh.repairs = pool.repairs;
    return fresh;
  }

  private rememberChangeLeaf(network: Network, mint: string, nullifierHash: Uint8Array, leafIndex: number): void {
    this.recentChangeLeaves.set(`${poolKey(network, mint)}/${toHex(nullifierHash)}`, leafIndex);
    if (this.recentChangeLeaves.size > RECENT_CHANGE_LEAVES) this.recentChangeLeaves.delete(this.recentChangeLeaves.keys().next().value!);
  }

  private async checkRoot(chain: ChainBackend, pool: IndexedPool): Promise<void> {
    const account = await chain.treeAccount(pool.mint);
    if (!account || account.nextIndex !== pool.tree.nextIndex) return;
    const ours = toHex(pool.tree.root());
    const theirs = toHex(account.root);
    pool.rootCheckedAt = Date.now();
    pool.drift = ours === theirs ? null : `indexer root ${ours} != chain root ${theirs} at ${account.nextIndex} leaves`;
    if (pool.drift) this.log(`indexer: ${poolKey(pool.network, pool.mint)} ${pool.drift}`);
  }
}
