/**
 * The follower election, the indexer and the chain follower, started for the
 * composition root (compose-relay.ts): Solana pools are followed live (logs
 * subscription and polling) by the instance holding the network's follower
 * lease, and read from the store by the others; the sandbox indexes on each deposit.
 */
import { publicKeyBytesOrThrow } from "../../src-shared/encoding/base58";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import type { Network } from "../../src-shared/networks";
import { treeAddress } from "../../src-shared/solana/pda";
import type { MintSubscribe } from "../adapters/chain-solana/follower-subscribe";
import type { ChainBackend } from "../ports/chain";
import type { Coordination } from "../ports/coordination";
import type { Stores } from "../ports/stores";
import type { TreeStore } from "../ports/tree-store";
import { ChainFollower, type FollowedNetwork } from "../services/chain-follower";
import { FollowerElection } from "../services/follower-election";
import { IndexerService } from "../services/indexer";
import type { TeardownStack } from "../teardown";
import type { Chains } from "./chains";

/**
 * Which instance follows each enabled network (on sql.js: this one, always). Its first round is
 * over before this returns, so the indexer starts knowing whether to read each chain or the store.
 * Registered on the stack before the follower, so the follower stops first and the leases are
 * released before the store closes.
 */
export async function startElection(deps: {
  coordination: Coordination;
  /** sql.js: this process owns the store, and its leases cannot be taken (FollowerElectionOptions.sole). */
  sole: boolean;
  networks: readonly Network[];
  log: (line: string) => void;
  stack: TeardownStack;
}): Promise<FollowerElection> {
  const election = new FollowerElection({ coordination: deps.coordination, networks: deps.networks, sole: deps.sole, log: deps.log });
  deps.stack.defer("follower election", () => election.stop());
  await election.start();
  return election;
}

/**
 * The follower election, then the indexer (it needs to know who writes each network's trees),
 * then the chain follower: `step` after the indexer and after the follower (START_STEPS).
 */
export async function startIndexing(deps: {
  stores: Pick<Stores, "engine" | "coordination" | "tree">;
  chains: ReadonlyMap<Network, ChainBackend>;
  connected: Pick<Chains, "programIds" | "solanaNetworks" | "subscribers">;
  hasher: FieldHasher;
  log: (line: string) => void;
  stack: TeardownStack;
  step: (name: "indexer" | "follower") => Promise<void>;
}): Promise<{ election: FollowerElection; indexer: IndexerService; follower: ChainFollower }> {
  const { stores, chains, connected, hasher, log, stack } = deps;
  const election = await startElection({ coordination: stores.coordination, networks: [...chains.keys()], sole: stores.engine === "sqljs", log, stack });
  const indexer = await startIndexer({ tree: stores.tree, election, chains, hasher, programIds: connected.programIds, log });
  await deps.step("indexer");
  const follower = await startFollower({ indexer, election, solanaNetworks: connected.solanaNetworks, subscribers: connected.subscribers, log, stack });
  await deps.step("follower");
  return { election, indexer, follower };
}

/** Every enabled pool's tree, from the store and then its chain; each pool's tree account address computed once. */
export async function startIndexer(deps: {
  tree: TreeStore;
  election: FollowerElection;
  chains: ReadonlyMap<Network, ChainBackend>;
  hasher: FieldHasher;
  programIds: ReadonlyMap<Network, Uint8Array>;
  log: (line: string) => void;
}): Promise<IndexerService> {
  const treeAddresses = new Map<string, string>();
  const indexer = new IndexerService(
    deps.tree,
    deps.chains,
    deps.hasher,
    (n, mint) => {
      const key = `${n}/${mint}`;
      let a = treeAddresses.get(key);
      if (!a) treeAddresses.set(key, (a = treeAddress(deps.programIds.get(n)!, publicKeyBytesOrThrow(mint))));
      return a;
    },
    deps.log,
    deps.election,
  );
  await indexer.start();
  return indexer;
}

export async function startFollower(deps: {
  indexer: IndexerService;
  election: FollowerElection;
  solanaNetworks: ReadonlyMap<Network, FollowedNetwork>;
  subscribers: ReadonlyMap<Network, MintSubscribe>;
  log: (line: string) => void;
  stack: TeardownStack;
}): Promise<ChainFollower> {
  const follower = new ChainFollower({
    indexer: deps.indexer,
    networks: deps.solanaNetworks,
    subscribe: (pool, onChange) => deps.subscribers.get(pool.network)!(pool.mint, onChange),
    log: deps.log,
    roles: deps.election,
  });
  deps.stack.defer("chain follower", () => follower.stop());
  await follower.start();
  return follower;
}

export interface PoolLag {
  network: Network;
  mint: string;
  /** Deposits on chain not yet in the tree, and for how long (the follower's; 0 on the sandbox). */
  lagDeposits: number;
  lagSec: number;
  drift: string | null;
  lastRootCheckAt: number | null;
}

/** Each indexed pool's lag behind its chain, for the metrics and the alerts. */
export function poolLag(indexer: IndexerService, follower: ChainFollower): PoolLag[] {
  const lag = new Map(follower.stats().map((s) => [`${s.network}/${s.mint}`, s]));
  return indexer.list().map((p) => {
    const l = lag.get(`${p.network}/${p.mint}`);
    return {
      network: p.network,
      mint: p.mint,
      lagDeposits: l?.lagDeposits ?? 0,
      lagSec: l?.lagSec ?? 0,
      drift: p.drift,
      lastRootCheckAt: p.rootCheckedAt ?? null,
    };
  });
}
