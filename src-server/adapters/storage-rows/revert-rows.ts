/**
 * reverts as both storage engines (storage-sqljs, storage-pg) read it. Every column comes back
 * as the same JS type (amount is text in both: TEXT in SQLite, numeric selected as text by pg)
 * except steps: JSON text in SQLite, jsonb (already parsed) in PostgreSQL. The row is generic
 * in that one column and the mapper takes the parsed steps, so each adapter says how it gets them.
 */
import type { Network } from "../../../src-shared/networks";
import type { RevertState } from "../../core/revert/states";
import type { RevertRecord } from "../../ports/revert-store";

export interface RevertRow<Steps> {
  id: string;
  network: Network;
  deposit_signature: string;
  wallet: string;
  mint: string | null;
  amount: string | null;
  status: RevertState["kind"];
  error: string | null;
  signature: string | null;
  requested_at: number;
  steps: Steps;
}

export const REVERT_COLUMNS = "id, network, deposit_signature, wallet, mint, amount, status, error, signature, requested_at, steps";

export function toRevertRecord(r: RevertRow<unknown>, steps: RevertState[]): RevertRecord {
  return {
    id: r.id,
    network: r.network,
    depositSignature: r.deposit_signature,
    wallet: r.wallet,
    requestedAt: r.requested_at,
    status: r.status,
    error: r.error,
    signature: r.signature,
    mint: r.mint,
    amount: r.amount === null ? null : BigInt(r.amount),
    steps,
  };
}
