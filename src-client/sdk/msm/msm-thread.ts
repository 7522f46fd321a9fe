/**
 * msm.c's module on a worker thread of its own, so that two MSMs run at once
 * (the prover gives it G2's and one G1 set, and keeps the others). Node only.
 * The worker is a few lines of plain JavaScript evaluated in the thread (no
 * TypeScript loader needed there, under tsx, vitest or a bundle alike): it
 * instantiates the module and answers `MsmCall`s, each with the same calling
 * convention as msm-wasm.ts's `callOn`.
 */
import { Worker } from "node:worker_threads";
import { bnMsmOver, type BnMsm, type MsmCallSpec } from "./msm-wasm";

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const ready = WebAssembly.instantiate(workerData.code, {}).then(({ instance }) => {
  const w = instance.exports;
  w.msm_init();
  const alloc = (size) => {
    const p = w.msm_alloc(size);
    if (p === 0) throw new RangeError("the MSM module could not allocate " + size + " bytes");
    return p;
  };
  return ({ fn, args, input, outSize, keep }) => {
    const mark = w.msm_mark();
    try {
      const inPtr = input ? alloc(Math.max(input.byteLength, 16)) : 0;
      const outPtr = outSize ? alloc(outSize) : 0;
      if (input) new Uint8Array(w.memory.buffer).set(input, inPtr);
      const ret = w[fn](...args.map((a) => (a === "in" ? inPtr : a === "out" ? outPtr : a)));
      const out = outSize ? new Uint8Array(w.memory.buffer).slice(outPtr, outPtr + outSize) : null;
      if (!keep) w.msm_release(mark);
      return { ret, out };
    } catch (e) {
      w.msm_release(mark);
      throw e;
    }
  };
});
parentPort.on("message", async ({ id, spec }) => {
  try {
    const call = await ready;
    parentPort.postMessage({ id, result: call(spec) });
  } catch (e) {
    parentPort.postMessage({ id, error: String((e && e.message) || e) });
  }
});
`;

/** The worker keeps the process alive only while a call is pending, so a CLI that proved once still exits. */
export interface MsmThread extends BnMsm {
  terminate(): Promise<void>;
}

/** Starts a worker thread with its own instance of the module. */
export function startMsmThread(code: Uint8Array): MsmThread {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { code } });
  const pending = new Map<number, { resolve: (r: { ret: number; out: Uint8Array | null }) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let failed: Error | null = null;
  const fail = (e: Error): void => {
    failed = e;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  worker.on("message", (m: { id: number; result?: { ret: number; out: Uint8Array | null }; error?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (pending.size === 0) worker.unref();
    if (m.result) p.resolve(m.result);
    else p.reject(new Error(m.error ?? "the MSM thread failed"));
  });
  worker.on("error", (e) => fail(e));
  worker.on("exit", (code) => fail(new Error(`the MSM thread exited (code ${code})`)));
  worker.unref();
  const msm = bnMsmOver(
    (spec: MsmCallSpec) =>
      new Promise((resolve, reject) => {
        if (failed) return reject(failed);
        const id = nextId++;
        if (pending.size === 0) worker.ref();
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, spec });
      }),
  );
  return {
    ...msm,
    async terminate() {
      await worker.terminate();
    },
  };
}
