/*
 * Child process for migration 17's kill -9 test: opens the relay's store on argv[2] with
 * every migration, prints "migrating" when migration 17 starts and "opened" once open, then
 * waits to be killed. stdout is a pipe, which Node writes synchronously on POSIX.
 */
import { DurableDb } from "../../../src-server/adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../../../src-server/adapters/storage-sqljs/schema-migrations";

const [dir] = process.argv.slice(2);
if (!dir) throw new Error("usage: open-store <dir>");
const out = (line: string): void => void process.stdout.write(`${line}\n`);
await DurableDb.open({
  dir,
  migrations: MIGRATIONS,
  functions: SQL_FUNCTIONS,
  snapshotIntervalMs: 0,
  log: (line) => {
    if (line.includes("applying migration 17")) out("migrating");
  },
});
out("opened");
setInterval(() => {}, 1 << 30);
