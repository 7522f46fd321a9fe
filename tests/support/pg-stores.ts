import { afterAll, afterEach, beforeAll } from "vitest";
import { openPgStores, type PgStores, type PgStoresOptions } from "../../src-server/adapters/storage-pg/open";
import { startPostgres, type TestPostgres } from "./postgres";

export interface PgStoresPerTest {
  server(): TestPostgres;
  /** A fresh database for this test (or `url`'s, to open a second instance on it), migrated; closed after the test. */
  open(opts?: Partial<PgStoresOptions>): Promise<PgStores>;
  /** The URL `stores` was opened on: a second instance opens on the same database with open({ url }). */
  urlOf(stores: PgStores): string;
}

/** One PostgreSQL server for the file (started in beforeAll), stores opened per test. Call at module level. */
export function pgStoresPerTest(): PgStoresPerTest {
  let server: TestPostgres | undefined;
  const opened: PgStores[] = [];
  const urls = new WeakMap<PgStores, string>();
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterEach(async () => {
    await Promise.allSettled(opened.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await server?.stop();
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
