import type { Database, Statement } from "sql.js";

export interface CachedStatement {
  readonly stmt: Statement;
  busy: boolean;
  readonly cached: boolean;
}

/** Bounds memory when callers build SQL dynamically (e.g. IN lists of varying length). */
const MAX_CACHED = 512;

/**
 * Prepared statements keyed by SQL text. A statement already in use (a read
 * issued from inside an `iterate` callback with the same SQL) gets a one-off
 * statement instead, because sharing it would reset the outer cursor.
 */
export class StatementCache {
  private readonly entries = new Map<string, CachedStatement>();

  constructor(private readonly db: Database) {}

  acquire(sql: string): CachedStatement {
    const hit = this.entries.get(sql);
    if (hit && !hit.busy) {
      hit.busy = true;
      return hit;
    }
    const stmt = this.db.prepare(sql);
    if (hit) return { stmt, busy: true, cached: false };
    if (this.entries.size >= MAX_CACHED) this.evictOldestIdle();
    const entry = { stmt, busy: true, cached: true };
    this.entries.set(sql, entry);
    return entry;
  }

  release(entry: CachedStatement): void {
    if (!entry.cached) {
      entry.stmt.free();
      return;
    }
    // An unreset SELECT keeps its read transaction open and would block export.
    entry.stmt.reset();
    entry.busy = false;
  }

  /** Frees everything; only called when no statement can be mid-use (export, close). */
  clear(): void {
    for (const e of this.entries.values()) e.stmt.free();
    this.entries.clear();
  }

  private evictOldestIdle(): void {
    for (const [sql, e] of this.entries) {
      if (!e.busy) {
        e.stmt.free();
        this.entries.delete(sql);
        return;
      }
    }
  }
}
