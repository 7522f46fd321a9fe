import type { Network } from "../../src-shared/networks";
import type { AppendResult, MerkleTree } from "../core/merkle/tree";
import type { Fence } from "./coordination";

export interface StoredPool {
  id: number;
  network: Network;
  mint: string;
  nextIndex: number;
  /** The chain cursor of the last leaf event applied (backend-specific text). */
  cursor: string | null;
}

export interface IndexedLeaf {
  leafIndex: number;
  /** The leaf itself: a replica re-applies it from the store (appendsSince). */
  commitment: Uint8Array;
  signature: string;
  slot: number;
  /** Protocol v3: a deposit's leaf, or the change leaf a withdrawal inserted. */
  kind: "deposit" | "change";
  /** A deposit's amount in base units (public on chain); null for a change leaf (its value is private). */
  amount: bigint | null;
}

/** One leaf as get_leaves lists it: what the chain made public about it (its kind, a deposit's amount). */
export interface LeafKind {
  leafIndex: number;
  kind: "deposit" | "change";
  /** A deposit's amount in base units; null for a change leaf, and for a deposit whose amount the store does not have. */
  amount: bigint | null;
}

/** One saved append, as a replica re-applies it: its leaves in order, and the root and leaf count after it. */
export interface StoredAppend {
  /** The pool's leaf count after this append. */
  nextIndex: number;
  root: Uint8Array;
  leaves: IndexedLeaf[];
}

/**
 * Where the indexer's trees live between restarts. Writes carry the writer's fence: a store
 * shared by instances refuses (FencedOut, ports/store-errors.ts) a writer that no longer
 * holds the network's follower lease under that epoch.
 */
export interface TreeStore {
  listPools(): Promise<StoredPool[]>;
  createPool(network: Network, mint: string): Promise<StoredPool>;
  /** Fills an empty tree with the pool's persisted nodes and recent roots. */
  loadTree(pool: StoredPool, tree: MerkleTree): Promise<void>;
  /** Persists one append (nodes, root, cursor, leaf metadata) atomically. */
  saveAppend(pool: StoredPool, append: AppendResult, cursor: string | null, leaves: IndexedLeaf[], fence: Fence): Promise<void>;
  /** Moves the cursor past chain history that held no leaves (failed deposits, reverts). */
  saveCursor(pool: StoredPool, cursor: string | null, fence: Fence): Promise<void>;
  /**
   * The appends saved after the pool had `nextIndex` leaves, in order: what a replica
   * (an instance that does not follow the chain) applies to catch up with the leader.
   * Empty where this instance is always the leader (sql.js).
   */
  appendsSince(pool: StoredPool, nextIndex: number): Promise<StoredAppend[]>;
  /** The leaves from `from` up to (not including) `to`, in leaf order, as far as the store has them. */
  listLeaves(pool: StoredPool, from: number, to: number): Promise<LeafKind[]>;
}
