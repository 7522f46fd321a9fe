/** pools as both storage engines (storage-sqljs, storage-pg) read it: the same columns and JS types (PostgreSQL's int8 is parsed to number by the pool). */
import type { Network } from "../../../src-shared/networks";
import type { StoredPool } from "../../ports/tree-store";

export interface PoolRow {
  id: number;
  network: Network;
  mint: string;
  next_index: number;
  cursor: string | null;
}

export const toStoredPool = (r: PoolRow): StoredPool => ({ id: r.id, network: r.network, mint: r.mint, nextIndex: r.next_index, cursor: r.cursor });
