import type { Network } from "../../../src-shared/networks";
import type { RevertState } from "../../core/revert/states";
import type { NewRevertRecord, RevertRecord, RevertStore } from "../../ports/revert-store";
import type { DurableDb } from "./durable-db";
import { REVERT_COLUMNS, toRevertRecord, type RevertRow } from "../storage-rows/revert-rows";

/** steps is JSON text. */
type Row = RevertRow<string>;
const toRecord = (r: Row): RevertRecord => toRevertRecord(r, JSON.parse(r.steps) as RevertState[]);

export class SqlRevertStore implements RevertStore {
  constructor(private readonly db: DurableDb) {}

  async create(r: NewRevertRecord, first: RevertState): Promise<void> {
    await this.db.write([
      {
        sql: `INSERT INTO reverts (id, network, deposit_signature, wallet, mint, amount, status, error, signature, requested_at, updated_at, steps)
              VALUES (?, ?, ?, ?, NULL, NULL, ?, NULL, NULL, ?, ?, ?)`,
        params: [r.id, r.network, r.depositSignature, r.wallet, first.kind, r.requestedAt, first.at, JSON.stringify([first])],
      },
    ]);
  }

  async advance(id: string, state: RevertState, deposit?: { mint: string; amount: bigint }): Promise<void> {
    const row = this.db.get<{ steps: string }>("SELECT steps FROM reverts WHERE id = ?", [id]);
    if (!row) throw new Error(`no revert record ${id}`);
    const steps = JSON.parse(row.steps) as RevertState[];
    steps.push(state);
    await this.db.write([
      {
        sql: `UPDATE reverts SET status = ?, error = ?, signature = COALESCE(?, signature), mint = COALESCE(?, mint), amount = COALESCE(?, amount),
                updated_at = ?, steps = ? WHERE id = ?`,
        params: [
          state.kind,
          state.kind === "failed" ? state.error : null,
          state.kind === "processed" ? state.signature : null,
          deposit?.mint ?? null,
          deposit ? deposit.amount.toString() : null,
          state.at,
          JSON.stringify(steps),
          id,
        ],
      },
    ]);
  }

  async get(id: string): Promise<RevertRecord | null> {
    const row = this.db.get<Row>(`SELECT ${REVERT_COLUMNS} FROM reverts WHERE id = ?`, [id]);
    return row ? toRecord(row) : null;
  }

  async paidOrSentSince(wallet: string, sinceMs: number): Promise<number[]> {
    return this.db
      .all<{ requested_at: number }>(
        `SELECT requested_at FROM reverts WHERE requested_at >= ? AND wallet = ? AND status IN ('submitted', 'processed') ORDER BY requested_at`,
        [sinceMs, wallet],
      )
      .map((r) => r.requested_at);
  }

  async paidBack(): Promise<{ network: Network; mint: string; reverts: number; amount: bigint }[]> {
    const totals = new Map<string, { network: Network; mint: string; reverts: number; amount: bigint }>();
    // Amounts are u64 text: summed as bigint here, not by SQLite's 64-bit signed SUM.
    for (const r of this.db.all<{ network: Network; mint: string; amount: string }>(
      "SELECT network, mint, amount FROM reverts WHERE status = 'processed' AND mint IS NOT NULL AND amount IS NOT NULL",
    )) {
      const key = `${r.network}|${r.mint}`;
      const t = totals.get(key) ?? { network: r.network, mint: r.mint, reverts: 0, amount: 0n };
      t.reverts += 1;
      t.amount += BigInt(r.amount);
      totals.set(key, t);
    }
    return [...totals.values()];
  }

  async recent(limit: number): Promise<RevertRecord[]> {
    return this.db.all<Row>(`SELECT ${REVERT_COLUMNS} FROM reverts ORDER BY requested_at DESC, id LIMIT ?`, [limit]).map(toRecord);
  }
}
