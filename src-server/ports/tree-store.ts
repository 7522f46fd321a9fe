import type { Network } from "../../src-shared/networks";
import type { AppendResult, MerkleTree } from "../core/merkle/tree";

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

/** Where the indexer's trees live between restarts. */
export interface TreeStore {
  listPools(): StoredPool[];
  createPool(network: Network, mint: string): Promise<StoredPool>;
  /** Fills an empty tree with the pool's persisted nodes and recent roots. */
  loadTree(pool: StoredPool, tree: MerkleTree): void;
  /** Persists one append (nodes, root, cursor, leaf metadata) atomically. */
  saveAppend(pool: StoredPool, append: AppendResult, cursor: string | null, leaves: IndexedLeaf[]): Promise<void>;
  /** Moves the cursor past chain history that held no leaves (failed deposits, reverts). */
  saveCursor(pool: StoredPool, cursor: string | null): Promise<void>;
  /** The leaves from `from` up to (not including) `to`, in leaf order, as far as the store has them. */
  listLeaves(pool: StoredPool, from: number, to: number): LeafKind[];
}
