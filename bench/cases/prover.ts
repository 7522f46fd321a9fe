/**
 * Proving in the SDK (issue 29, target 2): our prover (src-client/sdk/fast-prover.ts)
 * against snarkjs `groth16.fullProve` on one thread, on the same witness input,
 * interleaved in the same run: as proveWithdrawal uses it by default (the
 * target line: MSMs shared with a thread where there is a second core) and
 * forced onto one thread. Every proof of ours is checked with snarkjs's verify and the
 * 256-byte wire codec before it counts. Witness, QAP/FFT and MSM times are
 * reported apart, and msm.c's five MSMs are timed against ffjavascript's
 * multiExpAffine (what snarkjs runs) on the same points and scalars.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { buildBn128 } from "ffjavascript";
import { decodeProof, encodeProof, fromSnarkjs, toSnarkjs } from "../../src-shared/zk/proof-codec";
import { FastProver, MSM_WASM, readSections, type ProofTimings } from "../../src-client/sdk/fast-prover";
import { startMsmThread } from "../../src-client/sdk/msm/msm-thread";
import { openBnMsm, type MsmGroup } from "../../src-client/sdk/msm/msm-wasm";
import { DEFAULT_ARTIFACTS, snarkjsProver } from "../../src-client/sdk/prove";
import { loadSnarkjs, withSingleThreadedCurve } from "../../src-client/sdk/snarkjs";
import type { BenchCase } from "../lib/bench-case";
import type { Metric } from "../lib/metric";
import { median } from "../lib/stats";
import { leafZeroWithdrawal } from "../lib/withdrawal-input";

/** The slice of ffjavascript's single-threaded engine timed here. */
interface FfGroup {
  multiExpAffine(points: Uint8Array, scalars: Uint8Array): Promise<unknown>;
}
type FfCurve = Awaited<ReturnType<typeof buildBn128>> & { G1: FfGroup; G2: FfGroup };

/**
 * msm.c against ffjavascript's multiExpAffine, one thread each, on the zkey's
 * five point sets: the witness for A, B1, B2 and C, and for H (whose scalars
 * come from the QAP) the witness values repeated, full-size field elements too.
 * Answers ms per set, ours and theirs (best of `reps`).
 */
async function msmPair(zkeyPath: string, witness: Uint8Array, reps: number): Promise<{ name: string; ours: number; theirs: number }[]> {
  const s = readSections(new Uint8Array(readFileSync(zkeyPath)));
  const nPublic = new DataView(s.get(2)!.buffer, s.get(2)!.byteOffset).getUint32(76, true);
  const hPoints = s.get(9)!;
  const hScalars = new Uint8Array((hPoints.byteLength / 64) * 32);
  for (let o = 0; o < hScalars.byteLength; o += witness.byteLength) hScalars.set(witness.subarray(0, Math.min(witness.byteLength, hScalars.byteLength - o)), o);
  const sets: { name: string; group: MsmGroup; points: Uint8Array; scalars: Uint8Array }[] = [
    { name: "A", group: "G1", points: s.get(5)!, scalars: witness },
    { name: "B1", group: "G1", points: s.get(6)!, scalars: witness },
    { name: "B2", group: "G2", points: s.get(7)!, scalars: witness },
    { name: "C", group: "G1", points: s.get(8)!, scalars: witness.subarray((nPublic + 1) * 32) },
    { name: "H", group: "G1", points: hPoints, scalars: hScalars },
  ];
  const ours = await openBnMsm(readFileSync(MSM_WASM));
  const curve = (await buildBn128(true)) as FfCurve;
  try {
    const out: { name: string; ours: number; theirs: number }[] = [];
    for (const set of sets) {
      const loaded = await ours.load(set.group, set.points);
      const g = set.group === "G1" ? curve.G1 : curve.G2;
      let best = [Infinity, Infinity];
      for (let r = 0; r < reps; r++) {
        let t0 = performance.now();
        await ours.multiExp(loaded, set.scalars);
        const a = performance.now() - t0;
        t0 = performance.now();
        await g.multiExpAffine(set.points, set.scalars);
        best = [Math.min(best[0]!, a), Math.min(best[1]!, performance.now() - t0)];
      }
      out.push({ name: set.name, ours: best[0]!, theirs: best[1]! });
    }
    return out;
  } finally {
    await curve.terminate();
  }
}

/**
 * A fresh process (node --import tsx) that proves `proofs` times with
 * `new FastProver(options)`: its first proof, its later proofs (median) and its
 * RSS after the last, so each prover pays its own first-proof costs in a
 * process of its own.
 */
function freshProcess(options: string, proofs: number): { firstMs: number; laterMs: number; rssMb: number } {
  const url = (p: string): string => JSON.stringify(new URL(`../../${p}`, import.meta.url).href);
  const code = `
    const { FastProver } = await import(${url("src-client/sdk/fast-prover.ts")});
    const { leafZeroWithdrawal } = await import(${url("bench/lib/withdrawal-input.ts")});
    const { DEFAULT_ARTIFACTS } = await import(${url("src-client/sdk/prove.ts")});
    const { input } = await leafZeroWithdrawal();
    const p = new FastProver(${options});
    const ms = [];
    for (let i = 0; i < ${proofs}; i++) {
      const t0 = performance.now();
      await p.prove(input, DEFAULT_ARTIFACTS.wasmPath, DEFAULT_ARTIFACTS.zkeyPath);
      ms.push(performance.now() - t0);
    }
    console.log(JSON.stringify({ ms, rss: process.memoryUsage().rss }));
    await p.close();`;
  const cwd = fileURLToPath(new URL("../..", import.meta.url));
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { cwd, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`the fresh prover process failed: ${run.stderr}`);
  const out = JSON.parse(run.stdout.trim().split("\n").pop()!) as { ms: number[]; rss: number };
  return { firstMs: out.ms[0]!, laterMs: median(out.ms.slice(1)), rssMb: out.rss / 2 ** 20 };
}

/** Time for an MSM thread to start and load a zkey's five point sets (what the default prover's first proof does not wait for). */
async function threadStart(zkeyPath: string): Promise<number> {
  const s = readSections(new Uint8Array(readFileSync(zkeyPath)));
  const t0 = performance.now();
  const thread = startMsmThread(readFileSync(MSM_WASM));
  try {
    const sent = (
      [
        [7, "G2"],
        [9, "G1"],
        [5, "G1"],
        [8, "G1"],
        [6, "G1"],
      ] as const
    ).map(([t, g]) => thread.send(g, s.get(t)!).loaded());
    await Promise.all(sent);
    return performance.now() - t0;
  } finally {
    await thread.terminate();
  }
}

const proverCase: BenchCase = {
  name: "prover",
  title:
    "proving a withdrawal: the SDK's default prover (msm.c, MSMs shared with a thread where there is a second core) and one thread, vs snarkjs fullProve (single-threaded)",
  async run({ quick, log }) {
    const reps = quick ? 1 : 3;
    const { input, publicSignals } = await leafZeroWithdrawal();
    const { wasmPath, zkeyPath, vkeyPath } = DEFAULT_ARTIFACTS;
    const vkey = JSON.parse(readFileSync(vkeyPath, "utf8")) as object;
    const groth16 = await loadSnarkjs();

    // proveWithdrawal's default is fastProver, a shared `new FastProver()`: the same options as this one.
    const sdkDefault = new FastProver();
    const single = new FastProver({ threads: false });
    const checked = async (p: FastProver): Promise<{ ms: number; timings: ProofTimings }> => {
      const t0 = performance.now();
      const out = await p.prove(input, wasmPath, zkeyPath);
      const ms = performance.now() - t0;
      const wire = encodeProof(fromSnarkjs(out.proof));
      const decoded = decodeProof(wire);
      if (wire.length !== 256 || !decoded.ok) throw new Error("our proof does not fit the 256-byte wire form");
      const ok = await withSingleThreadedCurve(() => groth16.verify(vkey, out.publicSignals, toSnarkjs(decoded.value)));
      if (!ok || out.publicSignals.join() !== publicSignals.join()) throw new Error("our proof does not verify with snarkjs");
      return { ms, timings: out.timings };
    };
    const snark = async (): Promise<number> => {
      const t0 = performance.now();
      await snarkjsProver(input, wasmPath, zkeyPath);
      return performance.now() - t0;
    };

    try {
      log("first proofs, each prover in a fresh process of its own");
      const freshDefault = freshProcess("", 3);
      const freshSingle = freshProcess("{ threads: false }", 3);
      const started = await threadStart(zkeyPath);
      await checked(sdkDefault);
      await checked(sdkDefault); // its thread has its points by now
      await checked(single);
      const peer: number[] = [];
      const ours: { ms: number; timings: ProofTimings }[] = [];
      const oursSingle: { ms: number; timings: ProofTimings }[] = [];
      await snark(); // its own first-call costs (module load) out of the figures
      for (let r = 0; r < reps; r++) {
        log(`round ${r + 1}/${reps}`);
        peer.push(await snark());
        ours.push(await checked(sdkDefault));
        oursSingle.push(await checked(single));
      }
      log("the five MSMs: msm.c against ffjavascript's multiExpAffine");
      const msms = await msmPair(zkeyPath, await single.witness(input, wasmPath), reps);
      const ms = (runs: { ms: number }[]): number => median(runs.map((o) => o.ms));
      const med = (runs: { timings: ProofTimings }[], f: (t: ProofTimings) => number): number => median(runs.map((o) => f(o.timings)));
      const phases = (runs: { timings: ProofTimings }[]): string =>
        `witness ${med(runs, (t) => t.witnessMs).toFixed(0)} ms, proof ${med(runs, (t) => t.proofMs).toFixed(0)} ms (QAP/FFT ${med(runs, (t) => t.qapMs).toFixed(0)} ms, ` +
        `MSMs ${med(runs, (t) => t.msmMs).toFixed(0)} ms in ${runs[0]!.timings.slices} slices, ${med(runs, (t) => t.slicesOnThread)} on the thread)`;
      const sum = (f: (m: { ours: number; theirs: number }) => number): number => msms.reduce((acc, m) => acc + f(m), 0);
      const cores = availableParallelism();
      const metrics: Metric[] = [
        {
          name: "proving one withdrawal in the SDK (witness + proof, proveWithdrawal's default prover)",
          ours: ms(ours),
          unit: "ms",
          peerLabel: "snarkjs fullProve single-threaded",
          peer: median(peer),
          better: "lower",
          target: { kind: "ratio<=", value: 1 / 3 },
          detail:
            `median of ${reps}, interleaved; every proof verified by snarkjs; speed-up ${(median(peer) / ms(ours)).toFixed(2)}x, target >= 3x; ` +
            `${cores} cores available, so ${ours[0]!.timings.slices > 5 ? "MSMs shared with a thread" : "one thread"}; ${phases(ours)}`,
        },
        {
          name: "  same, our prover forced onto one thread (threads: false)",
          ours: ms(oursSingle),
          unit: "ms",
          peerLabel: "snarkjs fullProve single-threaded",
          peer: median(peer),
          better: "lower",
          target: null,
          detail: `speed-up ${(median(peer) / ms(oursSingle)).toFixed(2)}x; ${phases(oursSingle)}`,
        },
        {
          name: "  the five MSMs, one thread each: msm.c vs ffjavascript multiExpAffine (snarkjs's), same points and scalars",
          ours: sum((m) => m.ours),
          unit: "ms",
          peerLabel: "ffjavascript",
          peer: sum((m) => m.theirs),
          better: "lower",
          target: null,
          detail: `best of ${reps}; ${msms.map((m) => `${m.name} ${m.ours.toFixed(0)}/${m.theirs.toFixed(0)}`).join(", ")} ms; speed-up ${(sum((m) => m.theirs) / sum((m) => m.ours)).toFixed(2)}x`,
        },
        {
          name: "  first proof in a fresh process, default prover (loads engine, zkey, witness wasm, MSM module and points; starts the thread)",
          ours: freshDefault.firstMs,
          unit: "ms",
          peerLabel: "one thread",
          peer: freshSingle.firstMs,
          better: "lower",
          target: null,
          detail:
            `then ${freshDefault.laterMs.toFixed(0)} ms a proof (one thread ${freshSingle.laterMs.toFixed(0)} ms); ` +
            `a thread's start and points load take ${started.toFixed(0)} ms, which the first proof does not wait for`,
        },
        {
          name: "  RSS of a process that proved 3 times, default prover",
          ours: freshDefault.rssMb,
          unit: "MB",
          peerLabel: "one thread",
          peer: freshSingle.rssMb,
          better: "lower",
          target: null,
          detail: "the thread's own isolate, tsx's loader in it (from sources) and its copy of the points",
        },
      ];
      return { metrics, notes: [] };
    } finally {
      await sdkDefault.close();
      await single.close();
    }
  },
};

export default proverCase;
