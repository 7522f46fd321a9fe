import type { RelayState } from "../../core/relay/states";
import type { SubmissionAttempt } from "../../ports/chain";
import type { NewRelayRecord, RelayRecord, RelayStore, SwapRecord } from "../../ports/relay-store";
import { fromHex, toHex } from "../../../src-shared/encoding/bytes";
import type { DurableDb } from "./durable-db";

/** A relays row as selected with RELAY_COLUMNS; shared with the console store. */
export interface RelayRow {
  id: string;
  kind: "relay" | "swap";
  network: "mainnet" | "devnet";
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
  steps: string;
  swap_quote: string | null;
  swap_out: string | null;
  swap_slippage_bps: number | null;
  attempts: string | null;
  network_fee_lamports: string | null;
  relayer: string | null;
  min_out: string | null;
  change_commitment: Uint8Array | null;
  change_leaf_index: number | null;
  holder: string | null;
}

export const RELAY_COLUMNS =
  "id, kind, network, mint, output_mint, recipient, nullifier_hash, deposit_size, fee, status, error, signature, received_at, steps, swap_quote, swap_out, swap_slippage_bps, attempts, network_fee_lamports, relayer, min_out, change_commitment, change_leaf_index, holder";

/** swap_quote's JSON: amounts as text. */
interface QuoteJson {
  venue: SwapRecord["venue"];
  quotedAt: number;
  inAmount: string;
  outAmount: string;
  priceImpactPct: number;
  slippageBps: number;
  minOut: string;
}

export class SqlRelayStore implements RelayStore {
  constructor(private readonly db: DurableDb) {}

  /** The check and the insert happen in one synchronous turn: one process owns the data dir, so nothing comes between them. */
  async create(r: NewRelayRecord, first: RelayState): Promise<"created" | "locked"> {
    const held = this.db.get<{ id: string }>("SELECT id FROM relays WHERE nullifier_hash = ? AND network = ? AND mint = ? AND status <> 'failed' LIMIT 1", [
      r.nullifierHash,
      r.network,
      r.mint,
    ]);
    if (held) return "locked";
    await this.db.write([
      {
        sql: `INSERT INTO relays (id, kind, network, mint, output_mint, recipient, nullifier_hash, deposit_size, fee, relayer, min_out, change_commitment, holder, status, error, signature, received_at, updated_at, steps)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?, ?)`,
        params: [
          r.id,
          r.kind,
          r.network,
          r.mint,
          r.outputMint,
          r.recipient,
          r.nullifierHash,
          r.depositSize.toString(),
          r.fee.toString(),
          r.relayer,
          r.minOut?.toString() ?? null,
          r.changeCommitment === null ? null : changeCommitmentBytes(r.changeCommitment),
          r.holder,
          first.kind,
          r.receivedAt,
          first.at,
          JSON.stringify([first]),
        ],
      },
    ]);
    return "created";
  }

  async advance(id: string, state: RelayState): Promise<void> {
    const row = this.db.get<{ steps: string; status: RelayState["kind"] }>("SELECT steps, status FROM relays WHERE id = ?", [id]);
    if (!row) throw new Error(`no relay record ${id}`);
    if (isFinal(row.status)) return;
    const steps = JSON.parse(row.steps) as RelayState[];
    steps.push(state);
    await this.db.write([
      {
        sql: "UPDATE relays SET status = ?, error = ?, signature = COALESCE(?, signature), change_leaf_index = COALESCE(?, change_leaf_index), updated_at = ?, steps = ? WHERE id = ?",
        params: [
          state.kind,
          state.kind === "failed" ? state.error : null,
          state.kind === "confirmed" ? state.signature : null,
          state.kind === "confirmed" ? (state.changeLeafIndex ?? null) : null,
          state.at,
          JSON.stringify(steps),
          id,
        ],
      },
    ]);
  }

  async recordSwap(id: string, s: SwapRecord): Promise<void> {
    const quote: QuoteJson = {
      venue: s.venue,
      quotedAt: s.quotedAt,
      inAmount: s.inAmount.toString(),
      outAmount: s.quotedOut.toString(),
      priceImpactPct: s.priceImpactPct,
      slippageBps: s.slippageBps,
      minOut: s.minOut.toString(),
    };
    await this.db.write([
      {
        sql: "UPDATE relays SET swap_quote = ?, swap_out = ?, swap_slippage_bps = ? WHERE id = ?",
        params: [JSON.stringify(quote), s.executedOut === null ? null : s.executedOut.toString(), s.slippageSeenBps, id],
      },
    ]);
  }

  async recordAttempt(id: string, a: SubmissionAttempt): Promise<boolean> {
    const row = this.db.get<{ attempts: string | null; status: RelayState["kind"] }>("SELECT attempts, status FROM relays WHERE id = ?", [id]);
    if (!row) throw new Error(`no relay record ${id}`);
    if (isFinal(row.status)) return false;
    const attempts = row.attempts ? (JSON.parse(row.attempts) as SubmissionAttempt[]) : [];
    const i = attempts.findIndex((x) => x.n === a.n);
    if (i >= 0) attempts[i] = a;
    else attempts.push(a);
    const fee = a.verdict === "landed" || a.verdict === "failed" ? String(a.networkFeeLamports) : null;
    await this.db.write([
      {
        sql: "UPDATE relays SET attempts = ?, network_fee_lamports = COALESCE(?, network_fee_lamports) WHERE id = ?",
        params: [JSON.stringify(attempts), fee, id],
      },
    ]);
    return true;
  }

  async get(id: string): Promise<RelayRecord | null> {
    const row = this.db.get<RelayRow>(`SELECT ${RELAY_COLUMNS} FROM relays WHERE id = ?`, [id]);
    return row ? toRelayRecord(row) : null;
  }

  async unfinished(): Promise<RelayRecord[]> {
    return this.db.all<RelayRow>(`SELECT ${RELAY_COLUMNS} FROM relays WHERE status NOT IN ('confirmed', 'failed') ORDER BY received_at, id`).map(toRelayRecord);
  }

  async recent(limit: number): Promise<RelayRecord[]> {
    return this.db.all<RelayRow>(`SELECT ${RELAY_COLUMNS} FROM relays ORDER BY received_at DESC, id LIMIT ?`, [limit]).map(toRelayRecord);
  }
}

export function toRelayRecord(r: RelayRow): RelayRecord {
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
    steps: JSON.parse(r.steps) as RelayState[],
    swap: toSwap(r),
    attempts: r.attempts ? (JSON.parse(r.attempts) as SubmissionAttempt[]) : [],
    networkFeeLamports: r.network_fee_lamports === null ? null : BigInt(r.network_fee_lamports),
    changeCommitment: r.change_commitment === null ? null : toHex(r.change_commitment),
    changeLeafIndex: r.change_leaf_index,
    holder: r.holder,
  };
}

const isFinal = (status: RelayState["kind"]): boolean => status === "confirmed" || status === "failed";

function changeCommitmentBytes(hex: string): Uint8Array {
  const bytes = fromHex(hex);
  if (!bytes || bytes.length !== 32) throw new Error(`a relay's change commitment is 32 bytes of hex, got ${hex}`);
  return bytes;
}

function toSwap(r: RelayRow): SwapRecord | null {
  if (r.swap_quote === null) return null;
  const q = JSON.parse(r.swap_quote) as QuoteJson;
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
