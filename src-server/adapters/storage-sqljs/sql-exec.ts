import type { Database } from "sql.js";
import type { StatementCache } from "./statement-cache";
import type { SqlStatement } from "./types";

/**
 * Runs a batch atomically. Parameterised statements go through the cache
 * (they are the hot, repeated ones); parameterless text goes through `exec`
 * so that multi-statement migration text runs in full rather than only its
 * first statement, which is all a prepared statement would run.
 */
export function applyBatch(db: Database, cache: StatementCache, statements: readonly SqlStatement[]): void {
  db.exec("BEGIN");
  try {
    for (const s of statements) {
      if (s.params && s.params.length > 0) {
        const entry = cache.acquire(s.sql);
        try {
          entry.stmt.run(s.params);
        } finally {
          cache.release(entry);
        }
      } else {
        db.exec(s.sql);
      }
    }
    db.exec("COMMIT");
  } catch (err) {
    try {
      db.exec("ROLLBACK");
    } catch {
      // Some errors (SQLITE_FULL, SQLITE_NOMEM...) already rolled the transaction back; nothing is left to undo.
    }
    throw err;
  }
}
