import type { AuthStore, StoredToken } from "../../ports/auth-store";
import type { PgDatabase } from "./pool";

/** Tokens and login replays shared by every instance: a token one instance issued works on all. */
export class PgAuthStore implements AuthStore {
  constructor(private readonly db: PgDatabase) {}

  /** The primary key decides between two instances seeing the same login at once: one insert wins. */
  async consumeLogin(wallet: string, message: number, forgetAfter: number): Promise<boolean> {
    const rows = await this.db.query(
      "INSERT INTO login_messages (wallet, message, forget_after) VALUES ($1, $2, $3) ON CONFLICT (wallet, message) DO NOTHING RETURNING 1 AS x",
      [wallet, message, forgetAfter],
    );
    return rows.length === 1;
  }

  async saveToken(token: StoredToken, createdAt: number): Promise<void> {
    await this.db.query("INSERT INTO auth_tokens (id, wallet, created_at, expires_at) VALUES ($1, $2, $3, $4)", [
      token.id,
      token.wallet,
      createdAt,
      token.expiresAt,
    ]);
  }

  async findToken(id: string): Promise<StoredToken | null> {
    const rows = await this.db.query<{ id: string; wallet: string; expires_at: number }>("SELECT id, wallet, expires_at FROM auth_tokens WHERE id = $1", [id]);
    const row = rows[0];
    return row ? { id: row.id, wallet: row.wallet, expiresAt: row.expires_at } : null;
  }

  async prune(nowSec: number): Promise<void> {
    await this.db.tx(async (q) => {
      await q("DELETE FROM auth_tokens WHERE expires_at <= $1", [nowSec]);
      await q("DELETE FROM login_messages WHERE forget_after <= $1", [nowSec]);
    });
  }
}
