/**
 * Work sharing for a proof's five MSMs between the calling thread and the MSM
 * thread (msm-worker.ts): each large sum is cut into slices of its windows
 * (msm.c's part of parts, which costs nothing per point), and every thread
 * takes the next slice from a queue in shared memory as soon as it is free, so
 * a thread whose core is busy simply takes fewer. No thread waits for another
 * to hand out work: the queue is two counters taken with Atomics.add.
 *
 * Slices on the witness (B2, A, C, B1) and slices on the H scalars (which the
 * calling thread computes from the QAP first) are two queues: while H is not
 * ready the MSM thread takes witness slices, and once it is, each thread takes
 * the larger of the two heads. The same loop (`takePieces`) runs on both
 * threads, each over its own instance of the module and its own copy of the
 * points. The calling thread never waits on the other for long
 * (`finishPieces`): a slice still unfinished after about a slice's time is
 * summed again on the calling thread, so sharing costs at most about two slices
 * over one thread, even when the other core is busy or the thread has died.
 */
import { msmAnswer, msmCallSpec, POINT_BYTES, type MsmGroup, type MsmPoints, type SyncMsmCall } from "./msm-wasm";

/** One point set of a key, as the plan needs it. */
export interface ShareSet {
  group: MsmGroup;
  /** Points finite: the set's cost. */
  finite: number;
  /** Its scalars: the H scalars, or the witness from this byte on. */
  scalars: "h" | { witnessOffset: number };
}

/** One slice of one set's sum. */
export interface SharePiece {
  set: number;
  part: number;
  parts: number;
  /** Estimated cost (G1 point-additions), to take the larger first. */
  cost: number;
}

/** How a key's MSMs are cut and in what order they are taken; the same for every proof on the key. */
export interface SharePlan {
  sets: ShareSet[];
  pieces: SharePiece[];
  /** Indices into pieces: slices on the witness, then slices on H, each largest first. */
  onWitness: number[];
  onH: number[];
  witnessBytes: number;
  hBytes: number;
}

/** A G2 point's share of an MSM against a G1 point's (Fq2 products are 3 Fq ones, and more of them per addition; measured 3.7–4.4x). */
const G2_WEIGHT = 4;

/**
 * Cuts each set into slices of about `pieceCost` (G1 point-additions; Infinity
 * keeps every sum whole, for one thread).
 */
export function planShare(sets: ShareSet[], witnessBytes: number, hBytes: number, pieceCost: number): SharePlan {
  const pieces: SharePiece[] = [];
  sets.forEach((s, set) => {
    const cost = s.finite * (s.group === "G2" ? G2_WEIGHT : 1);
    const parts = Math.max(1, Math.min(16, Math.round(cost / pieceCost)));
    for (let part = 0; part < parts; part++) pieces.push({ set, part, parts, cost: cost / parts });
  });
  const order = (h: boolean): number[] =>
    pieces
      .map((p, i) => ({ p, i }))
      .filter(({ p }) => (sets[p.set]!.scalars === "h") === h)
      .sort((a, b) => b.p.cost - a.p.cost)
      .map(({ i }) => i);
  return { sets, pieces, onWitness: order(false), onH: order(true), witnessBytes, hBytes };
}

/** ctl's Int32 slots: the two queues' next index, H's state, then one "done" flag per piece. */
const NEXT_WITNESS = 0;
const NEXT_H = 1;
const H_STATE = 2;
const DONE = 3;
const H_PENDING = 0;
const H_READY = 1;
const H_ABANDONED = 2;
/** Room for a slice's answer, in either group. */
const ANSWER_BYTES = POINT_BYTES.G2;

/** One proof's shared memory: queue counters and flags, the witness, the H scalars, each slice's answer. */
export interface ShareJob {
  plan: SharePlan;
  /** Shared with the MSM thread; a plain ArrayBuffer where there is no SharedArrayBuffer (a page that is not cross-origin isolated), for one thread. */
  memory: SharedArrayBuffer | ArrayBuffer;
}

interface JobViews {
  ctl: Int32Array;
  witness: Uint8Array;
  h: Uint8Array;
  answers: Uint8Array;
}

function views({ plan, memory }: ShareJob): JobViews {
  const ctlBytes = (DONE + plan.pieces.length) * 4;
  const w0 = Math.ceil(ctlBytes / 16) * 16;
  const h0 = w0 + plan.witnessBytes;
  const a0 = h0 + plan.hBytes;
  return {
    ctl: new Int32Array(memory, 0, DONE + plan.pieces.length),
    witness: new Uint8Array(memory, w0, plan.witnessBytes),
    h: new Uint8Array(memory, h0, plan.hBytes),
    answers: new Uint8Array(memory, a0, plan.pieces.length * ANSWER_BYTES),
  };
}

/** A proof's job, with its witness in place; the H scalars follow with `provideH`. */
export function newShareJob(plan: SharePlan, witness: Uint8Array): ShareJob {
  if (witness.byteLength !== plan.witnessBytes) throw new RangeError(`the witness is ${witness.byteLength} bytes, not ${plan.witnessBytes}`);
  const ctlBytes = Math.ceil(((DONE + plan.pieces.length) * 4) / 16) * 16;
  const size = ctlBytes + plan.witnessBytes + plan.hBytes + plan.pieces.length * ANSWER_BYTES;
  const job = { plan, memory: typeof SharedArrayBuffer === "function" ? new SharedArrayBuffer(size) : new ArrayBuffer(size) };
  views(job).witness.set(witness);
  return job;
}

function setH(job: ShareJob, state: number): void {
  const { ctl } = views(job);
  Atomics.store(ctl, H_STATE, state);
  Atomics.notify(ctl, H_STATE);
}

/** The H scalars are in: slices on H may be taken. */
export function provideH(job: ShareJob, h: Uint8Array): void {
  views(job).h.set(h);
  setH(job, H_READY);
}

/** The proof failed before its H scalars: a thread waiting for them stops. */
export function abandonJob(job: ShareJob): void {
  setH(job, H_ABANDONED);
}

/** The next piece to take, or -1 when both queues are empty; waits for H only when nothing else is left. */
function nextPiece(plan: SharePlan, ctl: Int32Array): number {
  for (;;) {
    const h = Atomics.load(ctl, H_STATE);
    if (h === H_ABANDONED) throw new Error("the proof was abandoned before its H scalars");
    const w = Atomics.load(ctl, NEXT_WITNESS);
    const k = Atomics.load(ctl, NEXT_H);
    const wLeft = w < plan.onWitness.length;
    const hLeft = k < plan.onH.length;
    if (!wLeft && !hLeft) return -1;
    const takeH = hLeft && (!wLeft || (h === H_READY && plan.pieces[plan.onH[k]!]!.cost >= plan.pieces[plan.onWitness[w]!]!.cost));
    if (takeH && h !== H_READY) {
      Atomics.wait(ctl, H_STATE, H_PENDING);
      continue;
    }
    const queue = takeH ? plan.onH : plan.onWitness;
    const i = Atomics.add(ctl, takeH ? NEXT_H : NEXT_WITNESS, 1);
    if (i < queue.length) return queue[i]!;
  }
}

/** Sums piece i over this thread's sets into its answer slot. */
function sumPiece(call: SyncMsmCall, sets: readonly MsmPoints[], job: ShareJob, v: JobViews, i: number): void {
  const { plan } = job;
  const piece = plan.pieces[i]!;
  const points = sets[piece.set];
  if (!points) throw new Error(`this thread has no point set ${piece.set}`);
  const source = plan.sets[piece.set]!.scalars;
  const from = source === "h" ? 0 : source.witnessOffset;
  const scalars = (source === "h" ? v.h : v.witness).subarray(from, from + points.count * 32);
  // Both threads may sum the same piece (finishPieces): they write the same bytes.
  v.answers.set(msmAnswer(call(msmCallSpec(points, scalars, 0, piece))), i * ANSWER_BYTES);
  Atomics.store(v.ctl, DONE + i, 1);
  Atomics.notify(v.ctl, DONE + i);
}

/**
 * Takes and sums slices until none is left, over `sets` (this thread's
 * handles for the plan's sets); answers how many it summed. Synchronous: the
 * calling thread runs it after providing H, the MSM thread as a message.
 */
export function takePieces(call: SyncMsmCall, sets: readonly MsmPoints[], job: ShareJob): number {
  const v = views(job);
  let taken = 0;
  for (let i = nextPiece(job.plan, v.ctl); i >= 0; i = nextPiece(job.plan, v.ctl)) {
    sumPiece(call, sets, job, v, i);
    taken++;
  }
  return taken;
}

/**
 * The calling thread, once the queues are empty: each slice the other thread
 * took and has not finished is given up to `waitMs` (about one slice's time,
 * enough for a thread running as fast as this one), then summed here. So a
 * proof never waits on a thread whose core is busy for longer than that plus
 * one slice, and a thread that died costs only the time to redo its slice.
 * Answers how many it summed.
 */
export function finishPieces(call: SyncMsmCall, sets: readonly MsmPoints[], job: ShareJob, waitMs: number): number {
  const v = views(job);
  let redone = 0;
  const deadline = performance.now() + waitMs;
  for (let i = 0; i < job.plan.pieces.length; i++) {
    if (Atomics.load(v.ctl, DONE + i) === 1) continue;
    const left = deadline - performance.now();
    if (left > 0 && Atomics.wait(v.ctl, DONE + i, 0, left) !== "timed-out") continue;
    if (Atomics.load(v.ctl, DONE + i) === 1) continue;
    sumPiece(call, sets, job, v, i);
    redone++;
  }
  return redone;
}

/** Slices taken so far (by either thread), summed or not. */
export function slicesTaken(job: ShareJob): number {
  const { ctl } = views(job);
  return Math.min(Atomics.load(ctl, NEXT_WITNESS), job.plan.onWitness.length) + Math.min(Atomics.load(ctl, NEXT_H), job.plan.onH.length);
}

/** Every piece was summed (by either thread). */
export function jobDone(job: ShareJob): boolean {
  const { ctl } = views(job);
  return job.plan.pieces.every((_, i) => Atomics.load(ctl, DONE + i) === 1);
}

/** Each set's slices, in the points' encoding, to be added together (the caller owns the curve arithmetic). */
export function jobAnswers(job: ShareJob): Uint8Array[][] {
  const { answers } = views(job);
  const out: Uint8Array[][] = job.plan.sets.map(() => []);
  job.plan.pieces.forEach((p, i) => {
    const size = POINT_BYTES[job.plan.sets[p.set]!.group];
    out[p.set]!.push(answers.slice(i * ANSWER_BYTES, i * ANSWER_BYTES + size));
  });
  return out;
}
