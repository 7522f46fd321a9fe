import { readFileSync } from "node:fs";
import { buildBn128, type Bn128Curve } from "ffjavascript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MSM_WASM, readSections } from "../fast-prover";
import { DEFAULT_ARTIFACTS } from "../prove";
import { abandonJob, finishPieces, jobAnswers, jobDone, newShareJob, planShare, provideH, slicesTaken, takePieces, type ShareSet } from "./msm-share";
import { startMsmThread, type MsmThread } from "./msm-thread";
import { bnMsmHere, instantiateMsm, POINT_BYTES, type MsmGroup, type MsmPoints, type SyncMsmCall } from "./msm-wasm";

/** The slice of ffjavascript's groups used here. */
interface Group {
  zero: unknown;
  add(a: unknown, b: unknown): unknown;
  eq(a: unknown, b: unknown): boolean;
  fromRprLEM(b: Uint8Array, offset: number): unknown;
}

/** Deterministic scalars below 2^253. */
function scalars(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(32 * n);
  for (let i = 0; i < out.length; i++) out[i] = (i * 131 + seed * 17 + 7) & 0xff;
  for (let i = 31; i < out.length; i += 32) out[i]! &= 0x1f;
  return out;
}

describe("sharing MSM slices between this thread and the MSM thread", () => {
  const code = readFileSync(MSM_WASM);
  const s = readSections(new Uint8Array(readFileSync(DEFAULT_ARTIFACTS.zkeyPath)));
  // A small key: 2,000 B2 points (G2), 4,096 H points and 3,000 A points (G1), the witness for B2 and A.
  const described: { group: MsmGroup; points: Uint8Array; set: Omit<ShareSet, "finite"> }[] = [
    { group: "G2", points: s.get(7)!.subarray(0, 128 * 2000), set: { group: "G2", scalars: { witnessOffset: 0 } } },
    { group: "G1", points: s.get(9)!.subarray(0, 64 * 4096), set: { group: "G1", scalars: "h" } },
    { group: "G1", points: s.get(5)!.subarray(0, 64 * 3000), set: { group: "G1", scalars: { witnessOffset: 32 * 1000 } } },
  ];
  const witness = scalars(4000, 1);
  const h = scalars(4096, 2);
  let curve: Bn128Curve & { G1: Group; G2: Group };
  let call: SyncMsmCall;
  let here: MsmPoints[];
  let thread: MsmThread;
  let there: number[];

  beforeAll(async () => {
    curve = (await buildBn128(true)) as Bn128Curve & { G1: Group; G2: Group };
    call = await instantiateMsm(code);
    const msm = bnMsmHere(call);
    here = await Promise.all(described.map((d) => msm.load(d.group, d.points)));
    thread = startMsmThread(code);
    there = described.map((d) => thread.send(d.group, d.points).id);
  });

  afterAll(async () => {
    await thread?.terminate();
    await curve?.terminate();
  });

  const plan = (pieceCost: number): ReturnType<typeof planShare> =>
    planShare(
      described.map((d, i) => ({ ...d.set, finite: here[i]!.finite })),
      witness.byteLength,
      h.byteLength,
      pieceCost,
    );

  /** Each set's sum, added up from its slices. */
  const sums = (answers: Uint8Array[][]): unknown[] =>
    answers.map((parts, i) => {
      const G = described[i]!.group === "G1" ? curve.G1 : curve.G2;
      return parts.reduce((acc: unknown, p) => G.add(acc, G.fromRprLEM(p, 0)), G.zero);
    });

  it("cuts large sums into slices of about the cost asked, keeps them whole for one thread, and puts H's slices in a queue of their own", () => {
    const one = plan(Infinity);
    expect(one.pieces.map((p) => p.parts)).toEqual([1, 1, 1]);
    const cut = plan(1000);
    // B2's finite points at 4 units each (G2), H's 4,096 at 1.
    expect(cut.pieces.filter((p) => p.set === 0)).toHaveLength(Math.round((here[0]!.finite * 4) / 1000));
    expect(cut.pieces.filter((p) => p.set === 1)).toHaveLength(4);
    expect(cut.onH.every((i) => cut.pieces[i]!.set === 1)).toBe(true);
    expect(cut.onWitness.map((i) => cut.pieces[i]!.cost)).toEqual([...cut.onWitness.map((i) => cut.pieces[i]!.cost)].sort((a, b) => b - a));
  });

  it("gives the same sums whether this thread takes every slice or shares them with the MSM thread", async () => {
    const alone = newShareJob(plan(Infinity), witness);
    provideH(alone, h);
    expect(takePieces(call, here, alone)).toBe(3);
    const shared = newShareJob(plan(1000), witness);
    const far = thread.share(there, shared);
    provideH(shared, h);
    const mine = takePieces(call, here, shared);
    if (!jobDone(shared)) expect(await far.wait()).toBe(shared.plan.pieces.length - mine);
    expect(jobDone(shared)).toBe(true);
    const [a, b] = [sums(jobAnswers(alone)), sums(jobAnswers(shared))];
    a.forEach((x, i) => expect((described[i]!.group === "G1" ? curve.G1 : curve.G2).eq(x, b[i]), `set ${i}`).toBe(true));
    expect(jobAnswers(shared)[0]![0]).toHaveLength(POINT_BYTES.G2);
  });

  it("stops a thread waiting for the H scalars when the job is abandoned", async () => {
    const job = newShareJob(plan(1000), witness);
    const far = thread.share(there, job).wait();
    // The thread takes the witness slices, then waits for H, which never comes.
    abandonJob(job);
    await expect(far).rejects.toThrow(/abandoned/);
    expect(jobDone(job)).toBe(false);
  });

  it("finishes the job on this thread when the MSM thread dies holding a slice: same sums, and its wait rejects instead of hanging", async () => {
    const lost = startMsmThread(code);
    const ids = described.map((d) => lost.send(d.group, d.points).id);
    const job = newShareJob(plan(1000), witness);
    const far = lost.share(ids, job).wait();
    while (slicesTaken(job) === 0) await new Promise((r) => setTimeout(r, 1));
    await lost.terminate();
    await expect(far).rejects.toThrow(/terminated/);
    expect(jobDone(job)).toBe(false);
    provideH(job, h);
    const mine = takePieces(call, here, job);
    expect(mine + finishPieces(call, here, job, 5)).toBeGreaterThan(mine);
    expect(jobDone(job)).toBe(true);
    const alone = newShareJob(plan(Infinity), witness);
    provideH(alone, h);
    takePieces(call, here, alone);
    const [a, b] = [sums(jobAnswers(alone)), sums(jobAnswers(job))];
    a.forEach((x, i) => expect((described[i]!.group === "G1" ? curve.G1 : curve.G2).eq(x, b[i]), `set ${i}`).toBe(true));
    await expect(lost.share(ids, newShareJob(plan(1000), witness)).wait()).rejects.toThrow(/terminated/);
  });

  it("rejects the wait when the thread is asked for a set it never loaded", async () => {
    const other = newShareJob(plan(1000), witness);
    provideH(other, h);
    await expect(thread.share([99, 98, 97], other).wait()).rejects.toThrow(/not loaded/);
  });
});
