import { appendFile, mkdtemp, open as openFile, readFile, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DurableDb, JOURNAL_FILE, SNAPSHOT_FILE, type DurableDbOptions, type Migration, type SnapshotStep, type SqlValue } from "./durable-db";

const dirs: string[] = [];
const open: DurableDb[] = [];
/** Instances that model a crashed process: never closed, but held so GC does not close their file handles with a warning. */
const leftOpen: DurableDb[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "durable-db-"));
  dirs.push(dir);
  return dir;
}

afterEach(async () => {
  for (const db of open.splice(0)) await db.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const schema: Migration[] = [
  {
    version: 1,
    name: "init",
    statements: [
      "CREATE TABLE kv (k TEXT PRIMARY KEY, v)",
      "CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)",
      "INSERT INTO counter VALUES (1, 0)",
    ],
  },
];

/** Opens with timers off. `track`: close it after the test; otherwise the test closes it itself or lets it model a crashed process. */
async function openDb(dir: string, extra: Partial<DurableDbOptions> = {}, track = true): Promise<DurableDb> {
  const db = await DurableDb.open({ dir, migrations: schema, snapshotIntervalMs: 0, ...extra });
  (track ? open : leftOpen).push(db);
  return db;
}

const inc = { sql: "UPDATE counter SET n = n + 1 WHERE id = 1" };
const counter = (db: DurableDb): number => db.get<{ n: number }>("SELECT n FROM counter WHERE id = 1")?.n ?? -1;
const incs = (db: DurableDb, n: number): Promise<void[]> => Promise.all(Array.from({ length: n }, () => db.write([inc])));

describe("DurableDb persistence", () => {
  it("reloads every value exactly after close and reopen", async () => {
    const dir = await tempDir();
    const values: SqlValue[] = [null, 7, -3, 2 ** 40, 0.25, "text ✓", new Uint8Array([0, 255, 10])];
    const db = await openDb(dir, {}, false);
    await db.write(values.map((v, i) => ({ sql: "INSERT INTO kv (k, v) VALUES (?, ?)", params: [`k${i}`, v] })));
    await db.write([inc, inc]);
    await db.close();

    const again = await openDb(dir);
    expect(again.all<{ v: SqlValue }>("SELECT v FROM kv ORDER BY k").map((r) => r.v)).toEqual(values);
    expect(counter(again)).toBe(2);
    expect(again.stats.journalBytes).toBe(0);
    expect(again.stats.lastSnapshotAt).not.toBeNull();
  });

  it("creates new databases with 8192-byte pages", async () => {
    const dir = await tempDir();
    const db = await openDb(dir, {}, false);
    expect(db.get("PRAGMA page_size")).toEqual({ page_size: 8192 });
    await db.close();
    const header = await readFile(join(dir, SNAPSHOT_FILE));
    expect(header.readUInt16BE(16)).toBe(8192);
  });

  it("close waits for pending writes, is idempotent, and later writes reject clearly", async () => {
    const dir = await tempDir();
    const db = await openDb(dir, {}, false);
    const pending = incs(db, 50);
    const closing = db.close();
    expect(db.close()).toBe(closing);
    await closing;
    await expect(pending).resolves.toHaveLength(50);
    await expect(db.write([inc])).rejects.toThrow(/closed/);
    expect(() => db.get("SELECT 1")).toThrow(/closed/);
    expect(counter(await openDb(dir))).toBe(50);
  });
});

describe("DurableDb migrations", () => {
  const m1: Migration = { version: 1, name: "users", statements: ["CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)"] };
  const m2: Migration = { version: 2, name: "user email", statements: ["ALTER TABLE users ADD COLUMN email TEXT"] };
  const m3: Migration = {
    version: 3,
    name: "seed",
    statements: ["INSERT INTO users (id, name, email) VALUES (1, 'a', 'a@x'); INSERT INTO users (id, name) VALUES (2, 'b')"],
  };

  it("applies each migration once, in version order, and records it; a later one is applied on the next open", async () => {
    const dir = await tempDir();
    const logs: string[] = [];
    const log = (m: string): void => void logs.push(m);
    const first = await DurableDb.open({ dir, migrations: [m2, m1], log, snapshotIntervalMs: 0 });
    await first.close();
    const second = await DurableDb.open({ dir, migrations: [m1, m2], log, snapshotIntervalMs: 0 });
    await second.close();
    expect(logs.filter((l) => l.includes("applying migration"))).toHaveLength(2);

    const third = await DurableDb.open({ dir, migrations: [m1, m2, m3], log, snapshotIntervalMs: 0 });
    open.push(third);
    expect(logs.filter((l) => l.includes("applying migration"))).toHaveLength(3);
    expect(third.all("SELECT version, name FROM schema_migrations ORDER BY version")).toEqual([
      { version: 1, name: "users" },
      { version: 2, name: "user email" },
      { version: 3, name: "seed" },
    ]);
    expect(third.all("SELECT id, email FROM users ORDER BY id")).toEqual([
      { id: 1, email: "a@x" },
      { id: 2, email: null },
    ]);
  });

  it("refuses a pending migration numbered below one already applied", async () => {
    const dir = await tempDir();
    await (await DurableDb.open({ dir, migrations: [{ ...m1, version: 5 }] })).close();
    await expect(
      DurableDb.open({
        dir,
        migrations: [
          { ...m1, version: 5 },
          { ...m2, version: 4 },
        ],
      }),
    ).rejects.toThrow(/older than applied migration 5/);
  });

  it("a failing migration rejects open and leaves neither schema changes nor a record", async () => {
    const dir = await tempDir();
    const broken: Migration = { version: 2, name: "broken", statements: ["CREATE TABLE extra (x)", "INSERT INTO nowhere VALUES (1)"] };
    await expect(DurableDb.open({ dir, migrations: [m1, broken] })).rejects.toThrow(/migration 2 "broken" failed: .*no such table/);
    const db = await DurableDb.open({ dir, migrations: [m1] });
    open.push(db);
    expect(db.all("SELECT version FROM schema_migrations")).toEqual([{ version: 1 }]);
    expect(db.get("SELECT name FROM sqlite_master WHERE name = 'extra'")).toBeUndefined();
  });
});

describe("DurableDb writes", () => {
  it("a failing statement rolls back the whole batch, journals nothing, and the db stays usable", async () => {
    const dir = await tempDir();
    const db = await openDb(dir, {}, false);
    const before = db.stats;
    const batch = [inc, { sql: "INSERT INTO kv VALUES (?, ?)", params: ["a", 1] }, { sql: "INSERT INTO kv VALUES (?, ?)", params: ["a", 2] }];
    await expect(db.write(batch)).rejects.toThrow(/UNIQUE constraint failed/);
    await expect(db.write([inc, { sql: "INSERT INTO kv VALUES (?, ?)", params: ["b", true as unknown as number] }])).rejects.toThrow(TypeError);
    expect(counter(db)).toBe(0);
    expect(db.all("SELECT * FROM kv")).toEqual([]);
    expect(db.stats.journalBytes).toBe(before.journalBytes);
    expect(db.stats.seq).toBe(before.seq);

    await db.write([inc, { sql: "INSERT INTO kv VALUES (?, ?)", params: ["a", 3] }]);
    // Reopen without close: the state comes from journal replay, which must not contain the failed batches.
    const again = await openDb(dir);
    expect(counter(again)).toBe(1);
    expect(again.all("SELECT k, v FROM kv")).toEqual([{ k: "a", v: 3 }]);
  });

  it("concurrent writes share fsyncs (group commit)", async () => {
    const db = await openDb(await tempDir());
    const before = db.stats;
    await incs(db, 1000);
    expect(db.stats.writes - before.writes).toBe(1000);
    expect(db.stats.fsyncs - before.fsyncs).toBeLessThanOrEqual(3);
    expect(counter(db)).toBe(1000);
  });

  it("after a journal fsync failure the write rejects, later writes are refused, and close does not snapshot", async () => {
    const dir = await tempDir();
    const db = await openDb(dir, {}, false);
    await incs(db, 3);
    const probe = await openFile(join(dir, "probe"), "w");
    const datasync = vi.spyOn(Object.getPrototypeOf(probe) as { datasync(): Promise<void> }, "datasync").mockRejectedValueOnce(new Error("EIO: simulated"));
    await probe.close();
    try {
      await expect(db.write([inc])).rejects.toThrow(/journal I\/O failed.*EIO: simulated/);
    } finally {
      datasync.mockRestore();
    }
    await expect(db.write([inc])).rejects.toThrow(/writes are disabled until restart/);
    await expect(db.compact()).rejects.toThrow(/journal I\/O failed/);
    await db.close();
    await expect(stat(join(dir, SNAPSHOT_FILE))).rejects.toThrow(/ENOENT/);
    // The failed batch's bytes were written, only not confirmed: like a timeout, its outcome is unknown, not "not applied".
    expect([3, 4]).toContain(counter(await openDb(dir)));
  });

  it("registers SQL functions before journal replay and keeps them across compaction", async () => {
    const dir = await tempDir();
    const functions = {
      bump: (n: SqlValue): SqlValue => (n as number) + 10,
      sumall: (...xs: SqlValue[]): SqlValue => xs.reduce<number>((s, x) => s + (x as number), 0),
    };
    const db = await openDb(dir, { functions }, false);
    await db.write([{ sql: "UPDATE counter SET n = bump(n)" }]);
    await db.compact();
    await db.write([{ sql: "UPDATE counter SET n = sumall(n, ?, ?)", params: [1, 2] }]);

    await expect(openDb(dir, {}, false)).rejects.toThrow(/replaying journal record \d+ failed.*no such function: sumall/);
    expect(counter(await openDb(dir, { functions }))).toBe(13);
  });
});

describe("DurableDb recovery", () => {
  it("ignores and cuts off a torn last record; writes after it survive the next reopen", async () => {
    const dir = await tempDir();
    const crashed = await openDb(dir, {}, false);
    for (let i = 0; i < 5; i++) await crashed.write([inc]);
    const journal = join(dir, JOURNAL_FILE);
    const size = (await stat(journal)).size;
    await truncate(journal, size - 3);

    const db = await openDb(dir, {}, false);
    expect(counter(db)).toBe(4);
    expect((await stat(journal)).size).toBe(db.stats.journalBytes);
    await db.write([inc]);
    expect(counter(await openDb(dir))).toBe(5);
  });

  it("ignores garbage appended after the last record", async () => {
    const dir = await tempDir();
    const crashed = await openDb(dir, {}, false);
    await incs(crashed, 20);
    await appendFile(
      join(dir, JOURNAL_FILE),
      Uint8Array.from({ length: 5000 }, (_, i) => (i * 97 + 13) & 0xff),
    );
    const logs: string[] = [];
    const db = await openDb(dir, { log: (m) => void logs.push(m) });
    expect(counter(db)).toBe(20);
    expect(logs.some((l) => l.includes("ignored 5000 bytes of damaged journal tail"))).toBe(true);
  });

  it("ignores and removes a leftover snapshot .tmp", async () => {
    const dir = await tempDir();
    const db = await openDb(dir, {}, false);
    await incs(db, 3);
    await db.close();
    await writeFile(join(dir, `${SNAPSHOT_FILE}.tmp`), "half a snapshot");
    expect(counter(await openDb(dir))).toBe(3);
    await expect(stat(join(dir, `${SNAPSHOT_FILE}.tmp`))).rejects.toThrow(/ENOENT/);
  });

  it.each<SnapshotStep>(["fsync-pages", "write-tmp", "fsync-tmp", "rename", "fsync-dir", "truncate-journal"])(
    "a crash before snapshot step %s loses no acknowledged write and applies none twice",
    async (step) => {
      const dir = await tempDir();
      let armed = false;
      const crashPoint = (s: SnapshotStep): void => {
        if (armed && s === step) throw new Error(`simulated crash at ${s}`);
      };
      const crashed = await openDb(dir, { crashPoint }, false);
      await incs(crashed, 10);
      await crashed.compact();
      await incs(crashed, 5);
      armed = true;
      await expect(crashed.compact()).rejects.toThrow(/simulated crash/);

      const db = await openDb(dir, {}, false);
      expect(counter(db)).toBe(15);
      await incs(db, 5);
      await db.close();
      expect(counter(await openDb(dir))).toBe(20);
    },
  );

  it("keeps writes that land while a snapshot is being written", async () => {
    const dir = await tempDir();
    const during: Promise<void[]>[] = [];
    let db: DurableDb | null = null;
    const crashPoint = (s: SnapshotStep): void => {
      if (db && (s === "rename" || s === "truncate-journal")) during.push(incs(db, 7));
    };
    db = await openDb(dir, { crashPoint }, false);
    await incs(db, 10);
    const journalBefore = db.stats.journalBytes;
    await db.compact();
    await Promise.all(during);
    expect(db.stats.journalBytes).toBeGreaterThan(0);
    expect(db.stats.journalBytes).toBeLessThan(journalBefore * 2);
    expect(counter(await openDb(dir))).toBe(24);
  });

  it("refuses to open when the journal no longer continues from the snapshot", async () => {
    const dir = await tempDir();
    const db = await openDb(dir, {}, false);
    await incs(db, 3);
    await db.close();
    const oldSnapshot = await readFile(join(dir, SNAPSHOT_FILE));
    const crashed = await openDb(dir, {}, false);
    await incs(crashed, 3);
    await crashed.compact();
    await incs(crashed, 3);
    await writeFile(join(dir, SNAPSHOT_FILE), oldSnapshot);
    await expect(openDb(dir)).rejects.toThrow(/records in between are missing/);
  });
});

describe("DurableDb compaction triggers", () => {
  it("compacts once the journal passes snapshotJournalBytes", async () => {
    const db = await openDb(await tempDir(), { snapshotJournalBytes: 2_000 });
    for (let i = 0; i < 100; i++) await db.write([{ sql: "INSERT INTO kv VALUES (?, ?)", params: [`k${i}`, "x".repeat(100)] }]);
    await db.close();
    expect(db.stats.lastSnapshotAt).not.toBeNull();
    expect(db.stats.snapshotMs).not.toBeNull();
  });

  it("compacts a dirty database after snapshotIntervalMs", async () => {
    const db = await openDb(await tempDir(), { snapshotIntervalMs: 30 });
    await db.write([inc]);
    const deadline = Date.now() + 2_000;
    while (db.stats.journalBytes > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(db.stats.journalBytes).toBe(0);
    expect(db.stats.lastSnapshotAt).not.toBeNull();
  });
});

describe("DurableDb reads", () => {
  it("get/all return objects, iterate streams positional rows, and statements survive compaction", async () => {
    const db = await openDb(await tempDir());
    await db.write([1, 2, 3].map((i) => ({ sql: "INSERT INTO kv VALUES (?, ?)", params: [`k${i}`, i * 10] })));
    const q = "SELECT k, v FROM kv WHERE v >= ? ORDER BY k";
    expect(db.all(q, [20])).toEqual([
      { k: "k2", v: 20 },
      { k: "k3", v: 30 },
    ]);
    expect(db.get(q, [30])).toEqual({ k: "k3", v: 30 });
    expect(db.get(q, [99])).toBeUndefined();
    await db.compact();
    expect(db.all(q, [30])).toEqual([{ k: "k3", v: 30 }]);

    const rows: SqlValue[][] = [];
    db.iterate(q, [10], (row) => {
      // A nested read of the same SQL must not disturb the outer cursor.
      expect(db.all(q, [30])).toHaveLength(1);
      rows.push(row);
    });
    expect(rows).toEqual([
      ["k1", 10],
      ["k2", 20],
      ["k3", 30],
    ]);
    expect(() => db.all("SELECT nope FROM kv")).toThrow(/no such column/);
    expect(db.all(q, [30])).toHaveLength(1);
  });
});
