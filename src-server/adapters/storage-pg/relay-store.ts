import type { RelayState } from "../../core/relay/states";
import type { SubmissionAttempt } from "../../ports/chain";
import type { RelayStore, SwapRecord } from "../../ports/relay-store";
import type { PgDatabase } from "./pool";
import type { NewRelayRecord as HeldNewRelayRecord, RelayRecord as HeldRelayRecord } from "../../ports/relay-store";
import { changeCommitmentBytes, RELAY_COLUMNS, toQuoteJson, toRelayRecordFrom, type QuoteJson, type RelayRowOf } from "../storage-rows/relay-rows";

/** A relays row as selected with RELAY_COLUMNS; shared with the console store. The JSON columns are jsonb, handed back parsed; holder is NOT NULL here. */
export type PgRelayRow = RelayRowOf<{ steps: RelayState[]; swap_quote: QuoteJson | null; attempts: SubmissionAttempt[]; holder: string }>;

export const toRelayRecord = (r: PgRelayRow): HeldRelayRecord => toRelayRecordFrom(r, { steps: r.steps, quote: r.swap_quote, attempts: r.attempts });

const FINAL = "('confirmed', 'failed')";

/**
 * Relay records in PostgreSQL. The record is the nullifier's lock: relays_nullifier_lock (a
 * partial unique index over records not finally failed) lets exactly one of any number of
 * concurrent creates in, across every instance.
 */
export class PgRelayStore implements RelayStore {
  constructor(private readonly db: PgDatabase) {}

  /** "locked": another record of the same (network, mint, nullifierHash) has not finally failed; nothing was written. */
  async create(r: HeldNewRelayRecord, first: RelayState): Promise<"created" | "locked"> {
    const rows = await this.db.query(
      `INSERT INTO relays (id, kind, network, mint, output_mint, recipient, nullifier_hash, deposit_size, fee, relayer, min_out, change_commitment,
                           status, received_at, updated_at, steps, holder)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
       ON CONFLICT (network, mint, nullifier_hash) WHERE status <> 'failed' DO NOTHING
       RETURNING id`,
      [
        r.id,
        r.kind,
        r.network,
        r.mint,
        r.outputMint,
        r.recipient,
        r.nullifierHash,
        r.depositSize,
        r.fee,
        r.relayer,
        r.minOut,
        r.changeCommitment === null ? null : changeCommitmentBytes(r.changeCommitment),
        first.kind,
        r.receivedAt,
        first.at,
        JSON.stringify([first]),
        r.holder,
      ],
    );
    return rows.length === 1 ? "created" : "locked";
  }

  /** A final record (confirmed or failed) is never moved again: the call records nothing. */
  async advance(id: string, state: RelayState): Promise<void> {
    const rows = await this.db.query(
      `UPDATE relays SET status = $2, error = $3, signature = COALESCE($4, signature), change_leaf_index = COALESCE($5, change_leaf_index),
              updated_at = $6, steps = steps || $7::jsonb
       WHERE id = $1 AND status NOT IN ${FINAL} RETURNING id`,
      [
        id,
        state.kind,
        state.kind === "failed" ? state.error : null,
        state.kind === "confirmed" ? state.signature : null,
        state.kind === "confirmed" ? (state.changeLeafIndex ?? null) : null,
        state.at,
        JSON.stringify([state]),
      ],
    );
    if (rows.length === 0) await this.mustExist(id);
  }

  async recordSwap(id: string, s: SwapRecord): Promise<void> {
    const quote = toQuoteJson(s);
    await this.db.query("UPDATE relays SET swap_quote = $2, swap_out = $3, swap_slippage_bps = $4 WHERE id = $1", [
      id,
      JSON.stringify(quote),
      s.executedOut,
      s.slippageSeenBps,
    ]);
  }

  /**
   * Replaces the attempt with the same number or appends it, in one statement. false (nothing
   * written) once the record is final: a holder that was paused while another instance resolved
   * its relay must not send again.
   */
  async recordAttempt(id: string, a: SubmissionAttempt): Promise<boolean> {
    const fee = a.verdict === "landed" || a.verdict === "failed" ? String(a.networkFeeLamports) : null;
    const rows = await this.db.query(
      `UPDATE relays SET
         attempts = CASE WHEN EXISTS (SELECT 1 FROM jsonb_array_elements(attempts) e WHERE (e ->> 'n')::numeric = $3)
                         THEN (SELECT jsonb_agg(CASE WHEN (e ->> 'n')::numeric = $3 THEN $2::jsonb ELSE e END ORDER BY o)
                               FROM jsonb_array_elements(attempts) WITH ORDINALITY AS x(e, o))
                         ELSE attempts || jsonb_build_array($2::jsonb) END,
         network_fee_lamports = COALESCE($4, network_fee_lamports)
       WHERE id = $1 AND status NOT IN ${FINAL} RETURNING id`,
      [id, JSON.stringify(a), a.n, fee],
    );
    if (rows.length === 1) return true;
    await this.mustExist(id);
    return false;
  }

  async get(id: string): Promise<HeldRelayRecord | null> {
    const rows = await this.db.query<PgRelayRow>(`SELECT ${RELAY_COLUMNS} FROM relays WHERE id = $1`, [id]);
    return rows[0] ? toRelayRecord(rows[0]) : null;
  }

  /** Records without a verdict, every instance's: what a crash (of any holder) left in flight. */
  async unfinished(): Promise<HeldRelayRecord[]> {
    const rows = await this.db.query<PgRelayRow>(`SELECT ${RELAY_COLUMNS} FROM relays WHERE status NOT IN ${FINAL} ORDER BY received_at, id`);
    return rows.map(toRelayRecord);
  }

  async recent(limit: number): Promise<HeldRelayRecord[]> {
    const rows = await this.db.query<PgRelayRow>(`SELECT ${RELAY_COLUMNS} FROM relays ORDER BY received_at DESC, id LIMIT $1`, [limit]);
    return rows.map(toRelayRecord);
  }

  private async mustExist(id: string): Promise<void> {
    const rows = await this.db.query("SELECT 1 FROM relays WHERE id = $1", [id]);
    if (rows.length === 0) throw new Error(`no relay record ${id}`);
  }
}
