/**
 * msm.c's module on a worker thread of its own (msm-worker.ts), so that a
 * proof's MSMs are shared between two cores (msm-share.ts). Node only. The
 * worker is started as the server's are (src-shared/node/worker-entry.ts): from
 * its .ts source under tsx or vitest, through a bootstrap that registers tsx
 * in the thread, or from msm-worker.js beside a bundle of this file.
 */
import { Worker } from "node:worker_threads";
import { workerModule, workerSpec } from "../../../src-shared/node/worker-entry";
import type { ShareJob } from "./msm-share";
import { bnMsmOver, type BnMsm, type MsmCallSpec, type MsmGroup, type MsmPoints } from "./msm-wasm";

const WORKER_URL = workerModule("msm-worker", import.meta.url);

/** What msm-worker.ts answers: one call into the module, a set to load, or a job to take slices of. */
export type MsmThreadRequest = { id: number } & (
  { spec: MsmCallSpec } | { load: { group: MsmGroup; points: Uint8Array } } | { share: { sets: number[]; job: ShareJob } }
);
type Body = MsmThreadRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;

export interface MsmThread extends BnMsm {
  /**
   * Sends a set to the thread without waiting for it: answers at once the
   * number `share` names it by (the thread loads in the order sent);
   * `loaded()` answers the set once loaded, keeping the process alive while
   * awaited.
   */
  send(group: MsmGroup, points: Uint8Array): { id: number; loaded(): Promise<MsmPoints> };
  /**
   * The thread takes slices of `job` over its sets `sets` (numbers from
   * `send`), once it has loaded them. `wait()` answers how many it took; only
   * while it is awaited does the thread keep the process alive, so a caller
   * that finished every slice itself need not wait for a thread still starting.
   */
  share(sets: number[], job: ShareJob): { wait(): Promise<number> };
  /** Why the thread stopped (it died or was terminated), or null while it runs. */
  readonly failed: Error | null;
  /** It answered a request: it got as far as starting. */
  readonly answered: boolean;
  terminate(): Promise<void>;
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  held: boolean;
  settled: boolean;
}

/** Starts a worker thread with its own instance of the module (`code`: msm-bn254.wasm's bytes). */
export function startMsmThread(code: Uint8Array): MsmThread {
  const spec = workerSpec(WORKER_URL);
  const worker = new Worker(spec.entry, { eval: spec.eval, execArgv: spec.execArgv, workerData: { code } });
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let nextSet = 0;
  let held = 0;
  let failed: Error | null = null;
  let answered = false;
  const hold = (p: Pending, on: boolean): void => {
    if (p.held === on || (on && p.settled)) return;
    p.held = on;
    held += on ? 1 : -1;
    if (on && held === 1) worker.ref();
    if (!on && held === 0) worker.unref();
  };
  const settle = (p: Pending): void => {
    hold(p, false);
    p.settled = true;
  };
  const fail = (e: Error): void => {
    failed ??= e;
    for (const p of pending.values()) {
      settle(p);
      p.reject(failed);
    }
    pending.clear();
  };
  worker.on("message", (m: { id: number; result?: unknown; error?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    answered = true;
    settle(p);
    if ("error" in m) p.reject(new Error(m.error ?? "the MSM thread failed"));
    else p.resolve(m.result);
  });
  worker.on("error", (e) => fail(e));
  worker.on("exit", (exitCode) => fail(new Error(`the MSM thread exited (code ${exitCode})`)));
  worker.unref();
  const request = <T>(body: Body, heldNow: boolean): { promise: Promise<T>; entry: Pending | null } => {
    if (failed) return { promise: Promise.reject(failed), entry: null };
    const id = nextId++;
    let resolve!: (v: T) => void;
    let reject!: (e: Error) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const entry: Pending = { resolve: resolve as (v: unknown) => void, reject, held: false, settled: false };
    pending.set(id, entry);
    hold(entry, heldNow);
    worker.postMessage({ id, ...body });
    // Nobody need await a send or a share: their failures reach whoever does.
    promise.catch(() => undefined);
    return { promise, entry };
  };
  /** A request that keeps the process alive only once its answer is asked for. */
  const unheld = <T>(body: Body): (() => Promise<T>) => {
    const { promise, entry } = request<T>(body, false);
    return () => {
      if (entry) hold(entry, true);
      return promise;
    };
  };
  const msm = bnMsmOver((s: MsmCallSpec) => request<{ ret: number; out: Uint8Array | null }>({ spec: s }, true).promise);
  return {
    ...msm,
    send(group, points) {
      return { id: nextSet++, loaded: unheld<MsmPoints>({ load: { group, points } }) };
    },
    share(sets, job) {
      return { wait: unheld<number>({ share: { sets, job } }) };
    },
    get failed() {
      return failed;
    },
    get answered() {
      return answered;
    },
    async terminate() {
      fail(new Error("the MSM thread was terminated"));
      await worker.terminate();
    },
  };
}
