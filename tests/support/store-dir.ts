import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import { DurableDb, type Migration } from "../../src-server/adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../../src-server/adapters/storage-sqljs/schema-migrations";

export interface StoreDir {
  /** This test's data dir. */
  dir(): string;
  /** The relay's store on this test's data dir (every migration by default; snapshots only on close). */
  open(migrations?: Migration[]): Promise<DurableDb>;
}

/** A fresh data dir for each test, removed after it. Call at module level. */
export function storeDirPerTest(prefix: string): StoreDir {
  let dir = "";
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), prefix));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir: () => dir,
    open: (migrations = MIGRATIONS) => DurableDb.open({ dir, migrations, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 }),
  };
}
