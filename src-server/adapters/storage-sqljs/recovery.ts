import type { Database, SqlJsStatic } from "sql.js";
import { scanJournal } from "./journal-codec";
import { MIGRATIONS_TABLE_SQL } from "./migrations";
import { applyBatch } from "./sql-exec";
import type { StatementCache } from "./statement-cache";
import type { SqlValue } from "./types";

/** Reserved: holds the sequence number a snapshot contains, so replay never applies a record twice. */
export const META_TABLE = "_durable_meta";
export const SAVE_SEQ_SQL = `INSERT OR REPLACE INTO ${META_TABLE} (key, value) VALUES ('seq', ?)`;

export type SqlFunction = (...args: SqlValue[]) => SqlValue;

/**
 * Builds the connection in the same order every time (pragmas, bookkeeping
 * tables, functions), because replaying a journal onto a fresh database must
 * reproduce exactly what the original process did.
 */
export function createDatabase(SQL: SqlJsStatic, snapshot: Uint8Array | null, functions: Record<string, SqlFunction>): { db: Database; snapshotSeq: number } {
  const db = new SQL.Database(snapshot);
  try {
    if (!snapshot) db.exec("PRAGMA page_size = 8192");
    // The file lives in wasm memory, so SQLite's own crash safety buys nothing; an in-memory rollback journal keeps ROLLBACK working at less cost.
    // Exclusive locking lets the page cache survive between transactions instead of being revalidated through the VFS: ~10x faster point reads.
    db.exec("PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY");
    db.exec(`CREATE TABLE IF NOT EXISTS ${META_TABLE} (key TEXT PRIMARY KEY, value) WITHOUT ROWID`);
    db.exec(MIGRATIONS_TABLE_SQL);
    for (const [name, fn] of Object.entries(functions)) db.create_function(name, withArity(fn));
    const row = db.exec(`SELECT value FROM ${META_TABLE} WHERE key = 'seq'`)[0]?.values[0]?.[0];
    return { db, snapshotSeq: typeof row === "number" ? row : 0 };
  } catch (err) {
    db.close();
    throw err;
  }
}

/** sql.js registers a function with arity fn.length; a rest-parameter function reports 0, which would reject every call with arguments. */
function withArity(fn: SqlFunction): SqlFunction {
  if (fn.length > 0) return fn;
  const variadic: SqlFunction = (...args) => fn(...args);
  Object.defineProperty(variadic, "length", { value: -1 });
  return variadic;
}

export interface ReplayResult {
  lastSeq: number;
  applied: number;
  validEnd: number;
  damage: string | null;
}

/**
 * Applies journal records newer than the snapshot. A gap in sequence numbers
 * means acknowledged writes are missing (e.g. an older snapshot was restored
 * over a newer one); opening anyway would silently drop them, so it throws.
 */
export function replayJournal(db: Database, cache: StatementCache, journal: Uint8Array, snapshotSeq: number): ReplayResult {
  let prev: number | null = null;
  let lastSeq = snapshotSeq;
  let applied = 0;
  const scan = scanJournal(journal, (rec) => {
    // A lower number behind a valid run is an older journal generation whose truncation did not reach disk.
    if (prev !== null && rec.seq <= prev) return `stale record ${rec.seq} after ${prev}`;
    if (prev !== null && rec.seq !== prev + 1) throw new Error(`journal skips from record ${prev} to ${rec.seq}; refusing to open`);
    prev = rec.seq;
    if (rec.seq <= snapshotSeq) return null;
    if (rec.seq !== lastSeq + 1) {
      throw new Error(`journal resumes at record ${rec.seq} but the snapshot ends at ${snapshotSeq}; records in between are missing, refusing to open`);
    }
    try {
      applyBatch(db, cache, rec.statements);
    } catch (err) {
      throw new Error(`replaying journal record ${rec.seq} failed (non-deterministic SQL or a changed SQL function?): ${(err as Error).message}`, {
        cause: err,
      });
    }
    lastSeq = rec.seq;
    applied++;
    return null;
  });
  return { lastSeq, applied, validEnd: scan.validEnd, damage: scan.damage };
}
