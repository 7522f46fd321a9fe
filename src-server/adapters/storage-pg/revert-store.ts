import type { Network } from "../../../src-shared/networks";
import type { RevertState } from "../../core/revert/states";
import type { RevertStore, NewRevertRecord, RevertRecord } from "../../ports/revert-store";
import type { PgDatabase } from "./pool";
import { REVERT_COLUMNS, toRevertRecord, type RevertRow } from "../storage-rows/revert-rows";

/** steps is jsonb: pg hands it back parsed. */
type Row = RevertRow<RevertState[]>;
const toRecord = (r: Row): RevertRecord => toRevertRecord(r, r.steps);

export class PgRevertStore implements RevertStore {
  constructor(private readonly db: PgDatabase) {}

  async create(r: NewRevertRecord, first: RevertState): Promise<void> {
    await this.db.query(
      `INSERT INTO reverts (id, network, deposit_signature, wallet, status, requested_at, updated_at, steps)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [r.id, r.network, r.depositSignature, r.wallet, first.kind, r.requestedAt, first.at, JSON.stringify([first])],
    );
  }

  async advance(id: string, state: RevertState, deposit?: { mint: string; amount: bigint }): Promise<void> {
    const rows = await this.db.query(
      `UPDATE reverts SET status = $2, error = $3, signature = COALESCE($4, signature), mint = COALESCE($5, mint), amount = COALESCE($6, amount),
              updated_at = $7, steps = steps || $8::jsonb
       WHERE id = $1 RETURNING id`,
      [
        id,
        state.kind,
        state.kind === "failed" ? state.error : null,
        state.kind === "processed" ? state.signature : null,
        deposit?.mint ?? null,
        deposit ? deposit.amount : null,
        state.at,
        JSON.stringify([state]),
      ],
    );
    if (rows.length === 0) throw new Error(`no revert record ${id}`);
  }

  async get(id: string): Promise<RevertRecord | null> {
    const rows = await this.db.query<Row>(`SELECT ${REVERT_COLUMNS} FROM reverts WHERE id = $1`, [id]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async paidOrSentSince(wallet: string, sinceMs: number): Promise<number[]> {
    const rows = await this.db.query<{ requested_at: number }>(
      "SELECT requested_at FROM reverts WHERE wallet = $1 AND requested_at >= $2 AND status IN ('submitted', 'processed') ORDER BY requested_at",
      [wallet, sinceMs],
    );
    return rows.map((r) => r.requested_at);
  }

  async paidBack(): Promise<{ network: Network; mint: string; reverts: number; amount: bigint }[]> {
    // numeric sums u64 amounts without overflow.
    const rows = await this.db.query<{ network: Network; mint: string; reverts: number; amount: string }>(
      `SELECT network, mint, count(*)::integer AS reverts, sum(amount)::text AS amount FROM reverts
       WHERE status = 'processed' AND mint IS NOT NULL AND amount IS NOT NULL GROUP BY network, mint ORDER BY network, mint`,
    );
    return rows.map((r) => ({ network: r.network, mint: r.mint, reverts: r.reverts, amount: BigInt(r.amount) }));
  }

  async recent(limit: number): Promise<RevertRecord[]> {
    const rows = await this.db.query<Row>(`SELECT ${REVERT_COLUMNS} FROM reverts ORDER BY requested_at DESC, id LIMIT $1`, [limit]);
    return rows.map(toRecord);
  }
}
