/**
 * Imported first by a worker entry (verify-worker.ts, lane-worker.ts), for its side effect:
 * names the worker's OS thread `workerData.threadName` before the entry's other imports load,
 * so that `top -H`, `ps -L` and the start-up bench (bench/cases/startup.ts, which splits the
 * CPU to "listening on" by thread) tell the relay's workers from Node's own threads, which
 * are all called "node". Linux only (a thread may rename itself through
 * /proc/thread-self/comm, 15 bytes at most); elsewhere, or without a name, nothing happens.
 */
import { writeFileSync } from "node:fs";
import { isMainThread, workerData } from "node:worker_threads";

const name = isMainThread ? undefined : (workerData as { threadName?: unknown } | null)?.threadName;
if (typeof name === "string" && process.platform === "linux") {
  try {
    writeFileSync("/proc/thread-self/comm", name.slice(0, 15));
  } catch {
    // No /proc (a container without it): the thread keeps Node's name.
  }
}
