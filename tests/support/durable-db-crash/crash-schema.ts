import type { Migration, SqlStatement, SqlValue } from "../../../src-server/adapters/storage-sqljs/durable-db";

export const crashMigrations: Migration[] = [
  {
    version: 1,
    name: "counters",
    statements: ["CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, h INTEGER NOT NULL)", "INSERT INTO counters VALUES (1, 0, 0)"],
  },
  { version: 2, name: "items", statements: ["CREATE TABLE items (id INTEGER PRIMARY KEY, payload BLOB NOT NULL, note TEXT NOT NULL, x REAL NOT NULL)"] },
];

/** Order-sensitive hash chain: replaying records out of order or twice changes the result. */
export function mix(h: SqlValue, id: SqlValue): SqlValue {
  return ((h as number) * 31 + (id as number)) % 2147483647;
}

export function expectedHash(upTo: number): number {
  let h = 0;
  for (let id = 1; id <= upTo; id++) h = mix(h, id) as number;
  return h;
}

export function payloadFor(id: number): Uint8Array {
  return new Uint8Array((id * 37) % 3000).fill(id & 0xff);
}

/** One non-idempotent batch: an increment, a chained hash and an insert that must all land together or not at all. */
export function crashBatch(id: number): SqlStatement[] {
  return [
    { sql: "UPDATE counters SET n = n + 1, h = mix(h, ?) WHERE id = 1", params: [id] },
    { sql: "INSERT INTO items (id, payload, note, x) VALUES (?, ?, ?, ?)", params: [id, payloadFor(id), `item ${id} ✓`, id / 7] },
  ];
}
