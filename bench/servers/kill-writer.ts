/**
 * Child of the snapshot case's kill -9 check: opens a copy of a prepared pool
 * the way the relay does (DurableDb.open + SqlTreeStore.loadTree), then appends
 * pages of leaves forever. Before each save it prints "root <nextIndex> <hex>"
 * (the root the store would hold if that append lands), after the save resolves
 * "ack <nextIndex>", and "step <s>" at each snapshot step, so the parent can
 * kill it at any of those moments and know exactly what must survive.
 * A small journal threshold makes snapshots of the whole store happen while
 * appends continue. stdout is a pipe: Node writes it synchronously on POSIX.
 */
import { createFastPoseidonHasher } from "../../src-server/adapters/poseidon-fast/fast-hasher";
import { toHex } from "../../src-shared/encoding/bytes";
import { DurableDb } from "../../src-server/adapters/storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../../src-server/adapters/storage-sqljs/schema-migrations";
import { SqlTreeStore } from "../../src-server/adapters/storage-sqljs/tree-store";
import { MerkleTree } from "../../src-server/core/merkle/tree";
import { FENCE, leafMeta, makeLeaves } from "../lib/data";

const [dir, pageArg] = process.argv.slice(2);
if (!dir || !pageArg) throw new Error("usage: kill-writer <dir> <leaves per append>");
const page = Number(pageArg);
const out = (line: string): void => void process.stdout.write(`${line}\n`);

const hasher = await createFastPoseidonHasher();
const db = await DurableDb.open({
  dir,
  migrations: MIGRATIONS,
  functions: SQL_FUNCTIONS,
  snapshotJournalBytes: 256 * 1024,
  snapshotIntervalMs: 0,
  crashPoint: (step) => out(`step ${step}`),
});
const store = new SqlTreeStore(db);
const pool = (await store.listPools())[0]!;
const tree = new MerkleTree(hasher);
await store.loadTree(pool, tree);
out(`ready ${tree.nextIndex} ${toHex(tree.root())}`);
// Leaves for this run, seeded by the starting index: a restarted writer continues with different leaves.
const fresh = makeLeaves(page * 10_000, 1000 + tree.nextIndex);
for (let k = 0; ; k++) {
  const first = tree.nextIndex;
  const r = tree.append(fresh.subarray((k % 10_000) * page * 32, ((k % 10_000) + 1) * page * 32));
  if (!r.ok) throw new Error(r.error);
  out(`root ${first + page} ${toHex(r.value.root)}`);
  await store.saveAppend(pool, r.value, String(first + page), leafMeta(first, page, 5), FENCE);
  out(`ack ${first + page}`);
}
