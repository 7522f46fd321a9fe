/**
 * The MSM thread (started by msm-thread.ts): its own instance of msm.c's
 * module, its own copy of the sets it is sent, and the same work-sharing loop
 * as the calling thread (msm-share.ts). Messages are answered one at a time,
 * in order, so a "share" sent right after its sets' "load"s finds them loaded
 * without the caller waiting for that.
 */
import { parentPort, workerData } from "node:worker_threads";
import { takePieces } from "./msm-share";
import { bnMsmHere, instantiateMsm, type MsmPoints } from "./msm-wasm";
import type { MsmThreadRequest } from "./msm-thread";

const port = parentPort;
if (!port) throw new Error("msm-worker.ts runs as a worker thread (msm-thread.ts starts it)");
const ready = instantiateMsm((workerData as { code: Uint8Array }).code);
/** The sets loaded so far, in the order their "load"s came: the caller numbers them the same way. null for one that failed. */
const sets: (MsmPoints | null)[] = [];

async function answer(req: MsmThreadRequest): Promise<unknown> {
  const call = await ready;
  if ("spec" in req) return call(req.spec);
  if ("load" in req) {
    const { group, points } = req.load;
    const set = await bnMsmHere(call)
      .load(group, points)
      .catch((e: unknown) => {
        sets.push(null);
        throw e;
      });
    sets.push(set);
    return set;
  }
  const { sets: ids, job } = req.share;
  const mine = ids.map((id) => {
    const s = sets[id];
    if (!s) throw new Error(`set ${id} was not loaded on the MSM thread`);
    return s;
  });
  return takePieces(call, mine, job);
}

let queue: Promise<void> = Promise.resolve();
port.on("message", (req: MsmThreadRequest) => {
  queue = queue.then(async () => {
    try {
      port.postMessage({ id: req.id, result: await answer(req) });
    } catch (e) {
      port.postMessage({ id: req.id, error: e instanceof Error ? e.message : String(e) });
    }
  });
});
