/**
 * Proving in the SDK (issue 29, target 2): our prover (src-client/sdk/fast-prover.ts)
 * against snarkjs `groth16.fullProve` on one thread, on the same witness input,
 * interleaved in the same run. Every proof of ours is checked with snarkjs's
 * verify and the 256-byte wire codec before it counts. Witness and proof
 * (QAP + MSMs) times are reported apart.
 */
import { readFileSync } from "node:fs";
import { decodeProof, encodeProof, fromSnarkjs, toSnarkjs } from "../../src-shared/zk/proof-codec";
import { FastProver, type ProofTimings } from "../../src-client/sdk/fast-prover";
import { DEFAULT_ARTIFACTS, snarkjsProver } from "../../src-client/sdk/prove";
import { loadSnarkjs, withSingleThreadedCurve } from "../../src-client/sdk/snarkjs";
import type { BenchCase } from "../lib/bench-case";
import type { Metric } from "../lib/metric";
import { median } from "../lib/stats";
import { leafZeroWithdrawal } from "../lib/withdrawal-input";

const proverCase: BenchCase = {
  name: "prover",
  title: "proving a withdrawal: our prover vs snarkjs fullProve (single-threaded)",
  async run({ quick, log }) {
    const reps = quick ? 1 : 3;
    const { input, publicSignals } = await leafZeroWithdrawal();
    const { wasmPath, zkeyPath, vkeyPath } = DEFAULT_ARTIFACTS;
    const vkey = JSON.parse(readFileSync(vkeyPath, "utf8")) as object;
    const groth16 = await loadSnarkjs();

    const threaded = new FastProver({ threads: true });
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
      log("first proofs (ours: engine, zkey and witness calculator loaded by this call)");
      const coldSingle = (await checked(single)).ms;
      const coldThreaded = (await checked(threaded)).ms;
      const peer: number[] = [];
      const ours: { ms: number; timings: ProofTimings }[] = [];
      const oursThreaded: number[] = [];
      await snark(); // its own first-call costs (module load) out of the figures
      for (let r = 0; r < reps; r++) {
        log(`round ${r + 1}/${reps}`);
        peer.push(await snark());
        ours.push(await checked(single));
        oursThreaded.push((await checked(threaded)).ms);
      }
      const med = (f: (t: ProofTimings) => number): number => median(ours.map((o) => f(o.timings)));
      const metrics: Metric[] = [
        {
          name: "proving one withdrawal in the SDK (witness + proof, the SDK's default prover, one thread)",
          ours: median(ours.map((o) => o.ms)),
          unit: "ms",
          peerLabel: "snarkjs fullProve single-threaded",
          peer: median(peer),
          better: "lower",
          target: { kind: "ratio<=", value: 1 / 3 },
          detail: `median of ${reps}, interleaved; every proof verified by snarkjs; speed-up ${(median(peer) / median(ours.map((o) => o.ms))).toFixed(2)}x, target >= 3x`,
        },
        {
          name: "  same, our prover with a worker thread per core",
          ours: median(oursThreaded),
          unit: "ms",
          peerLabel: "snarkjs fullProve single-threaded",
          peer: median(peer),
          better: "lower",
          target: null,
          detail: `speed-up ${(median(peer) / median(oursThreaded)).toFixed(2)}x`,
        },
        { name: "  witness (circom wasm)", ours: med((t) => t.witnessMs), unit: "ms", peerLabel: "", peer: null, better: "lower", target: null },
        {
          name: "  proof from the witness (QAP + 5 MSMs)",
          ours: med((t) => t.proofMs),
          unit: "ms",
          peerLabel: "",
          peer: null,
          better: "lower",
          target: null,
          detail: `QAP/FFT ${med((t) => t.qapMs).toFixed(0)} ms, MSMs ${med((t) => t.msmMs).toFixed(0)} ms`,
        },
        {
          name: "  first proof in a process (loads engine, zkey, witness wasm)",
          ours: coldSingle,
          unit: "ms",
          peerLabel: "",
          peer: null,
          better: "lower",
          target: null,
          detail: `with worker threads ${coldThreaded.toFixed(0)} ms`,
        },
      ];
      return { metrics, notes: [] };
    } finally {
      await threaded.close();
      await single.close();
    }
  },
};

export default proverCase;
