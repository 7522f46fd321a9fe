/**
 * Two indexers on one PostgreSQL database, each with its own follower election: the leader follows
 * the chain (a scripted ChainBackend: the chain side only) and writes; the reader re-applies its
 * appends one by one and reaches the same roots. After a takeover, the new leader catches up from
 * the store and continues from the stored cursor: no leaf lost or written twice, and the deposed
 * leader's late write is refused and turns it into a reader.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { pgStoresPerTest } from "../../tests/support/pg-stores";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { toHex } from "../../src-shared/encoding/bytes";
import type { Network } from "../../src-shared/networks";
import type { PgStores } from "../adapters/storage-pg/open";
import { MerkleTree } from "../core/merkle/tree";
import type { ChainBackend, LeafEvent, LeafEventPage } from "../ports/chain";
import type { Coordination } from "../ports/coordination";
import { FollowerElection } from "./follower-election";
import { IndexerService } from "./indexer";

const MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const pg = pgStoresPerTest();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
let hasher: FieldHasher;
beforeAll(async () => {
  hasher = await createPoseidonHasher();
});

/** One pool's chain: leaf events in order; the cursor is the count of events read. */
class ScriptedChain {
  readonly events: LeafEvent[] = [];
  readonly tree: MerkleTree;
  /** How many fetchLeafEvents calls each instance made (a reader must make none). */
  readonly reads = new Map<string, number>();

  constructor(hasher: FieldHasher) {
    this.tree = new MerkleTree(hasher);
  }

  deposit(n: number): void {
    for (let k = 0; k < n; k++) {
      const i = this.events.length;
      const commitment = new Uint8Array(32);
      commitment[0] = 0x11;
      commitment[30] = i >> 8;
      commitment[31] = i & 0xff;
      this.events.push({ kind: "deposit", signature: `D${i}`, leafIndex: i, commitment, slot: i, depositor: "W", amount: BigInt(1000 + i) });
      this.tree.append(commitment);
    }
  }

  /** The ChainBackend parts the indexer uses, as instance `who` sees them. */
  backend(who: string): ChainBackend {
    return {
      network: "mainnet",
      kind: "solana",
      listPools: async () => [MINT],
      fetchLeafEvents: async (_mint: string, cursor: string | null, limit: number): Promise<LeafEventPage> => {
        this.reads.set(who, (this.reads.get(who) ?? 0) + 1);
        const from = cursor === null ? 0 : Number(cursor);
        const events = this.events.slice(from, from + limit);
        return { events, cursor: events.length ? String(from + events.length) : cursor };
      },
      treeAccount: async () => ({ root: this.tree.root(), nextIndex: this.tree.nextIndex }),
    } as unknown as ChainBackend;
  }
}

/** A coordination whose lead() fails while paused: a leader that stopped renewing (a SIGSTOP, a lost database). */
function pausable(c: Coordination): { coordination: Coordination; pause(): void } {
  let paused = false;
  const coordination: Coordination = Object.create(c) as Coordination;
  coordination.lead = (network, leaseMs) => (paused ? Promise.reject(new Error("paused")) : c.lead(network, leaseMs));
  return { coordination, pause: () => (paused = true) };
}

const elections: FollowerElection[] = [];
afterEach(async () => {
  await Promise.allSettled(elections.splice(0).map((e) => e.stop()));
});

interface Instance {
  name: string;
  stores: PgStores;
  election: FollowerElection;
  indexer: IndexerService;
  logs: string[];
  pause(): void;
}

async function instance(name: string, stores: PgStores, chain: ScriptedChain, o: { clock?: () => number } = {}): Promise<Instance> {
  const logs: string[] = [];
  const log = (l: string): void => void logs.push(l);
  const frozen = pausable(stores.coordination);
  // A short lease keeps the takeover quick; the production lease (5 s) is the election test's.
  const election = new FollowerElection({ coordination: frozen.coordination, networks: ["mainnet"], leaseMs: 1_000, renewMs: 200, log, ...o });
  elections.push(election);
  await election.start();
  const indexer = new IndexerService(stores.tree, new Map<Network, ChainBackend>([["mainnet", chain.backend(name)]]), hasher, () => "tree", log, election);
  await indexer.start();
  return { name, stores, election, indexer, logs, pause: frozen.pause };
}

const rootOf = (i: Instance): string => toHex(i.indexer.get("mainnet", MINT)!.tree.root());

describe("IndexerService: a leader and a reader on one PostgreSQL", () => {
  it("the reader re-applies the leader's appends one by one: the same roots, each intermediate root known", async () => {
    const chain = new ScriptedChain(hasher);
    chain.deposit(3);
    const a = await instance("A", await pg.open(), chain);
    const b = await instance("B", await pg.open({ url: pg.urlOf(a.stores) }), chain);
    expect(a.indexer.leads("mainnet")).toBe(true);
    expect(b.indexer.leads("mainnet")).toBe(false);
    // B adopted the pool A created, at A's 3 leaves.
    expect(b.indexer.get("mainnet", MINT)!.tree.nextIndex).toBe(3);
    expect(rootOf(b)).toBe(rootOf(a));

    const roots: Uint8Array[] = [];
    for (const n of [2, 1, 4]) {
      chain.deposit(n);
      await a.indexer.sync("mainnet", MINT);
      roots.push(a.indexer.get("mainnet", MINT)!.tree.root());
    }
    expect(a.indexer.get("mainnet", MINT)!.drift).toBeNull();
    await b.indexer.sync("mainnet", MINT);
    const pool = b.indexer.get("mainnet", MINT)!;
    expect(pool.tree.nextIndex).toBe(10);
    expect(pool.stored.nextIndex).toBe(10);
    expect(rootOf(b)).toBe(toHex(chain.tree.root()));
    // Append by append: every root the leader's tree accepts, the reader's accepts too.
    for (const r of roots) expect(pool.tree.isKnownRoot(r)).toBe(true);
    expect(chain.reads.get("B") ?? 0).toBe(0);
  });

  it("reloads a reader's tree from the store when a re-applied append does not give the stored root, and logs why", async () => {
    const chain = new ScriptedChain(hasher);
    chain.deposit(2);
    const a = await instance("A", await pg.open(), chain);
    const b = await instance("B", await pg.open({ url: pg.urlOf(a.stores) }), chain);
    // A leaf the store never had: B's tree has forked from the leader's.
    b.indexer.get("mainnet", MINT)!.tree.append(new Uint8Array(32).fill(7));
    chain.deposit(2);
    await a.indexer.sync("mainnet", MINT);
    await b.indexer.sync("mainnet", MINT);
    expect(b.logs).toContainEqual(
      expect.stringMatching(/^indexer: mainnet\/\w+: replica root [0-9a-f]+ != stored root [0-9a-f]+ at 4 leaves; reloading the tree from the store$/),
    );
    expect(b.indexer.get("mainnet", MINT)!.tree.nextIndex).toBe(4);
    expect(rootOf(b)).toBe(toHex(chain.tree.root()));
  });

  it("adopts a pool the leader created after the reader started", async () => {
    const chain = new ScriptedChain(hasher);
    const aStores = await pg.open();
    const bStores = await pg.open({ url: pg.urlOf(aStores) });
    // B starts first, but A leads: B must not create the pool itself.
    const a0 = new FollowerElection({ coordination: aStores.coordination, networks: ["mainnet"], leaseMs: 60_000 });
    elections.push(a0);
    await a0.start();
    const b = await instance("B", bStores, chain);
    expect(b.indexer.list()).toEqual([]);
    expect(await bStores.tree.listPools()).toEqual([]);
    const a = new IndexerService(
      aStores.tree,
      new Map<Network, ChainBackend>([["mainnet", chain.backend("A")]]),
      hasher,
      () => "tree",
      () => {},
      a0,
    );
    chain.deposit(2);
    await a.start();
    await b.indexer.sync("mainnet", MINT);
    expect(b.indexer.get("mainnet", MINT)!.tree.nextIndex).toBe(2);
    expect(b.logs).toContain(`indexer: mainnet/${MINT}: adopted from the store at 2 leaves`);
  });

  it("after a takeover, the new leader catches up from the store and continues from the stored cursor: no leaf lost or duplicated; the old leader's late write is refused and it reads", async () => {
    const chain = new ScriptedChain(hasher);
    chain.deposit(2);
    // A's own clock stands still while it is paused, so it still believes it leads when it wakes.
    const a = await instance("A", await pg.open(), chain, { clock: () => 0 });
    const b = await instance("B", await pg.open({ url: pg.urlOf(a.stores) }), chain);
    // A writes more that B has not read yet when A stops.
    chain.deposit(3);
    await a.indexer.sync("mainnet", MINT);
    expect(b.indexer.get("mainnet", MINT)!.tree.nextIndex).toBe(2);
    a.pause();
    chain.deposit(2);
    const t0 = Date.now();
    while (!b.indexer.leads("mainnet")) {
      if (Date.now() - t0 > 5_000) throw new Error("B did not take over");
      await sleep(20);
    }
    expect(b.election.fenceOf("mainnet")!.epoch).toBe(2);
    expect(a.indexer.leads("mainnet")).toBe(true);

    // A wakes and writes what it read from the chain: refused; it answers no error and reads B's tree from then on.
    const aReadsBefore = chain.reads.get("A")!;
    await expect(a.indexer.sync("mainnet", MINT)).resolves.toBeUndefined();
    expect(chain.reads.get("A")).toBe(aReadsBefore + 1);
    expect(a.indexer.leads("mainnet")).toBe(false);
    expect(a.logs).toContainEqual(expect.stringMatching(/^follower: deposed on mainnet \(epoch 1\): .*no longer follows the chain under epoch 1$/));
    expect(a.indexer.get("mainnet", MINT)!.tree.nextIndex).toBe(5);

    // B catches up on A's 3 and follows the chain from A's cursor: 7 leaves, the chain's root.
    await b.indexer.sync("mainnet", MINT);
    const pool = b.indexer.get("mainnet", MINT)!;
    expect(pool.tree.nextIndex).toBe(7);
    expect(pool.stored.cursor).toBe("7");
    expect(pool.drift).toBeNull();
    expect(rootOf(b)).toBe(toHex(chain.tree.root()));
    chain.deposit(1);
    await b.indexer.sync("mainnet", MINT);
    expect(rootOf(b)).toBe(toHex(chain.tree.root()));

    // The store has every chain leaf once, in order, with the chain's commitments.
    const stored = await b.stores.tree.appendsSince(pool.stored, 0);
    const leaves = stored.flatMap((s) => s.leaves);
    expect(leaves.map((l) => l.leafIndex)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(leaves.map((l) => toHex(l.commitment))).toEqual(chain.events.map((e) => toHex(e.commitment)));
    expect(stored.at(-1)!.root).toEqual(chain.tree.root());

    // A, a reader now, reaches the same tree without reading the chain.
    const aReads = chain.reads.get("A")!;
    await a.indexer.sync("mainnet", MINT);
    expect(rootOf(a)).toBe(toHex(chain.tree.root()));
    expect(chain.reads.get("A")).toBe(aReads);
  });
});
