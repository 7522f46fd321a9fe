import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildBn128, type Bn128Curve } from "ffjavascript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIELD_MODULUS as R } from "../../../src-shared/encoding/field";
import { haveWasmToolchain } from "../../../tools/poseidon/build-wasm";
import { compileMsm } from "../../../tools/msm/build-wasm";
import { MSM_WASM, readSections } from "../fast-prover";
import { DEFAULT_ARTIFACTS } from "../prove";
import { startMsmThread } from "./msm-thread";
import { openBnMsm, POINT_BYTES, type BnMsm, type MsmGroup } from "./msm-wasm";

/** The slice of ffjavascript's G1 and G2 used here (its points are opaque buffers). */
interface Group {
  multiExpAffine(points: Uint8Array, scalars: Uint8Array): Promise<unknown>;
  toAffine(p: unknown): unknown;
  isZero(p: unknown): boolean;
  eq(a: unknown, b: unknown): boolean;
  neg(p: unknown): unknown;
  fromRprLEM(b: Uint8Array, offset: number): unknown;
  toRprLEM(b: Uint8Array, offset: number, p: unknown): void;
  add(a: unknown, b: unknown): unknown;
}
/** The slice of ffjavascript's Fr used by the QAP reference below (elements are 32-byte Montgomery buffers). */
interface ScalarField {
  s: number;
  shift: Uint8Array;
  w: Uint8Array[];
  e(v: number): Uint8Array;
  fft(v: Uint8Array): Promise<Uint8Array>;
  ifft(v: Uint8Array): Promise<Uint8Array>;
  batchApplyKey(v: Uint8Array, first: Uint8Array, inc: Uint8Array): Promise<Uint8Array>;
}
type Curve = Bn128Curve & {
  G1: Group;
  G2: Group;
  Fr: ScalarField;
  tm: { queueAction(task: unknown[]): Promise<Uint8Array[]> };
};

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

const le32 = (v: bigint): Uint8Array => {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number((v >> BigInt(8 * i)) & 0xffn);
  return out;
};

/** n scalars below r drawn from a seed (a failure reproduces), with `edges` written over the first ones. */
function scalars(n: number, seed: number, edges: bigint[] = []): Uint8Array {
  const out = new Uint8Array(32 * n);
  for (let i = 0; i < n; i++) {
    const v = BigInt(`0x${createHash("sha512").update(`${seed}:${i}`).digest("hex")}`) % R;
    out.set(le32(i < edges.length ? edges[i]! : v), 32 * i);
  }
  return out;
}

describe("BN254 MSM (msm.c in wasm)", () => {
  let curve: Curve;
  let msm: BnMsm;
  let g1: Uint8Array;
  let g2: Uint8Array;
  let sections: Map<number, Uint8Array>;

  beforeAll(async () => {
    curve = (await buildBn128(true)) as Curve;
    msm = await openBnMsm(readFileSync(MSM_WASM));
    // The zkey's point sections: real points of both groups, with the zeros (infinity) the B sections carry.
    const s = readSections(new Uint8Array(readFileSync(DEFAULT_ARTIFACTS.zkeyPath)));
    sections = s;
    g1 = s.get(9)!; // H: 16,384 finite G1 points
    g2 = s.get(7)!; // B2: G2 points, a third of them zero
  });

  afterAll(async () => {
    await curve?.terminate();
  });

  /** Ours against ffjavascript's multiExpAffine on the same bytes. */
  async function expectSame(group: MsmGroup, points: Uint8Array, sc: Uint8Array, windowBits = 0): Promise<void> {
    const G = group === "G1" ? curve.G1 : curve.G2;
    const set = await msm.load(group, points);
    const ours = await msm.multiExp(set, sc, windowBits);
    expect(ours).toHaveLength(POINT_BYTES[group]);
    const ref = G.toAffine(await G.multiExpAffine(points, sc));
    const label = `${group}, ${set.count} points, window ${windowBits}`;
    if (G.isZero(ref))
      expect(
        ours.every((b) => b === 0),
        label,
      ).toBe(true);
    else expect(G.eq(G.fromRprLEM(ours, 0), ref), label).toBe(true);
  }

  // CI installs clang and lld, so there a missing toolchain is a failure, not a skip.
  it.skipIf(!haveWasmToolchain() && !process.env.CI)("ships the wasm that clang builds from msm.c today, byte for byte (reproducible build)", () => {
    expect(haveWasmToolchain(), "clang and wasm-ld are needed to rebuild the MSM module").toBe(true);
    const dir = mkdtempSync(path.join(os.tmpdir(), "msm-"));
    try {
      const out = path.join(dir, "msm-bn254.wasm");
      compileMsm(out);
      expect(hex(readFileSync(out)) === hex(readFileSync(MSM_WASM)), "rebuild: npm run gen:msm").toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("sums 1 to 300 random G1 and G2 terms as ffjavascript does, with 0, 1, r-1 and 2^256-1 among the scalars", async () => {
    for (const n of [1, 2, 3, 5, 17, 64, 300]) {
      const sc = scalars(n, n, n > 4 ? [0n, 1n, R - 1n, (1n << 256n) - 1n] : []);
      await expectSame("G1", g1.subarray(0, 64 * n), sc);
      await expectSame("G2", g2.subarray(0, 128 * n), sc);
    }
  });

  it("sums the zkey's 16,384 H points (G1) and 9,529 B2 points (G2, 3,162 at infinity) as ffjavascript does", async () => {
    await expectSame("G1", g1, scalars(16384, 99));
    const set = await msm.load("G2", g2);
    expect(set.count - set.finite).toBe(3162);
    await expectSame("G2", g2, scalars(g2.byteLength / 128, 98));
  });

  it("gives the same sum for every window width, including 1 and 15", async () => {
    const n = 700;
    const sc = scalars(n, 7, [R - 1n, 1n]);
    for (const w of [1, 2, 5, 8, 10, 13, 15]) await expectSame("G1", g1.subarray(0, 64 * n), sc, w);
    for (const w of [1, 6, 11]) await expectSame("G2", g2.subarray(0, 128 * 200), sc.subarray(0, 32 * 200), w);
  });

  it("splits a sum by its windows: 2, 3, 7 and 40 parts (more parts than windows) add up to the whole, in G1 and G2", async () => {
    for (const [group, points] of [
      ["G1", g1.subarray(0, 64 * 3000)],
      ["G2", g2.subarray(0, 128 * 1000)],
    ] as const) {
      const G = group === "G1" ? curve.G1 : curve.G2;
      const set = await msm.load(group, points);
      const sc = scalars(set.count, 31, [R - 1n, 1n, (1n << 256n) - 1n]);
      const whole = await msm.multiExp(set, sc);
      for (const parts of [2, 3, 7, 40]) {
        let sum = G.fromRprLEM(new Uint8Array(POINT_BYTES[group]), 0);
        for (let part = 0; part < parts; part++) sum = G.add(sum, G.fromRprLEM(await msm.multiExp(set, sc, 0, { part, parts }), 0));
        expect(G.eq(sum, G.fromRprLEM(whole, 0)), `${group} in ${parts} parts`).toBe(true);
      }
      await expect(msm.multiExp(set, sc, 0, { part: 2, parts: 2 })).rejects.toThrow(RangeError);
    }
  });

  it("adds repeated points and points with their negation (doublings and cancellations in the buckets)", async () => {
    const G = curve.G1;
    const p = g1.subarray(0, 64);
    const q = g1.subarray(64, 128);
    const neg = new Uint8Array(64);
    G.toRprLEM(neg, 0, G.neg(G.fromRprLEM(p, 0)));
    // p 40 times, -p 20 times, q 40 times: equal scalars land in one bucket.
    const parts = [...Array<Uint8Array>(40).fill(p), ...Array<Uint8Array>(20).fill(neg), ...Array<Uint8Array>(40).fill(q)];
    const points = new Uint8Array(64 * parts.length);
    parts.forEach((x, i) => points.set(x, 64 * i));
    const same = new Uint8Array(32 * parts.length);
    for (let i = 0; i < parts.length; i++) same.set(le32(BigInt(1 + (i % 3))), 32 * i);
    await expectSame("G1", points, same);
    await expectSame("G1", points, scalars(parts.length, 3));
    // p·k + (-p)·k for every pair: the sum is infinity.
    const cancel = new Uint8Array(64 * 40);
    for (let i = 0; i < 20; i++) {
      cancel.set(p, 128 * i);
      cancel.set(neg, 128 * i + 64);
    }
    const pairScalars = scalars(40, 5);
    for (let i = 0; i < 20; i++) pairScalars.set(pairScalars.subarray(64 * i, 64 * i + 32), 64 * i + 32);
    const set = await msm.load("G1", cancel);
    expect((await msm.multiExp(set, pairScalars)).every((b) => b === 0)).toBe(true);
    await expectSame("G1", cancel, pairScalars);
  });

  it("answers zeros (infinity) for no points, all-zero scalars, and points all at infinity", async () => {
    for (const g of ["G1", "G2"] as const)
      expect((await msm.multiExp(await msm.load(g, new Uint8Array(0)), new Uint8Array(0))).every((b) => b === 0)).toBe(true);
    await expectSame("G1", g1.subarray(0, 64 * 50), new Uint8Array(32 * 50));
    const zeros = await msm.load("G1", new Uint8Array(64 * 10));
    expect(zeros.finite).toBe(0);
    expect((await msm.multiExp(zeros, scalars(10, 1))).every((b) => b === 0)).toBe(true);
  });

  it("refuses scalars of the wrong length, points of the wrong size and out-of-range windows", async () => {
    const set = await msm.load("G1", g1.subarray(0, 64 * 4));
    await expect(msm.multiExp(set, new Uint8Array(32 * 3))).rejects.toThrow(RangeError);
    await expect(msm.multiExp(set, new Uint8Array(32 * 4), 16)).rejects.toThrow(RangeError);
    await expect(msm.load("G2", g2.subarray(0, 100))).rejects.toThrow(RangeError);
  });

  it("answers the same sums from a worker thread (msm-thread.ts), and errors from the module as rejections", async () => {
    const thread = startMsmThread(readFileSync(MSM_WASM));
    try {
      const sc = scalars(500, 11, [R - 1n, 0n, 1n]);
      const [here, there] = [msm, thread].map(async (m) => {
        const [p1, p2] = await Promise.all([m.load("G1", g1.subarray(0, 64 * 500)), m.load("G2", g2.subarray(0, 128 * 500))]);
        return hex(await m.multiExp(p1, sc)) + hex(await m.multiExp(p2, sc));
      });
      expect(await there).toBe(await here);
      await expect(thread.multiExp({ group: "G1", count: 1, finite: 1, handle: 0x7fffffff }, new Uint8Array(32))).rejects.toThrow();
    } finally {
      await thread.terminate();
    }
  });

  it("computes the H scalars snarkjs computes (qap_buildABC, ifft, coset shift, fft, qap_joinABC in ffjavascript), byte for byte", async () => {
    const { Fr } = curve;
    const header = sections.get(2)!;
    const hv = new DataView(header.buffer, header.byteOffset, header.byteLength);
    const nVars = hv.getUint32(72, true);
    const n = hv.getUint32(80, true);
    const power = Math.log2(n);
    const coeffs = sections.get(4)!.subarray(4);
    const nCoef = coeffs.byteLength / 44;
    const shift = power === Fr.s ? Fr.shift : Fr.w[power + 1]!;
    const qap = await msm.loadQap(coeffs, n, Fr.w[power]!, shift);
    // Any witness will do: h is computed the same way whether or not it satisfies the circuit.
    for (const witness of [scalars(nVars, 21, [1n, 0n, R - 1n]), new Uint8Array(32 * nVars)]) {
      const [a, b, c] = await curve.tm.queueAction([
        { cmd: "ALLOCSET", var: 0, buff: coeffs },
        { cmd: "ALLOCSET", var: 1, buff: witness },
        { cmd: "ALLOC", var: 2, len: n * 32 },
        { cmd: "ALLOC", var: 3, len: n * 32 },
        { cmd: "ALLOC", var: 4, len: n * 32 },
        {
          cmd: "CALL",
          fnName: "qap_buildABC",
          params: [{ var: 0 }, { val: nCoef }, { var: 1 }, { var: 2 }, { var: 3 }, { var: 4 }, { val: 0 }, { val: n }, { val: 0 }, { val: nVars }],
        },
        { cmd: "GET", out: 0, var: 2, len: n * 32 },
        { cmd: "GET", out: 1, var: 3, len: n * 32 },
        { cmd: "GET", out: 2, var: 4, len: n * 32 },
      ]);
      const odd = async (v: Uint8Array): Promise<Uint8Array> => Fr.fft(await Fr.batchApplyKey(await Fr.ifft(v), Fr.e(1), shift));
      const [ao, bo, co] = await Promise.all([odd(a!), odd(b!), odd(c!)]);
      const [expected] = await curve.tm.queueAction([
        { cmd: "ALLOCSET", var: 0, buff: ao },
        { cmd: "ALLOCSET", var: 1, buff: bo },
        { cmd: "ALLOCSET", var: 2, buff: co },
        { cmd: "ALLOC", var: 3, len: n * 32 },
        { cmd: "CALL", fnName: "qap_joinABC", params: [{ var: 0 }, { var: 1 }, { var: 2 }, { val: n }, { var: 3 }] },
        { cmd: "CALL", fnName: "frm_batchFromMontgomery", params: [{ var: 3 }, { val: n }, { var: 3 }] },
        { cmd: "GET", out: 0, var: 3, len: n * 32 },
      ]);
      expect(hex(await msm.qapH(qap, witness)) === hex(expected!)).toBe(true);
    }
    await expect(msm.qapH(qap, new Uint8Array(32 * 3))).rejects.toThrow(RangeError);
    await expect(msm.loadQap(coeffs, n, Fr.w[power + 1]!, shift)).rejects.toThrow(/primitive/);
  });
});
