/**
 * The ProofVerifier adapter: Groth16 verification (groth16-mcl.ts) on a small
 * pool of worker threads, so the event loop only copies bytes.
 *
 * - size: max(1, availableParallelism − 1) unless `threads` says otherwise;
 *   every worker initialises mcl and the key once;
 * - each request is copied into one ArrayBuffer (proof ‖ signals) and
 *   transferred; one request per worker at a time;
 * - the queue of requests waiting for a worker is bounded (`maxQueue`); when
 *   full, verify() rejects with VerifierBusyError at once (shed load, don't
 *   buffer without limit);
 * - a worker that dies (uncaught error, OOM, terminate) is replaced; the one
 *   request it was running rejects with VerifierWorkerCrashedError (an
 *   operational failure, never a "false": the proof was not judged);
 * - bad input is not an error: verify() resolves false for it.
 */
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { workerModule, workerSpec } from "../threads/worker-entry";
import { VerifierBusyError, type QueuedProofVerifier } from "../../ports/proof-verifier";
import { parseVerificationKey } from "../../../src-shared/zk/verification-key";
import type { VerifyRequest, WorkerInit, WorkerMessage } from "./verify-worker";

export interface Groth16VerifierOptions {
  /** Worker threads; default max(1, availableParallelism() − 1). */
  threads?: number;
  /** Requests waiting for a free worker before verify() rejects with VerifierBusyError; default 1024. */
  maxQueue?: number;
}

export { VerifierBusyError };
export class VerifierClosedError extends Error {
  override readonly name = "VerifierClosedError";
}
export class VerifierWorkerCrashedError extends Error {
  override readonly name = "VerifierWorkerCrashedError";
}

const PROOF_BYTES = 256;
const SIGNAL_BYTES = 32;

/** The worker entry next to this module: .ts when run from sources (tsx, vitest), .js in the desktop bundle. */
const WORKER_URL = workerModule("verify-worker", import.meta.url);
/** What `top -H`, `ps -L` and the start-up bench call a verifier thread (threads/name-worker-thread.ts). */
export const VERIFY_THREAD_NAME = "relay-verify";

interface Job {
  id: number;
  buf: ArrayBuffer;
  n: number;
  resolve(ok: boolean): void;
  reject(e: Error): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | null;
  /** Set when we terminate it ourselves (close); its exit is then not a crash. */
  retiring: boolean;
}

/** Verifier worker threads alive in this process, across every pool (a start that fails or a close must bring it back down). */
let liveWorkers = 0;
export function liveVerifierWorkers(): number {
  return liveWorkers;
}

export class Groth16WorkerPool implements QueuedProofVerifier {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private crashes = 0;
  private restartDelayMs = 0;
  private readonly idle: Array<() => void> = [];

  private constructor(
    private readonly init: WorkerInit,
    private readonly nPublic: number,
    readonly threads: number,
    private readonly maxQueue: number,
  ) {}

  /** Starts `threads` workers and waits until each has loaded mcl and the key; rejects (and stops them) if any cannot. */
  static async start(vkeyPath: string, opts: Groth16VerifierOptions = {}): Promise<Groth16WorkerPool> {
    const { nPublic } = readVerifierKey(vkeyPath);
    const threads = opts.threads ?? Math.max(1, availableParallelism() - 1);
    const maxQueue = opts.maxQueue ?? 1024;
    if (!Number.isInteger(threads) || threads < 1) throw new RangeError("threads must be a positive integer");
    if (!Number.isInteger(maxQueue) || maxQueue < 0) throw new RangeError("maxQueue must be a non-negative integer");
    const pool = new Groth16WorkerPool({ vkeyPath, threadName: VERIFY_THREAD_NAME }, nPublic, threads, maxQueue);
    try {
      await Promise.all(Array.from({ length: threads }, () => pool.spawn()));
    } catch (e) {
      await pool.close();
      throw e;
    }
    return pool;
  }

  /** Requests queued for a worker plus those running. */
  get pending(): number {
    return this.queue.length + this.slots.filter((s) => s.job).length;
  }

  /** Workers that died and were replaced since start. */
  get crashCount(): number {
    return this.crashes;
  }

  verify(proof: Uint8Array, publicSignals: readonly Uint8Array[]): Promise<boolean> {
    if (this.closed) return Promise.reject(new VerifierClosedError("verifier closed"));
    // Malformed requests are answered here, without a round trip (the worker checks everything again).
    if (!(proof instanceof Uint8Array) || proof.length !== PROOF_BYTES || !Array.isArray(publicSignals)) return Promise.resolve(false);
    if (publicSignals.length !== this.nPublic) return Promise.resolve(false);
    for (const s of publicSignals) if (!(s instanceof Uint8Array) || s.length !== SIGNAL_BYTES) return Promise.resolve(false);
    if (this.queue.length >= this.maxQueue && !this.slots.some((s) => s.ready && !s.job)) {
      return Promise.reject(new VerifierBusyError(`verifier queue full (${this.queue.length} waiting, ${this.threads} workers busy)`));
    }
    const n = publicSignals.length;
    const bytes = new Uint8Array(PROOF_BYTES + SIGNAL_BYTES * n);
    bytes.set(proof, 0);
    publicSignals.forEach((s, i) => bytes.set(s, PROOF_BYTES + SIGNAL_BYTES * i));
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, buf: bytes.buffer, n, resolve, reject });
      this.pump();
    });
  }

  /**
   * Stops accepting requests, rejects those still queued with
   * VerifierClosedError, lets the running ones finish (for at most
   * `drainMs`; a verification takes milliseconds), then stops the workers.
   */
  async close(drainMs = 10_000): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new VerifierClosedError("verifier closed"));
    const deadline = Date.now() + drainMs;
    while (this.slots.some((s) => s.job) && Date.now() < deadline) {
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, Math.max(0, deadline - Date.now()));
        this.idle.push(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
    for (const s of this.slots) {
      s.job?.reject(new VerifierClosedError("verifier closed before the request finished"));
      s.job = null;
    }
    await Promise.all(
      this.slots.splice(0).map((s) => {
        s.retiring = true;
        return s.worker.terminate();
      }),
    );
  }

  /** Test hook: kills one worker as a crash would (its running request rejects, a new worker replaces it). */
  async crashWorkerForTest(index = 0): Promise<void> {
    const slot = this.slots[index];
    if (slot) await slot.worker.terminate();
  }

  private spawn(): Promise<void> {
    const spec = workerSpec(WORKER_URL);
    const worker = new Worker(spec.entry, { eval: spec.eval, execArgv: spec.execArgv, workerData: this.init });
    liveWorkers++;
    const slot: Slot = { worker, ready: false, job: null, retiring: false };
    this.slots.push(slot);
    return new Promise<void>((resolveReady, rejectReady) => {
      let lastError: Error | null = null;
      worker.on("message", (m: WorkerMessage) => {
        if ("ready" in m) {
          slot.ready = true;
          this.restartDelayMs = 0;
          resolveReady();
          this.pump();
        } else if ("fatal" in m) {
          lastError = new Error(`verifier worker failed to start: ${m.fatal}`);
          rejectReady(lastError);
          void worker.terminate();
        } else {
          const job = slot.job;
          if (!job || job.id !== m.id) return;
          slot.job = null;
          if ("ok" in m) job.resolve(m.ok);
          else job.reject(new Error(`verifier worker error: ${m.error}`));
          this.afterJob();
        }
      });
      worker.on("error", (e) => {
        lastError = e;
      });
      worker.on("exit", (code) => {
        liveWorkers--;
        const i = this.slots.indexOf(slot);
        if (i >= 0) this.slots.splice(i, 1);
        if (!slot.ready) rejectReady(lastError ?? new Error(`verifier worker exited with code ${code} before it was ready`));
        if (slot.retiring) return;
        const job = slot.job;
        slot.job = null;
        if (job) job.reject(new VerifierWorkerCrashedError(`verifier worker died (exit code ${code}${lastError ? `: ${lastError.message}` : ""})`));
        if (this.closed) return this.afterJob();
        if (!slot.ready) return; // start-up failure: reported to whoever awaited spawn(); respawned below only after a crash
        this.crashes++;
        this.respawnLater();
      });
    });
  }

  /** Replaces a dead worker; if replacements keep failing to start, backs off (up to 5 s) instead of spinning. */
  private respawnLater(): void {
    const delay = this.restartDelayMs;
    this.restartDelayMs = Math.min(5000, Math.max(50, delay * 2));
    setTimeout(() => {
      if (this.closed) return;
      this.spawn().catch(() => {
        if (!this.closed) this.respawnLater();
      });
    }, delay).unref();
  }

  private afterJob(): void {
    this.pump();
    if (!this.slots.some((s) => s.job)) for (const wake of this.idle.splice(0)) wake();
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (!slot.ready || slot.job) continue;
      const job = this.queue.shift();
      if (!job) return;
      slot.job = job;
      const req: VerifyRequest = { id: job.id, buf: job.buf, n: job.n };
      slot.worker.postMessage(req, [job.buf]);
    }
  }
}

/** The key's public-input count; throws when the file cannot be read or is not a Groth16 key (what the workers load). */
export function readVerifierKey(vkeyPath: string): { nPublic: number } {
  const parsed = parseVerificationKey(JSON.parse(readFileSync(vkeyPath, "utf8")) as unknown);
  if (!parsed.ok) throw new Error(`${vkeyPath}: ${parsed.error}`);
  return { nPublic: parsed.value.nPublic };
}

/** The ProofVerifier for the withdraw circuit's key (resources/zk/verification_key.json). */
export function createGroth16Verifier(vkeyPath: string, opts?: Groth16VerifierOptions): Promise<QueuedProofVerifier> {
  return Groth16WorkerPool.start(vkeyPath, opts);
}
