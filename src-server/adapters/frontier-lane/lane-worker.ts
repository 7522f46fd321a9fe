/**
 * The frontier lane's thread: a copy of each sandbox pool's frontier, into
 * which it inserts the leaves the main thread sends, in the order sent, and
 * answers each with the pairs it hashed (lane.ts). Protocol:
 *   in:  { kind: "track", pool, nextIndex, filled }  the pool's state from now on
 *        { kind: "insert", id, pool, leaf }
 *   out: once { ready: true } | { fatal }; then { id, pairs: ArrayBuffer (transferred) } | { id, error }
 */
// First: names this thread (workerData.threadName) before the rest loads.
import "../threads/name-worker-thread";
import { parentPort, workerData } from "node:worker_threads";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { FrontierTree } from "../../core/merkle/frontier";
import { listingHasher } from "../../core/merkle/precomputed-pairs";
import { openFastPairHasher } from "../poseidon-fast/fast-hasher";

export interface LaneInit {
  /** Where the fast Poseidon module may be (the relay's own list). */
  wasmPlaces: string[];
  /** The OS thread's name (threads/name-worker-thread.ts). */
  threadName?: string;
}
export type LaneRequest =
  { kind: "track"; pool: string; nextIndex: number; filled: Uint8Array } | { kind: "insert"; id: number; pool: string; leaf: Uint8Array };
export type LaneMessage = { ready: true } | { fatal: string } | { id: number; pairs: ArrayBuffer } | { id: number; error: string };

const port = parentPort;
if (!port) throw new Error("lane-worker.ts runs only as a worker thread");

try {
  const { wasmPlaces } = workerData as LaneInit;
  // The fast module only: pairs are all the lane hashes, and without it the lane is not worth a thread.
  const hasher: FieldHasher = await openFastPairHasher(wasmPlaces);
  const listing = listingHasher(hasher);
  const pools = new Map<string, FrontierTree>();
  port.on("message", (m: LaneRequest) => {
    if (m.kind === "track") {
      // The lane needs no roots: an insert reads only the filled subtrees and the index.
      pools.set(m.pool, new FrontierTree(listing.hasher, { nextIndex: m.nextIndex, filledSubtrees: m.filled, roots: new Uint8Array(0) }));
      return;
    }
    let reply: LaneMessage;
    try {
      const tree = pools.get(m.pool);
      if (!tree) throw new Error(`pool ${m.pool} is not tracked`);
      listing.take();
      const inserted = tree.insert(m.leaf);
      if (!inserted.ok) throw new Error(inserted.error);
      reply = { id: m.id, pairs: listing.take().buffer as ArrayBuffer };
    } catch (e) {
      listing.take();
      reply = { id: m.id, error: e instanceof Error ? e.message : String(e) };
    }
    port.postMessage(reply, "pairs" in reply ? [reply.pairs] : []);
  });
  port.postMessage({ ready: true } satisfies LaneMessage);
} catch (e) {
  port.postMessage({ fatal: e instanceof Error ? e.message : String(e) } satisfies LaneMessage);
}
