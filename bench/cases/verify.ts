/**
 * Groth16 verification of a withdraw proof (5 public inputs), warm, per proof:
 * our mcl verifier (src-server/adapters/verifier-groth16) on one thread vs
 * snarkjs.groth16.verify single-threaded (ffjavascript buildBn128(true)), the
 * two interleaved in the same process; then the worker pool's throughput.
 *
 * Registered in bench/cases/index.ts as "verify"; also runnable alone:
 *   npx tsx bench/cases/verify.ts [--quick]
 */
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Groth16MclVerifier } from "../../src-server/adapters/verifier-groth16/groth16-mcl";
import { loadFixtures, readVkey, releaseSnarkjs, snarkjs, useSingleThreadedSnarkjs, VKEY_PATH } from "../../tests/support/groth16/fixtures";
import { Groth16WorkerPool } from "../../src-server/adapters/verifier-groth16/worker-pool";
import type { CaseResult, Metric } from "../lib/metric";
import { fmtNum, median, rate } from "../lib/stats";
import type { BenchCase } from "../lib/bench-case";

const verify: BenchCase = {
  name: "verify",
  title: "Groth16 proof verification",
  async run({ quick, log }): Promise<CaseResult> {
    const reps = quick ? 3 : 7;
    const oursN = quick ? 30 : 100;
    const theirsN = quick ? 10 : 40;
    const poolN = quick ? 60 : 300;
    const fixtures = loadFixtures();
    const vkey = readVkey();
    const curve = await useSingleThreadedSnarkjs();
    try {
      const ours = await Groth16MclVerifier.fromFile(VKEY_PATH);
      // Same answers, or the comparison means nothing.
      for (const f of fixtures) {
        const theirs = await snarkjs.groth16.verify(vkey, f.snarkjsSignals, f.snarkjsProof);
        if (!ours.verify(f.proof, f.signals) || !theirs) throw new Error(`${f.label}: a verifier rejects a valid proof`);
      }
      const runOurs = (): number => {
        const t = performance.now();
        for (let i = 0; i < oursN; i++) {
          const f = fixtures[i % fixtures.length]!;
          if (!ours.verify(f.proof, f.signals)) throw new Error("ours rejected a valid proof");
        }
        return (performance.now() - t) / oursN;
      };
      const runTheirs = async (): Promise<number> => {
        const t = performance.now();
        for (let i = 0; i < theirsN; i++) {
          const f = fixtures[i % fixtures.length]!;
          if (!(await snarkjs.groth16.verify(vkey, f.snarkjsSignals, f.snarkjsProof))) throw new Error("snarkjs rejected a valid proof");
        }
        return (performance.now() - t) / theirsN;
      };
      log(`warm-up, then ${reps} interleaved repetitions (${oursN} proofs ours, ${theirsN} snarkjs)`);
      runOurs();
      await runTheirs();
      const tOurs: number[] = [];
      const tTheirs: number[] = [];
      for (let r = 0; r < reps; r++) {
        tOurs.push(runOurs());
        tTheirs.push(await runTheirs());
      }
      ours.close();
      const msOurs = median(tOurs);
      const msTheirs = median(tTheirs);

      // Pool throughput: all cores, then the default size (cores − 1).
      const poolRate = async (threads: number): Promise<number> => {
        const pool = await Groth16WorkerPool.start(VKEY_PATH, { threads, maxQueue: poolN });
        try {
          const once = async (): Promise<number> => {
            const t = performance.now();
            const res = await Promise.all(Array.from({ length: poolN }, (_, i) => pool.verify(fixtures[i % 3]!.proof, fixtures[i % 3]!.signals)));
            if (!res.every(Boolean)) throw new Error("pool rejected a valid proof");
            return rate(poolN, performance.now() - t);
          };
          await once();
          return median([await once(), await once(), await once()]);
        } finally {
          await pool.close();
        }
      };
      const cores = availableParallelism();
      log(`pool throughput with ${cores} and ${Math.max(1, cores - 1)} workers, ${poolN} concurrent valid proofs`);
      const allCores = await poolRate(cores);
      const defaultSize = Math.max(1, cores - 1);
      const defaultRate = defaultSize === cores ? allCores : await poolRate(defaultSize);

      const snarkjsRate = 1000 / msTheirs;
      const metrics: Metric[] = [
        {
          name: "verify, one thread",
          ours: 1000 / msOurs,
          unit: "proofs/s",
          peerLabel: "snarkjs 1 thread",
          peer: snarkjsRate,
          better: "higher",
          target: { kind: "ratio>=", value: 2.0 },
          detail: `${fmtNum(msOurs, 2)} ms vs ${fmtNum(msTheirs, 2)} ms per proof, median of ${reps}`,
        },
        {
          name: `verify, pool of ${cores} workers`,
          ours: allCores,
          unit: "proofs/s",
          peerLabel: "snarkjs 1 thread",
          peer: snarkjsRate,
          better: "higher",
          target: null,
          detail: `${poolN} concurrent valid proofs, median of 3`,
        },
      ];
      const spread = (xs: number[]): string => `${fmtNum(Math.min(...xs), 2)}..${fmtNum(Math.max(...xs), 2)} ms`;
      return {
        metrics,
        notes: [
          `per proof: ours ${fmtNum(msOurs, 2)} ms (spread ${spread(tOurs)}), snarkjs single-threaded ${fmtNum(msTheirs, 2)} ms (spread ${spread(tTheirs)})`,
          `default pool size (${defaultSize} worker${defaultSize > 1 ? "s" : ""}): ${fmtNum(defaultRate)} proofs/s`,
          `ours includes the G2 subgroup check of B and the curve checks of A and C; snarkjs checks curves only`,
        ],
      };
    } finally {
      await releaseSnarkjs(curve);
    }
  },
};

export default verify;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { formatMetric } = await import("../lib/metric");
  const result = await verify.run({ quick: process.argv.includes("--quick"), log: (m) => console.error(`  [verify] ${m}`) });
  for (const m of result.metrics) console.log(formatMetric(m));
  for (const n of result.notes) console.log(`  - ${n}`);
}
