/**
 * Opening the PostgreSQL stores: migrations run once under their lock however many instances
 * start at once, a database that cannot be reached fails at start with one line naming
 * host:port/db (never the password), and one that goes away mid-run answers StoreUnavailable.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { StoreUnavailable } from "../../ports/store-errors";
import { startPostgres } from "../../../tests/support/postgres";
import { pgStoresPerTest } from "../../../tests/support/pg-stores";
import { migrate, PG_MIGRATIONS } from "./migrations";
import { openPgStores } from "./open";
import { describePgUrl, PgDatabase } from "./pool";

const stores = pgStoresPerTest();
const instance = { host: "test", pid: 1, version: "0" };

describe("openPgStores", () => {
  it("migrates an empty database once when several instances open it at the same moment", async () => {
    const url = await stores.server().createDatabase();
    const logs: string[][] = [[], [], []];
    const opened = await Promise.all(logs.map((log) => stores.open({ url, log: (m) => log.push(m) })));
    expect(opened.map((s) => s.engine)).toEqual(["postgres", "postgres", "postgres"]);
    const applied = logs.map((l) => l.filter((m) => /migration 1 "relay schema" applied/.test(m)).length);
    expect(applied.sort()).toEqual([0, 0, 1]);
    const client = new pg.Client(url);
    await client.connect();
    try {
      const rows = (await client.query("SELECT version, name FROM schema_migrations ORDER BY version")).rows;
      expect(rows).toEqual(PG_MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
    } finally {
      await client.end();
    }
    // Opening again applies nothing.
    const again: string[] = [];
    await stores.open({ url, log: (m) => again.push(m) });
    expect(again.filter((m) => /applied/.test(m))).toEqual([]);
  });

  it("applies a later migration on a migrated database, and refuses a pending one numbered below what is applied", async () => {
    const url = await stores.server().createDatabase();
    await stores.open({ url });
    const db = new PgDatabase({ url });
    try {
      const last = PG_MIGRATIONS.at(-1)!.version;
      const later = { version: last + 2, name: "a later table", statements: ["CREATE TABLE later (x integer)"] };
      expect(await migrate(db, () => undefined, [...PG_MIGRATIONS, later])).toEqual([last + 2]);
      expect(await migrate(db, () => undefined, [...PG_MIGRATIONS, later])).toEqual([]);
      const forgotten = { version: last + 1, name: "a forgotten table", statements: ["CREATE TABLE forgotten (x integer)"] };
      await expect(migrate(db, () => undefined, [...PG_MIGRATIONS, forgotten, later])).rejects.toThrow(
        `migration ${last + 1} "a forgotten table" is older than applied migration ${last + 2}`,
      );
      // The refused run left nothing behind.
      expect(await db.query("SELECT to_regclass('forgotten') AS t")).toEqual([{ t: null }]);
    } finally {
      await db.close();
    }
  });

  it("fails at start with one line naming host:port/db and the cause, never the password", async () => {
    const dead = await startPostgres();
    const port = dead.port;
    await dead.stop();
    const url = `postgres://relay:s3cret-pw@127.0.0.1:${port}/relaydb`;
    const err = await openPgStores({ url, instance, log: () => undefined }).then(
      () => expect.fail("opened a database that is not there"),
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(StoreUnavailable);
    expect(err.message).toMatch(new RegExp(`^storage\\.url: cannot connect to PostgreSQL at 127\\.0\\.0\\.1:${port}/relaydb: .*ECONNREFUSED`));
    expect(err.message).not.toMatch(/s3cret/);
    expect(err.message).not.toMatch(/\n/);
  });

  it("names a missing database at start", async () => {
    const server = stores.server();
    const url = `postgres://postgres@${server.host}:${server.port}/no_such_db`;
    await expect(openPgStores({ url, instance, log: () => undefined })).rejects.toThrow(
      `storage.url: cannot connect to PostgreSQL at ${server.host}:${server.port}/no_such_db: database "no_such_db" does not exist`,
    );
  });

  it("describes a URL as host:port/db and refuses what is not a postgres URL without echoing it", () => {
    expect(describePgUrl("postgres://u:pw@db.internal:6543/relay?sslmode=require")).toBe("db.internal:6543/relay");
    expect(describePgUrl("postgresql://u@db.internal/relay")).toBe("db.internal:5432/relay");
    expect(() => describePgUrl("mysql://u:pw@h/db")).toThrow("storage.url: the scheme is mysql; expected postgres://user:password@host:port/database");
    expect(() => describePgUrl("u:pw@h/db nonsense")).toThrow(/^storage\.url: /);
    expect(() => describePgUrl("not a url with secret")).toThrow("storage.url: not a URL; expected postgres://user:password@host:port/database");
  });

  it("answers StoreUnavailable within the query timeout while the database hangs, and works again once it is back", async () => {
    const server = await startPostgres();
    try {
      const s = await openPgStores({ url: await server.createDatabase(), instance, log: () => undefined, limitPruneMs: 0, queryTimeoutMs: 500 });
      try {
        await s.relays.recent(1);
        server.pause();
        const started = Date.now();
        await expect(s.relays.recent(1)).rejects.toBeInstanceOf(StoreUnavailable);
        expect(Date.now() - started).toBeLessThan(5_000);
        server.resume();
        await expect(s.relays.recent(1)).resolves.toEqual([]);
      } finally {
        server.resume();
        await s.close();
      }
    } finally {
      await server.stop();
    }
  });

  it("answers StoreUnavailable, and check() says so, once the database goes away mid-run", async () => {
    const server = await startPostgres();
    try {
      const s = await openPgStores({ url: await server.createDatabase(), instance, log: () => undefined, limitPruneMs: 0 });
      try {
        expect(await s.check()).toEqual({ ok: true, detail: `PostgreSQL at ${s.where}` });
        await s.relays.recent(1);
        await server.stop();
        await expect(s.relays.recent(1)).rejects.toBeInstanceOf(StoreUnavailable);
        await expect(s.limits.take([{ key: "k", limit: 1, windowMs: 1000, mode: "take" }], 0)).rejects.toBeInstanceOf(StoreUnavailable);
        await expect(s.tree.loadTree({ id: 1, network: "mainnet", mint: "m", nextIndex: 0, cursor: null }, null as never)).rejects.toBeInstanceOf(
          StoreUnavailable,
        );
        const health = await s.check();
        expect(health.ok).toBe(false);
        expect(health.detail).toMatch(new RegExp(`^PostgreSQL at ${s.where}: `));
      } finally {
        await s.close();
      }
    } finally {
      await server.stop();
    }
  });
});
