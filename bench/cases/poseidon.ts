import { createFastPoseidonHasher } from "../../src-server/adapters/poseidon-fast/fast-hasher";
import { makeLeaves, toDecimal } from "../lib/data";
import type { Metric } from "../lib/metric";
import { circomPoseidon } from "../lib/peer";
import { fmtNum, median, rate, timeSyncMs } from "../lib/stats";
import type { BenchCase } from "../lib/bench-case";

/** The wasm exports circomlibjs uses internally: its bare permutation, for a diagnostic line. */
interface WasmInternals {
  F: { tm: { alloc(n: number): number; instance: { exports: { poseidon(s: number, i: number, n: number, o: number, k: number): void } } } };
}

const poseidon: BenchCase = {
  name: "poseidon",
  title: "Poseidon hashes/s",
  async run({ quick, log }) {
    const N = quick ? 3_000 : 10_000;
    const reps = quick ? 3 : 5;
    // Ours: the relay's hasher (composition/storage.ts), poseidon.c's wasm for 2 and 3 inputs.
    const hasher = await createFastPoseidonHasher();
    const circom = await circomPoseidon();
    const F = circom.F;

    // N distinct pairs, in each implementation's native form.
    const pairs = makeLeaves(2 * N, 3);
    const a = Array.from({ length: N }, (_, i) => pairs.subarray(64 * i, 64 * i + 32));
    const b = Array.from({ length: N }, (_, i) => pairs.subarray(64 * i + 32, 64 * i + 64));
    const c = Array.from({ length: N }, (_, i) => pairs.subarray(64 * ((i + 1) % N), 64 * ((i + 1) % N) + 32));
    const A = a.map((x) => BigInt(toDecimal(x)));
    const B = b.map((x) => BigInt(toDecimal(x)));
    const Cs = c.map((x) => BigInt(toDecimal(x)));
    const out = new Uint8Array(32 * N);

    // Same answers, or the comparison means nothing.
    for (let i = 0; i < 3; i++) {
      const ours = BigInt(toDecimal(hasher.hash([a[i]!, b[i]!])));
      const theirs = F.toObject(circom([A[i]!, B[i]!]));
      if (ours !== theirs) throw new Error(`hash mismatch at pair ${i}: ${ours} != ${theirs}`);
      const ours3 = BigInt(toDecimal(hasher.hash([a[i]!, b[i]!, c[i]!])));
      const theirs3 = F.toObject(circom([A[i]!, B[i]!, Cs[i]!]));
      if (ours3 !== theirs3) throw new Error(`3-input hash mismatch at ${i}: ${ours3} != ${theirs3}`);
    }

    let sink = 0;
    const runHash = (): number =>
      timeSyncMs(() => {
        for (let i = 0; i < N; i++) sink ^= hasher.hash([a[i]!, b[i]!])[31]!;
      });
    const runPairs = (): number => timeSyncMs(() => hasher.hashPairs(pairs, N, out, 0));
    const runCircom = (): number =>
      timeSyncMs(() => {
        for (let i = 0; i < N; i++) sink ^= Number(F.toObject(circom([A[i]!, B[i]!])) & 1n);
      });
    // The deposit leaf's 3-input hash: a diagnostic line, no target.
    const runHash3 = (): number =>
      timeSyncMs(() => {
        for (let i = 0; i < N; i++) sink ^= hasher.hash([a[i]!, b[i]!, c[i]!])[31]!;
      });
    const runCircom3 = (): number =>
      timeSyncMs(() => {
        for (let i = 0; i < N; i++) sink ^= Number(F.toObject(circom([A[i]!, B[i]!, Cs[i]!])) & 1n);
      });
    const wasm = (circom as unknown as WasmInternals).F.tm;
    const pS = wasm.alloc(32);
    const pI = wasm.alloc(64);
    const pO = wasm.alloc(32);
    const runRaw = (): number =>
      timeSyncMs(() => {
        for (let i = 0; i < N; i++) wasm.instance.exports.poseidon(pS, pI, 2, pO, 1);
      });

    log(`warm-up, then ${reps} interleaved repetitions of ${N} hashes each`);
    runHash();
    runPairs();
    runCircom();
    runRaw();
    runHash3();
    runCircom3();
    const t = { hash: [] as number[], pairs: [] as number[], circom: [] as number[], raw: [] as number[], hash3: [] as number[], circom3: [] as number[] };
    for (let r = 0; r < reps; r++) {
      t.hash.push(rate(N, runHash()));
      t.circom.push(rate(N, runCircom()));
      t.pairs.push(rate(N, runPairs()));
      t.raw.push(rate(N, runRaw()));
      t.hash3.push(rate(N, runHash3()));
      t.circom3.push(rate(N, runCircom3()));
    }
    if (sink === -1) log("unreachable");
    const circomRate = median(t.circom);
    const detail = `median of ${reps} x ${fmtNum(N)} hashes`;
    const metrics: Metric[] = [
      {
        name: "poseidon hash([a,b])",
        ours: median(t.hash),
        unit: "h/s",
        peerLabel: "circomlibjs",
        peer: circomRate,
        better: "higher",
        target: { kind: "ratio>=", value: 1.0 },
        detail,
      },
      {
        name: "poseidon hashPairs (batch)",
        ours: median(t.pairs),
        unit: "h/s",
        peerLabel: "circomlibjs",
        peer: circomRate,
        better: "higher",
        target: { kind: "ratio>=", value: 1.0 },
        detail,
      },
    ];
    const spread = (xs: number[]): string => `${fmtNum(Math.min(...xs))}..${fmtNum(Math.max(...xs))}`;
    return {
      metrics,
      notes: [
        `peer: circomlibjs buildPoseidon(), F.toObject(poseidon([a, b])) on bigints; outputs checked equal`,
        `ours: the relay's hasher (src-server/adapters/poseidon-fast: poseidon.c in wasm on the wire bytes)`,
        `diagnostic: circomlibjs's bare wasm permutation (no conversions at all) runs at ${fmtNum(median(t.raw))} h/s`,
        `diagnostic: 3-input hash([a,b,c]) ours ${fmtNum(median(t.hash3))} h/s, circomlibjs ${fmtNum(median(t.circom3))} h/s (${(median(t.hash3) / median(t.circom3)).toFixed(2)}x)`,
        `spread (min..max h/s): hash ${spread(t.hash)}, hashPairs ${spread(t.pairs)}, circomlibjs ${spread(t.circom)}`,
      ],
    };
  },
};

export default poseidon;
