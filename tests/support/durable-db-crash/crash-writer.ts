/*
 * Child process for the kill -9 test. Prints "ready N" once open, then
 * "ack ID" only after write(ID) resolved, and "step S" as a snapshot passes
 * each step so the parent can aim its SIGKILL. stdout is a pipe, which Node
 * writes synchronously on POSIX, so a printed ack has left the process.
 */
import { DurableDb } from "../../../src-server/adapters/storage-sqljs/durable-db";
import { crashBatch, crashMigrations, mix } from "./crash-schema";

const [dir, journalBytes] = process.argv.slice(2);
if (!dir || !journalBytes) throw new Error("usage: crash-writer <dir> <snapshotJournalBytes>");
const out = (line: string): void => void process.stdout.write(`${line}\n`);

const db = await DurableDb.open({
  dir,
  migrations: crashMigrations,
  functions: { mix },
  snapshotJournalBytes: Number(journalBytes),
  snapshotIntervalMs: 0,
  crashPoint: (step) => out(`step ${step}`),
});
let next = (db.get<{ n: number }>("SELECT n FROM counters WHERE id = 1")?.n ?? 0) + 1;
out(`ready ${next - 1}`);

async function writer(): Promise<never> {
  for (;;) {
    const id = next++;
    await db.write(crashBatch(id));
    out(`ack ${id}`);
  }
}
await Promise.all(Array.from({ length: 8 }, writer));
