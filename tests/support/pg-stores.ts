import { afterAll, afterEach, beforeAll, inject } from "vitest";
import { openPgStores, type PgStores, type PgStoresOptions } from "../../src-server/adapters/storage-pg/open";
import { postgresAt, startPostgres, type PostgresServer } from "./postgres";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where to ask for the run's PostgreSQL server (tests/support/global-postgres.ts). */
    sharedPostgres: string;
  }
}

export interface SharedPostgres extends PostgresServer {
  /** Drops the databases this file made (a private server: stops it). */
  release(): Promise<void>;
}

/**
 * The run's PostgreSQL server (started by the first file that asks), for a file that only makes
 * databases on it. A test that pauses, stops or kills the server starts its own (startPostgres).
 * Outside the vitest config's globalSetup (no `sharedPostgres` provided), a private server.
 */
export async function sharedPostgres(): Promise<SharedPostgres> {
  const control = inject("sharedPostgres");
  if (!control) {
    const own = await startPostgres();
    return { url: own.url, host: own.host, port: own.port, createDatabase: (name) => own.createDatabase(name), release: () => own.stop() };
  }
  const res = await fetch(control);
  if (!res.ok) throw new Error(`the shared PostgreSQL server did not start: ${await res.text()}`);
  const { host, port } = (await res.json()) as { host: string; port: number };
  const server = postgresAt(host, port);
  return { ...server, release: () => server.dropDatabases() };
}

export interface PgStoresPerTest {
  server(): PostgresServer;
  /** A fresh database for this test (or `url`'s, to open a second instance on it), migrated; closed after the test. */
  open(opts?: Partial<PgStoresOptions>): Promise<PgStores>;
  /** The URL `stores` was opened on: a second instance opens on the same database with open({ url }). */
  urlOf(stores: PgStores): string;
}

/** The run's PostgreSQL server (asked for in beforeAll), stores opened per test. Call at module level. */
export function pgStoresPerTest(): PgStoresPerTest {
  let server: SharedPostgres | undefined;
  const opened: PgStores[] = [];
  const urls = new WeakMap<PgStores, string>();
  beforeAll(async () => {
    server = await sharedPostgres();
  });
  afterEach(async () => {
    await Promise.allSettled(opened.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await server?.release();
  });
  return {
    server: () => server!,
    async open(opts = {}) {
      const url = opts.url ?? (await server!.createDatabase());
      const stores = await openPgStores({
        url,
        instance: { host: "test", pid: process.pid, version: "0.0.0-test" },
        log: () => undefined,
        limitPruneMs: 0,
        ...opts,
      });
      opened.push(stores);
      urls.set(stores, url);
      return stores;
    },
    urlOf: (stores) => urls.get(stores)!,
  };
}
