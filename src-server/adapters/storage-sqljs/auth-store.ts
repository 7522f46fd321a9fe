import type { AuthStore, StoredToken } from "../../ports/auth-store";
import type { DurableDb } from "./durable-db";

export class SqlAuthStore implements AuthStore {
  constructor(private readonly db: DurableDb) {}

  async consumeLogin(wallet: string, message: number, forgetAfter: number): Promise<boolean> {
    // Check and insert run in one synchronous turn: write() applies before it yields.
    const seen = this.db.get("SELECT 1 AS x FROM login_messages WHERE wallet = ? AND message = ?", [wallet, message]);
    if (seen) return false;
    await this.db.write([{ sql: "INSERT INTO login_messages (wallet, message, forget_after) VALUES (?, ?, ?)", params: [wallet, message, forgetAfter] }]);
    return true;
  }

  async saveToken(token: StoredToken, createdAt: number): Promise<void> {
    await this.db.write([
      { sql: "INSERT INTO auth_tokens (id, wallet, created_at, expires_at) VALUES (?, ?, ?, ?)", params: [token.id, token.wallet, createdAt, token.expiresAt] },
    ]);
  }

  async findToken(id: string): Promise<StoredToken | null> {
    const row = this.db.get<{ id: string; wallet: string; expires_at: number }>("SELECT id, wallet, expires_at FROM auth_tokens WHERE id = ?", [id]);
    return row ? { id: row.id, wallet: row.wallet, expiresAt: row.expires_at } : null;
  }

  async prune(nowSec: number): Promise<void> {
    await this.db.write([
      { sql: "DELETE FROM auth_tokens WHERE expires_at <= ?", params: [nowSec] },
      { sql: "DELETE FROM login_messages WHERE forget_after <= ?", params: [nowSec] },
    ]);
  }
}
