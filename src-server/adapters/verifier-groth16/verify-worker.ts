/**
 * One verification thread: initialises mcl and the verification key once,
 * then answers requests one at a time. Protocol (see worker-pool.ts):
 *   in:  { id, buf: ArrayBuffer (256-byte proof ‖ n × 32-byte signals, transferred), n }
 *   out: { id, ok: boolean } | { id, error: string }   and once, at start: { ready: true } | { fatal: string }
 */
// First: names this thread (workerData.threadName) before mcl-wasm loads.
import "../threads/name-worker-thread";
import { parentPort, workerData } from "node:worker_threads";
import { Groth16MclVerifier } from "./groth16-mcl";

export interface WorkerInit {
  vkeyPath: string;
  /** The OS thread's name (threads/name-worker-thread.ts). */
  threadName?: string;
}
export interface VerifyRequest {
  id: number;
  buf: ArrayBuffer;
  n: number;
}
export type WorkerMessage = { ready: true } | { fatal: string } | { id: number; ok: boolean } | { id: number; error: string };

const port = parentPort;
if (!port) throw new Error("verify-worker.ts runs only as a worker thread");

try {
  const { vkeyPath } = workerData as WorkerInit;
  const verifier = await Groth16MclVerifier.fromFile(vkeyPath);
  port.on("message", (req: VerifyRequest) => {
    let reply: WorkerMessage;
    try {
      const all = new Uint8Array(req.buf);
      const n = req.n;
      const wellFormed = Number.isInteger(n) && n >= 0 && all.length === 256 + 32 * n;
      const signals = wellFormed ? Array.from({ length: n }, (_, i) => all.subarray(256 + 32 * i, 288 + 32 * i)) : [];
      reply = { id: req.id, ok: wellFormed && verifier.verify(all.subarray(0, 256), signals) };
    } catch (e) {
      reply = { id: req.id, error: e instanceof Error ? e.message : String(e) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ ready: true } satisfies WorkerMessage);
} catch (e) {
  port.postMessage({ fatal: e instanceof Error ? e.message : String(e) } satisfies WorkerMessage);
}
