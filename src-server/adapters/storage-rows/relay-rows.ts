/**
 * relays as both storage engines (storage-sqljs, storage-pg) read it. The columns are the same
 * and so are their JS types (u64 amounts as text: TEXT in SQLite, numeric as text from pg;
 * change_commitment as bytes), except the three JSON columns, steps, swap_quote and attempts:
 * JSON text in SQLite, jsonb (already parsed) in PostgreSQL. The row is generic in those, and
 * the mapper takes them parsed, so each adapter says how it gets them.
 */
import { fromHex, toHex } from "../../../src-shared/encoding/bytes";
import type { Network } from "../../../src-shared/networks";
import type { RelayState } from "../../core/relay/states";
import type { SubmissionAttempt } from "../../ports/chain";
import type { RelayRecord, SwapRecord } from "../../ports/relay-store";

/** The relays columns both engines hand back as the same JS types. */
export interface RelayScalarColumns {
  id: string;
  kind: "relay" | "swap";
  network: Network;
  mint: string;
  output_mint: string | null;
  recipient: string;
  nullifier_hash: string;
  deposit_size: string;
  fee: string;
  status: RelayState["kind"];
  error: string | null;
  signature: string | null;
  received_at: number;
  swap_out: string | null;
  swap_slippage_bps: number | null;
  network_fee_lamports: string | null;
  relayer: string | null;
  min_out: string | null;
  change_commitment: Uint8Array | null;
  change_leaf_index: number | null;
  holder: string | null;
}

/** The JSON columns, typed as the engine hands them back. */
export interface RelayJsonColumns {
  steps: unknown;
  swap_quote: unknown;
  attempts: unknown;
}

/** A relays row as selected with RELAY_COLUMNS. */
export type RelayRowOf<Json extends RelayJsonColumns> = RelayScalarColumns & Json;

export const RELAY_COLUMNS =
  "id, kind, network, mint, output_mint, recipient, nullifier_hash, deposit_size, fee, status, error, signature, received_at, steps, swap_quote, swap_out, swap_slippage_bps, attempts, network_fee_lamports, relayer, min_out, change_commitment, change_leaf_index, holder";

/** swap_quote's JSON: amounts as text. */
export interface QuoteJson {
  venue: SwapRecord["venue"];
  quotedAt: number;
  inAmount: string;
  outAmount: string;
  priceImpactPct: number;
  slippageBps: number;
  minOut: string;
}

/** The JSON columns, parsed. */
export interface RelayJson {
  steps: RelayState[];
  quote: QuoteJson | null;
  attempts: SubmissionAttempt[];
}

export const toQuoteJson = (s: SwapRecord): QuoteJson => ({
  venue: s.venue,
  quotedAt: s.quotedAt,
  inAmount: s.inAmount.toString(),
  outAmount: s.quotedOut.toString(),
  priceImpactPct: s.priceImpactPct,
  slippageBps: s.slippageBps,
  minOut: s.minOut.toString(),
});

export function toRelayRecordFrom(r: RelayScalarColumns, json: RelayJson): RelayRecord {
  return {
    id: r.id,
    kind: r.kind,
    network: r.network,
    mint: r.mint,
    outputMint: r.output_mint,
    recipient: r.recipient,
    nullifierHash: r.nullifier_hash,
    depositSize: BigInt(r.deposit_size),
    fee: BigInt(r.fee),
    relayer: r.relayer,
    minOut: r.min_out === null ? null : BigInt(r.min_out),
    receivedAt: r.received_at,
    status: r.status,
    error: r.error,
    signature: r.signature,
    steps: json.steps,
    swap: toSwap(r, json.quote),
    attempts: json.attempts,
    networkFeeLamports: r.network_fee_lamports === null ? null : BigInt(r.network_fee_lamports),
    changeCommitment: r.change_commitment === null ? null : toHex(r.change_commitment),
    changeLeafIndex: r.change_leaf_index,
    holder: r.holder,
  };
}

function toSwap(r: RelayScalarColumns, q: QuoteJson | null): SwapRecord | null {
  if (q === null) return null;
  return {
    venue: q.venue,
    quotedAt: q.quotedAt,
    inAmount: BigInt(q.inAmount),
    quotedOut: BigInt(q.outAmount),
    priceImpactPct: q.priceImpactPct,
    slippageBps: q.slippageBps,
    minOut: BigInt(q.minOut),
    executedOut: r.swap_out === null ? null : BigInt(r.swap_out),
    slippageSeenBps: r.swap_slippage_bps,
  };
}

export function changeCommitmentBytes(hex: string): Uint8Array {
  const bytes = fromHex(hex);
  if (!bytes || bytes.length !== 32) throw new Error(`a relay's change commitment is 32 bytes of hex, got ${hex}`);
  return bytes;
}
