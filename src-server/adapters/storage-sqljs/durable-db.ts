import { join } from "node:path";
import type { Database, Statement } from "sql.js";
import { encodeRecord, sealRecord } from "./journal-codec";
import { JOURNAL_FILE, JOURNAL_TMP_FILE, JournalWriter, readJournal } from "./journal-file";
import { PageFiles, type PageReader } from "./page-files";
import { migrationBatch, pendingMigrations, sortedMigrations, type AppliedMigration } from "./migrations";
import { createDatabase, replayJournal, SAVE_SEQ_SQL } from "./recovery";
import {
  readSnapshot,
  removeLeftoverTmp,
  secureDataDir,
  secureDataFile,
  SNAPSHOT_FILE,
  SNAPSHOT_TMP_FILE,
  writeSnapshot,
  type CrashPoint,
} from "./snapshot-file";
import { loadSqlJs } from "./sqljs-loader";
import { applyBatch } from "./sql-exec";
import { StatementCache, type CachedStatement } from "./statement-cache";
import type { Migration, SqlStatement, SqlValue } from "./types";

export type { Migration, SqlStatement, SqlValue } from "./types";
export type { SnapshotStep } from "./snapshot-file";

export interface DurableDbOptions {
  /** Data dir; holds relay.sqlite (snapshot) and relay.journal. */
  dir: string;
  migrations: Migration[];
  /** Deterministic scalar SQL functions; registered before journal replay because journaled SQL may call them. */
  functions?: Record<string, (...args: SqlValue[]) => SqlValue>;
  /** Compact when the journal grows past this; default 64 MiB. */
  snapshotJournalBytes?: number;
  /** Also compact when dirty this long; default 30 s; 0 = never on a timer. */
  snapshotIntervalMs?: number;
  /** Default true. Only speed tests may turn it off. */
  fsync?: boolean;
  log?: (msg: string) => void;
  /** Test seam: called before each step of a snapshot; throwing aborts the snapshot there, as a crash at that point would. */
  crashPoint?: CrashPoint;
}

export interface DurableDbStats {
  journalBytes: number;
  lastSnapshotAt: number | null;
  /** Write batches acknowledged since open. */
  writes: number;
  /** Duration of the last snapshot (export to journal truncation). */
  snapshotMs: number | null;
  /** Journal fsyncs since open; with group commit far fewer than `writes`. */
  fsyncs: number;
  /** Sequence number of the last applied write batch. */
  seq: number;
}

const DEFAULT_JOURNAL_BYTES = 64 * 1024 * 1024;
const DEFAULT_INTERVAL_MS = 30_000;
/** After a failed background snapshot, wait before retrying so a full disk is not hammered on every flush. */
const COMPACT_RETRY_MS = 5_000;

function closedError(): Error {
  return new Error("DurableDb is closed");
}

/**
 * sql.js keeps SQLite in wasm memory; durability comes from an append-only
 * journal of committed write batches plus periodic atomic snapshots. A write
 * is visible to reads as soon as write() returns (before it is durable) and
 * its promise resolves only once the journal bytes are fsynced.
 */
export class DurableDb {
  private state: "open" | "closing" | "closed" = "open";
  private closing: Promise<void> | null = null;
  private compactChain: Promise<void> = Promise.resolve();
  private autoCompactQueued = false;
  private compactRetryAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private writes = 0;
  private snapshotMs: number | null = null;
  /** Set when writing the page files failed: the journal keeps everything from then on (see write()). */
  private pageFailure: Error | null = null;
  // Assigned in open() once the journal has been replayed; a writer must not exist before its tail is repaired.
  private writer!: JournalWriter;

  private constructor(
    private readonly db: Database,
    private readonly cache: StatementCache,
    private readonly pageFiles: PageFiles,
    private readonly opts: Required<Omit<DurableDbOptions, "crashPoint" | "functions">> & { crashPoint?: CrashPoint },
    private seq: number,
    private snapshotSeq: number,
    private lastSnapshotAt: number | null,
  ) {}

  static async open(options: DurableDbOptions): Promise<DurableDb> {
    const log = options.log ?? (() => {});
    const opts = {
      dir: options.dir,
      migrations: sortedMigrations(options.migrations),
      snapshotJournalBytes: options.snapshotJournalBytes ?? DEFAULT_JOURNAL_BYTES,
      snapshotIntervalMs: options.snapshotIntervalMs ?? DEFAULT_INTERVAL_MS,
      fsync: options.fsync ?? true,
      log,
      crashPoint: options.crashPoint,
    };
    await secureDataDir(opts.dir);
    const SQL = await loadSqlJs();
    for (const name of [SNAPSHOT_TMP_FILE, JOURNAL_TMP_FILE]) {
      if (await removeLeftoverTmp(opts.dir, name)) log(`storage: removed unfinished ${name}`);
    }
    for (const name of [SNAPSHOT_FILE, JOURNAL_FILE]) await secureDataFile(join(opts.dir, name));
    const snapshot = await readSnapshot(opts.dir);
    if (snapshot && snapshot.bytes.length === 0) throw new Error(`${join(opts.dir, SNAPSHOT_FILE)} is empty; refusing to open`);
    const pages = await PageFiles.open(opts.dir);
    // page_put is the only way into the page files, so journal replay rewrites them too.
    const functions = { ...options.functions, page_put: (name: SqlValue, offset: SqlValue, bytes: SqlValue): SqlValue => pages.put(name, offset, bytes) };
    let created;
    try {
      created = createDatabase(SQL, snapshot?.bytes ?? null, functions);
    } catch (err) {
      pages.close();
      throw new Error(`cannot load ${join(opts.dir, SNAPSHOT_FILE)}: ${(err as Error).message}`, { cause: err });
    }
    const { db, snapshotSeq } = created;
    const cache = new StatementCache(db);
    const self = new DurableDb(db, cache, pages, opts, snapshotSeq, snapshotSeq, snapshot ? Math.floor(snapshot.mtimeMs) : null);
    try {
      const t0 = performance.now();
      const journal = await readJournal(opts.dir);
      const replay = replayJournal(db, cache, journal, snapshotSeq);
      pages.flush();
      if (replay.damage)
        log(`storage: ignored ${journal.length - replay.validEnd} bytes of damaged journal tail after record ${replay.lastSeq} (${replay.damage})`);
      if (replay.applied > 0) log(`storage: replayed ${replay.applied} journal records in ${Math.round(performance.now() - t0)} ms`);
      self.seq = replay.lastSeq;
      self.writer = await JournalWriter.open(opts.dir, replay.validEnd, opts.fsync, () => self.afterFlush());
      await self.migrate();
    } catch (err) {
      await self.release();
      throw err;
    }
    self.afterFlush();
    return self;
  }

  /** Set once the journal failed: every later write rejects until restart (health reports it). */
  get failure(): Error | null {
    return this.state === "open" ? (this.writer.failed ?? this.pageFailure) : null;
  }

  /** The page files, as far as the SQL state says they are committed (see PageFiles). */
  get pages(): PageReader {
    return this.pageFiles;
  }

  get stats(): DurableDbStats {
    return {
      journalBytes: this.writer.bytes,
      lastSnapshotAt: this.lastSnapshotAt,
      writes: this.writes,
      snapshotMs: this.snapshotMs,
      fsyncs: this.writer.fsyncs,
      seq: this.seq,
    };
  }

  all<T = Record<string, SqlValue>>(sql: string, params?: SqlValue[]): T[] {
    return this.withStatement(sql, params, (stmt) => {
      const rows: T[] = [];
      let columns: string[] | null = null;
      while (stmt.step()) {
        columns ??= stmt.getColumnNames();
        rows.push(toObject<T>(columns, stmt.get()));
      }
      return rows;
    });
  }

  get<T = Record<string, SqlValue>>(sql: string, params?: SqlValue[]): T | undefined {
    return this.withStatement(sql, params, (stmt) => (stmt.step() ? toObject<T>(stmt.getColumnNames(), stmt.get()) : undefined));
  }

  iterate(sql: string, params: SqlValue[], onRow: (row: SqlValue[]) => void): void {
    this.withStatement(sql, params, (stmt) => {
      while (stmt.step()) onRow(stmt.get());
    });
  }

  /**
   * Applies the batch now, atomically; resolves once it is durable. SQL must
   * be deterministic (no random(), no 'now'): the journal replays the text
   * and parameters, not the resulting rows.
   */
  write(statements: SqlStatement[]): Promise<void> {
    try {
      if (this.state !== "open") throw closedError();
      if (this.writer.failed) throw this.writer.failed;
      const record = encodeRecord(statements);
      try {
        applyBatch(this.db, this.cache, statements);
      } catch (err) {
        this.pageFiles.discard();
        throw err;
      }
      try {
        this.pageFiles.flush();
      } catch (err) {
        // The batch is applied and its journal record (below) holds the page bytes, so it is still
        // durable and replay writes the page files at the next start. Until then no snapshot may
        // drop journal records: the page files are behind them.
        this.pageFailure ??= new Error(`page files: ${(err as Error).message}; snapshots stop until restart`, { cause: err });
        this.opts.log(`storage: ${this.pageFailure.message}`);
      }
      const seq = ++this.seq;
      sealRecord(record, seq);
      this.armTimer();
      return this.writer.append(seq, record).then(() => {
        this.writes++;
      });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  compact(): Promise<void> {
    if (this.state !== "open") return Promise.reject(closedError());
    return this.enqueueSnapshot("requested");
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.state = "closing";
    this.clearTimer();
    let error: unknown = null;
    try {
      await this.writer.whenIdle();
      await this.compactChain;
      // After a journal failure memory holds batches whose callers were told they failed; a snapshot would make them durable.
      if (!this.writer.failed && !this.pageFailure) await this.snapshot("close");
    } catch (err) {
      error = err;
    }
    await this.release();
    if (error) throw error;
  }

  private async release(): Promise<void> {
    this.state = "closed";
    this.clearTimer();
    // writer is unassigned when open() failed before creating it.
    const writer: JournalWriter | undefined = this.writer;
    try {
      await writer?.close();
    } finally {
      this.cache.clear();
      this.db.close();
      this.pageFiles.close();
    }
  }

  private withStatement<R>(sql: string, params: SqlValue[] | undefined, use: (stmt: Statement) => R): R {
    if (this.state === "closed") throw closedError();
    const entry: CachedStatement = this.cache.acquire(sql);
    try {
      if (params && params.length > 0) entry.stmt.bind(params);
      return use(entry.stmt);
    } finally {
      this.cache.release(entry);
    }
  }

  private async migrate(): Promise<void> {
    const applied = this.all<AppliedMigration>("SELECT version, name FROM schema_migrations ORDER BY version");
    for (const m of pendingMigrations(this.opts.migrations, applied, this.opts.log)) {
      this.opts.log(`storage: applying migration ${m.version} ${m.name}`);
      try {
        await this.write(migrationBatch(m, Date.now()));
      } catch (err) {
        throw new Error(`migration ${m.version} "${m.name}" failed: ${(err as Error).message}`, { cause: err });
      }
    }
  }

  private afterFlush(): void {
    if (this.writer.bytes > this.opts.snapshotJournalBytes) this.requestSnapshot("journal size");
  }

  private armTimer(): void {
    if (this.timer || this.opts.snapshotIntervalMs <= 0 || this.state !== "open") return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.requestSnapshot("interval");
    }, this.opts.snapshotIntervalMs);
    // A pending snapshot must not keep the process alive; close() snapshots anyway.
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private requestSnapshot(reason: string): void {
    if (this.autoCompactQueued || this.state !== "open" || this.writer.failed || this.pageFailure || Date.now() < this.compactRetryAt) return;
    this.autoCompactQueued = true;
    this.enqueueSnapshot(reason)
      .catch((err: unknown) => {
        this.compactRetryAt = Date.now() + COMPACT_RETRY_MS;
        this.opts.log(`storage: snapshot failed, journal kept: ${(err as Error).message}`);
        this.armTimer();
      })
      .finally(() => {
        this.autoCompactQueued = false;
      });
  }

  private enqueueSnapshot(reason: string): Promise<void> {
    const run = this.compactChain.then(() => this.snapshot(reason));
    this.compactChain = run.catch(() => undefined);
    return run;
  }

  /**
   * A migration that moves bulk data out (to page files) leaves the image
   * mostly free pages; export() would copy and write them at every snapshot.
   * VACUUM changes no row, so the journal replays onto the result the same.
   */
  private vacuumIfSparse(): void {
    const free = pragmaNumber(this.db, "freelist_count");
    if (free < VACUUM_MIN_FREE_PAGES || free * 4 < pragmaNumber(this.db, "page_count")) return;
    const t0 = performance.now();
    this.db.exec("VACUUM");
    this.opts.log(`storage: vacuumed ${free} free pages in ${Math.round(performance.now() - t0)} ms`);
  }

  /**
   * The snapshot is taken synchronously between writes, so it contains
   * exactly records 1..seq; writes keep flowing to the journal while it is
   * written, and only the records it covers are dropped afterwards.
   */
  private async snapshot(reason: string): Promise<void> {
    if (this.writer.failed) throw this.writer.failed;
    if (this.pageFailure) throw this.pageFailure;
    if (this.seq === this.snapshotSeq && this.lastSnapshotAt !== null && this.writer.bytes === 0) return;
    this.clearTimer();
    const t0 = performance.now();
    const seq = this.seq;
    this.db.run(SAVE_SEQ_SQL, [seq]);
    // Older sql.js versions close every prepared statement in export(); never let the cache hold dead handles.
    this.cache.clear();
    this.vacuumIfSparse();
    const bytes = this.db.export();
    this.writer.markCut(seq);
    const exportMs = performance.now() - t0;
    // Page files first: once the snapshot is in place, the journal records that wrote them are dropped.
    this.opts.crashPoint?.("fsync-pages");
    await this.pageFiles.sync(this.opts.fsync);
    await writeSnapshot(this.opts.dir, bytes, this.opts.fsync, this.opts.crashPoint);
    this.snapshotSeq = seq;
    this.lastSnapshotAt = Date.now();
    this.opts.crashPoint?.("truncate-journal");
    await this.writer.dropCut();
    this.snapshotMs = performance.now() - t0;
    this.opts.log(
      `storage: snapshot at record ${seq} (${reason}): ${bytes.length} bytes, export ${Math.round(exportMs)} ms, total ${Math.round(this.snapshotMs)} ms`,
    );
    if (this.seq !== this.snapshotSeq) this.armTimer();
  }
}

const VACUUM_MIN_FREE_PAGES = 1024;

function pragmaNumber(db: Database, pragma: string): number {
  const v = db.exec(`PRAGMA ${pragma}`)[0]?.values[0]?.[0];
  return typeof v === "number" ? v : 0;
}

function toObject<T>(columns: string[], values: SqlValue[]): T {
  const row: Record<string, SqlValue> = {};
  for (let i = 0; i < columns.length; i++) row[columns[i]!] = values[i] ?? null;
  return row as T;
}

export { JOURNAL_FILE, SNAPSHOT_FILE };
