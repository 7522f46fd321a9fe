import pg from "pg";
import type { PoolClient, QueryResultRow } from "pg";
import { StoreUnavailable } from "../../ports/store-errors";

export type PgValue = string | number | bigint | boolean | null | Uint8Array | readonly PgValue[];

export interface PgPoolOptions {
  url: string;
  /** Connections this instance keeps at most (pg's default is 10). */
  max?: number;
  /** A query the server has not answered by then fails as StoreUnavailable: a hung database answers 503, not never. */
  queryTimeoutMs?: number;
  connectTimeoutMs?: number;
  /**
   * The server ends a session that sits in an open transaction longer than this, releasing its
   * locks: a follower paused (or cut off) mid-write cannot hold its lease row, and so the
   * takeover, for longer than this.
   */
  idleInTransactionMs?: number;
  log?: (msg: string) => void;
}

const INT8 = 20;

/**
 * int8 columns (Unix ms, leaf indexes, epochs) come back as numbers: every one the relay stores
 * is far below 2^53. u64 amounts are numeric columns and stay text, read with BigInt.
 */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8 && format !== "binary" ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * "host:port/db" of a postgres:// URL: what logs and errors may show. The URL itself is a
 * secret (it may hold a password) and never leaves this function.
 */
export function describePgUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error("storage.url: not a URL; expected postgres://user:password@host:port/database");
  }
  if (u.protocol !== "postgres:" && u.protocol !== "postgresql:") {
    throw new Error(`storage.url: the scheme is ${u.protocol.replace(/:$/, "")}; expected postgres://user:password@host:port/database`);
  }
  const host = u.hostname || u.searchParams.get("host") || "localhost";
  const port = u.port || u.searchParams.get("port") || "5432";
  const db = decodeURIComponent(u.pathname.replace(/^\//, "")) || decodeURIComponent(u.username) || "postgres";
  return `${host}:${port}/${db}`;
}

/** SQLSTATE classes and codes that mean "the database is not there right now", not "the request is wrong". */
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up, shutting down, in recovery)
  "53300", // too_many_connections
  "25P03", // idle_in_transaction_session_timeout: the server ended a session that stalled mid-transaction
]);

const UNAVAILABLE_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /query read timeout/i,
  /not queryable/i,
  /cannot use a pool after calling end/i,
  /connection (?:is )?closed/i,
];

export function isUnavailable(e: unknown): boolean {
  if (e instanceof StoreUnavailable) return true;
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string" && (UNAVAILABLE_CODES.has(code) || code.startsWith("08"))) return true;
  // AggregateError (a host with several addresses, every one refused) carries the codes on its errors.
  if (e instanceof AggregateError && e.errors.some(isUnavailable)) return true;
  return UNAVAILABLE_MESSAGES.some((re) => re.test(e.message));
}

function causeOf(e: unknown): string {
  if (e instanceof AggregateError && e.errors.length > 0) return causeOf(e.errors[0]);
  if (!(e instanceof Error)) return String(e);
  const code = (e as { code?: unknown }).code;
  return e.message || (typeof code === "string" ? code : e.name);
}

/**
 * The pg connection pool behind every store: queries and transactions, each error the server
 * or the network gives for an unreachable database mapped to StoreUnavailable.
 */
export class PgDatabase {
  readonly where: string;
  private readonly pool: pg.Pool;
  private ended = false;

  constructor(opts: PgPoolOptions) {
    this.where = describePgUrl(opts.url);
    this.pool = new pg.Pool({
      connectionString: opts.url,
      max: opts.max ?? 10,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 5_000,
      query_timeout: opts.queryTimeoutMs ?? 15_000,
      idle_in_transaction_session_timeout: opts.idleInTransactionMs ?? 5_000,
      idleTimeoutMillis: 30_000,
      application_name: "relay",
      types,
    });
    const log = opts.log ?? (() => undefined);
    // An idle connection the server dropped is reported here; without a listener it would crash the process.
    this.pool.on("error", (e) => log(`storage: PostgreSQL at ${this.where}: idle connection lost: ${causeOf(e)}`));
  }

  /** Fails with one line naming host:port/db and the cause when the database cannot be reached. */
  async connectCheck(): Promise<void> {
    try {
      await this.pool.query("SELECT 1");
    } catch (e) {
      throw new StoreUnavailable(`storage.url: cannot connect to PostgreSQL at ${this.where}: ${causeOf(e)}`);
    }
  }

  async query<R extends QueryResultRow>(sql: string, params: readonly PgValue[] = []): Promise<R[]> {
    try {
      const res = await this.pool.query<R>(sql, params as unknown[]);
      return res.rows;
    } catch (e) {
      throw this.mapError(e);
    }
  }

  /**
   * Runs `fn` in one transaction on one connection. Any failure rolls back; a connection whose
   * state is unknown (the rollback failed too) is destroyed, never handed to the next caller.
   */
  async tx<T>(fn: (q: TxQuery) => Promise<T>, mode: "read write" | "read only snapshot" = "read write"): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw this.mapError(e);
    }
    let broken: Error | undefined;
    // A checked-out connection reports a server-side end (idle-in-transaction timeout, shutdown) as
    // an 'error' event; unheard, that would crash the process. The next query then fails on its own.
    const onError = (e: Error): void => {
      broken = e;
    };
    client.on("error", onError);
    try {
      await client.query(mode === "read write" ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const q: TxQuery = async <R extends QueryResultRow>(sql: string, params: readonly PgValue[] = []) =>
        (await client.query<R>(sql, params as unknown[])).rows;
      const out = await fn(q);
      await client.query("COMMIT");
      return out;
    } catch (e) {
      // A connection that failed (or hangs) is dropped as it is: the server rolls back what it had.
      if (isUnavailable(e)) broken = e as Error;
      else {
        try {
          await client.query("ROLLBACK");
        } catch (rollback) {
          broken = rollback as Error;
        }
      }
      throw this.mapError(e);
    } finally {
      client.removeListener("error", onError);
      client.release(broken ?? false);
    }
  }

  /** Connection-level failures become StoreUnavailable (HTTP 503); everything else is the caller's to see. */
  mapError(e: unknown): unknown {
    if (e instanceof StoreUnavailable || !isUnavailable(e)) return e;
    return new StoreUnavailable(`PostgreSQL at ${this.where} is unavailable: ${causeOf(e)}`);
  }

  async check(): Promise<{ ok: boolean; detail: string }> {
    try {
      await this.pool.query("SELECT 1");
      return { ok: true, detail: `PostgreSQL at ${this.where}` };
    } catch (e) {
      return { ok: false, detail: `PostgreSQL at ${this.where}: ${causeOf(e)}` };
    }
  }

  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.pool.end();
  }
}

export type TxQuery = <R extends QueryResultRow>(sql: string, params?: readonly PgValue[]) => Promise<R[]>;

/** bytea comes back as a Buffer; the stores hand out plain Uint8Arrays like the sql.js adapter does. */
export const bytes = (b: Uint8Array): Uint8Array => new Uint8Array(b);
