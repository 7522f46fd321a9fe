import type { RelayState } from "../../core/relay/states";
import type { SubmissionAttempt } from "../../ports/chain";
import type { NewRelayRecord, RelayRecord, RelayStore, SwapRecord } from "../../ports/relay-store";
import type { DurableDb } from "./durable-db";
import { changeCommitmentBytes, RELAY_COLUMNS, toQuoteJson, toRelayRecordFrom, type QuoteJson, type RelayRowOf } from "../storage-rows/relay-rows";

/** A relays row as selected with RELAY_COLUMNS; shared with the console store. The JSON columns are TEXT here. */
export type RelayRow = RelayRowOf<{ steps: string; swap_quote: string | null; attempts: string | null }>;

export function toRelayRecord(r: RelayRow): RelayRecord {
  return toRelayRecordFrom(r, {
    steps: JSON.parse(r.steps) as RelayState[],
    quote: r.swap_quote === null ? null : (JSON.parse(r.swap_quote) as QuoteJson),
    attempts: r.attempts ? (JSON.parse(r.attempts) as SubmissionAttempt[]) : [],
  });
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
    const quote = toQuoteJson(s);
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

const isFinal = (status: RelayState["kind"]): boolean => status === "confirmed" || status === "failed";
