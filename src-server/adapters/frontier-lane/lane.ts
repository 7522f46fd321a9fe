/**
 * The sandbox chain's frontier lane: its deposits' 32 Poseidon pairs hashed on
 * another thread, ahead of the ledger write that needs them.
 *
 * A sandbox deposit inserts its leaf into the pool's frontier (one Poseidon per
 * level), about a quarter of the relay's CPU per deposit on the event loop. The lane
 * keeps a copy of each pool's frontier in a worker thread. The chain sends a
 * deposit's leaf as soon as its signature checks out, and the worker inserts
 * it into its copy, in the order sent, and answers with the pairs it hashed.
 * When the deposit's turn comes, the chain's own insert takes its pairs from
 * that list (core/merkle/precomputed-pairs.ts), which it uses only for the
 * exact inputs they were hashed from. So the lane decides nothing: a copy
 * that fell behind (a deposit refused after its leaf was sent, a write that
 * failed) costs hashes on the event loop, as without a lane, until the chain
 * sends its state again (track).
 *
 * The lane is an accelerator and fails open: until its worker is ready (it
 * starts with the first deposit), and for good once it has died, insert()
 * answers null at once and the chain hashes as it always did.
 */
import { Worker } from "node:worker_threads";
import { workerModule, workerSpec } from "../threads/worker-entry";
import type { LaneInit, LaneMessage, LaneRequest } from "./lane-worker";

const WORKER_URL = workerModule("lane-worker", import.meta.url);
/** What `top -H`, `ps -L` and the start-up bench call the lane's thread (threads/name-worker-thread.ts). */
export const LANE_THREAD_NAME = "relay-lane";

export interface FrontierLaneStats {
  state: "idle" | "starting" | "ready" | "down";
  inserts: number;
  /** Inserts answered null: the lane not ready or down, the worker's error, or no answer in time. */
  unanswered: number;
}

/** Lane worker threads alive in this process (a relay that stops must bring it back down). */
let liveWorkers = 0;
export function liveLaneWorkers(): number {
  return liveWorkers;
}

export class FrontierLane {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, (pairs: Uint8Array | null) => void>();
  /** Each pool's latest state, sent to the worker when it starts. */
  private readonly tracked = new Map<string, { nextIndex: number; filled: Uint8Array }>();
  private nextId = 1;
  private state: FrontierLaneStats["state"] = "idle";
  private closing = false;
  private inserts = 0;
  private unanswered = 0;
  private settle: (ready: boolean) => void = () => {};
  /** Resolves true once the worker is ready, false if it never will be (after {@link start}). */
  readonly ready: Promise<boolean> = new Promise((resolve) => (this.settle = resolve));

  /**
   * No thread yet: the worker starts with the first insert (a relay whose sandbox takes no
   * deposits never runs one), and inserts answer null until it is ready. An insert not
   * answered within `answerWithinMs` answers null: a stuck lane must not hold deposits up.
   */
  constructor(
    private readonly init: LaneInit,
    private readonly log: (line: string) => void,
    private readonly answerWithinMs = 1000,
  ) {}

  /** Starts the worker now (the first insert does it otherwise); start-up is not waited for. */
  start(): void {
    if (this.state !== "idle") return;
    this.state = "starting";
    const spec = workerSpec(WORKER_URL);
    const worker = new Worker(spec.entry, { eval: spec.eval, execArgv: spec.execArgv, workerData: { threadName: LANE_THREAD_NAME, ...this.init } });
    this.worker = worker;
    liveWorkers++;
    let lastError: Error | null = null;
    worker.on("message", (m: LaneMessage) => {
      if ("ready" in m) {
        if (this.state === "starting") {
          this.state = "ready";
          this.settle(true);
        }
      } else if ("fatal" in m) {
        this.log(`frontier lane: could not start (${m.fatal}); sandbox deposits hash on the event loop`);
        this.down();
        void worker.terminate();
      } else {
        const answer = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        if ("pairs" in m) answer?.(new Uint8Array(m.pairs));
        else {
          this.unanswered++;
          answer?.(null);
        }
      }
    });
    worker.on("error", (e) => (lastError = e));
    worker.on("exit", (code) => {
      liveWorkers--;
      if (!this.closing && this.state !== "down")
        this.log(`frontier lane: worker exited (code ${code}${lastError ? `: ${lastError.message}` : ""}); sandbox deposits hash on the event loop`);
      this.down();
    });
    // The lane never keeps the process alive: closing the relay terminates it, and an idle worker must not hold an exit.
    worker.unref();
    // Messages wait in the port until the worker listens: it starts from every pool's latest state.
    for (const [pool, t] of this.tracked) this.post({ kind: "track", pool, nextIndex: t.nextIndex, filled: t.filled });
  }

  /** The pool's frontier from now on (after it is opened or reloaded, or when the lane's copy fell behind). */
  track(pool: string, nextIndex: number, filledSubtrees: Uint8Array): void {
    if (this.state === "down") return;
    this.tracked.set(pool, { nextIndex, filled: filledSubtrees });
    if (this.worker) this.post({ kind: "track", pool, nextIndex, filled: filledSubtrees });
  }

  /**
   * Inserts `leaf` into the lane's copy of `pool` and answers the pairs it
   * hashed (k × 96 bytes); null when the lane is not ready, is down, or could
   * not insert. Leaves are inserted in the order of the calls.
   */
  insert(pool: string, leaf: Uint8Array): Promise<Uint8Array | null> {
    this.inserts++;
    if (this.state === "idle") this.start();
    if (this.state !== "ready") {
      this.unanswered++;
      return Promise.resolve(null);
    }
    const id = this.nextId++;
    return new Promise((resolve) => {
      const late = setTimeout(() => {
        if (!this.waiting.delete(id)) return;
        this.unanswered++;
        resolve(null);
      }, this.answerWithinMs);
      this.waiting.set(id, (pairs) => {
        clearTimeout(late);
        resolve(pairs);
      });
      this.post({ kind: "insert", id, pool, leaf });
    });
  }

  stats(): FrontierLaneStats {
    return { state: this.state, inserts: this.inserts, unanswered: this.unanswered };
  }

  async close(): Promise<void> {
    this.closing = true;
    this.down();
    await this.worker?.terminate();
  }

  private post(m: LaneRequest): void {
    this.worker?.postMessage(m);
  }

  private down(): void {
    this.state = "down";
    this.settle(false);
    for (const answer of this.waiting.values()) answer(null);
    this.unanswered += this.waiting.size;
    this.waiting.clear();
  }
}
