import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { bigIntToBytes32, FIELD_MODULUS as R } from "../../../src-shared/encoding/field";
import { compileFastPoseidon, haveWasmToolchain } from "../../../tools/poseidon/build-wasm";
import { createFastPoseidonHasher, openFastPoseidonHasher, PREBUILT_WASM } from "./fast-hasher";
import { generateConstantsHeader, HEADER_PATH } from "../../../tools/poseidon/gen-constants";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** A fixed-seed generator, so a failure reproduces. */
function randomBytes(seed: number): (n: number) => Uint8Array {
  let x = seed >>> 0 || 1;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      out[i] = x & 0xff;
    }
    return out;
  };
}

/** Edge values, including non-canonical ones (r and above), which circomlibjs reduces mod r. */
const EDGES = [0n, 1n, R - 1n, R, R + 1n, (1n << 256n) - 1n].map(bigIntToBytes32);

const circom = (): Promise<FieldHasher> => createPoseidonHasher();

describe("fast Poseidon hasher (poseidon.c in wasm)", () => {
  it("ships a poseidon-constants.h that tools/poseidon/gen-constants.ts still writes from circomlibjs's constants", async () => {
    const expected = await generateConstantsHeader();
    expect(readFileSync(HEADER_PATH, "utf8") === expected, "regenerate: npm run gen:poseidon").toBe(true);
  });

  // CI installs clang and lld, so there a missing toolchain is a failure, not a skip.
  it.skipIf(!haveWasmToolchain() && !process.env.CI)("ships the wasm that clang builds from poseidon.c today, byte for byte (reproducible build)", () => {
    expect(haveWasmToolchain(), "clang and wasm-ld are needed to rebuild the fast Poseidon module").toBe(true);
    const dir = mkdtempSync(path.join(os.tmpdir(), "poseidon-fast-"));
    try {
      const out = path.join(dir, "poseidon-bn254-fast.wasm");
      compileFastPoseidon(out);
      expect(hex(readFileSync(out)) === hex(readFileSync(PREBUILT_WASM)), "rebuild: npm run gen:poseidon").toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("hashes 2 and 3 random 32-byte inputs (canonical or not) exactly as circomlibjs does, 3000 times each", async () => {
    const fast = await createFastPoseidonHasher();
    const ref = await circom();
    const rnd = randomBytes(0x5eed);
    for (let i = 0; i < 3000; i++) {
      const a = rnd(32);
      const b = rnd(32);
      const c = rnd(32);
      // Half of them canonical (below r), the rest mostly at or above r.
      if (i & 1) for (const x of [a, b, c]) x[0]! &= 0x1f;
      expect(hex(fast.hash([a, b]))).toBe(hex(ref.hash([a, b])));
      expect(hex(fast.hash([a, b, c]))).toBe(hex(ref.hash([a, b, c])));
    }
  });

  it("hashes every combination of 0, 1, r-1, r, r+1 and 2^256-1 exactly as circomlibjs does", async () => {
    const fast = await createFastPoseidonHasher();
    const ref = await circom();
    for (const a of EDGES)
      for (const b of EDGES) {
        expect(hex(fast.hash([a, b]))).toBe(hex(ref.hash([a, b])));
        for (const c of EDGES) expect(hex(fast.hash([a, b, c]))).toBe(hex(ref.hash([a, b, c])));
      }
  });

  it("hashes 1 to 16 inputs exactly as circomlibjs does (the other arities through the lean hasher)", async () => {
    const fast = await createFastPoseidonHasher();
    const ref = await circom();
    const rnd = randomBytes(16);
    for (let n = 1; n <= 16; n++) {
      for (let k = 0; k < 5; k++) {
        const inputs = Array.from({ length: n }, (_, i) => (k === 0 ? EDGES[(n + i) % EDGES.length]! : rnd(32)));
        expect(hex(fast.hash(inputs)), `${n} inputs`).toBe(hex(ref.hash(inputs)));
      }
    }
  });

  it("hashPairs writes at the out offset what circomlibjs writes, across several io windows, and leaves the rest of out alone", async () => {
    const fast = await createFastPoseidonHasher();
    const ref = await circom();
    const count = 2500; // more than one 1024-pair window
    const pairs = randomBytes(7)(64 * count);
    pairs.set(EDGES[3]!, 0);
    pairs.set(EDGES[5]!, 32);
    const a = new Uint8Array(32 + 32 * count + 32).fill(0xaa);
    const b = new Uint8Array(32 + 32 * count + 32).fill(0xaa);
    fast.hashPairs(pairs, count, a, 32);
    ref.hashPairs(pairs, count, b, 32);
    expect(hex(a)).toBe(hex(b));
    expect(hex(a.subarray(0, 32))).toBe("aa".repeat(32));
    expect(hex(a.subarray(32 + 32 * count))).toBe("aa".repeat(32));
    expect(hex(a.subarray(32, 64))).toBe(hex(fast.hash([pairs.subarray(0, 32), pairs.subarray(32, 64)])));
  });

  it("hashPairs with count 0 writes nothing", async () => {
    const fast = await createFastPoseidonHasher();
    const out = new Uint8Array(64).fill(7);
    fast.hashPairs(new Uint8Array(0), 0, out, 64);
    expect(out.every((x) => x === 7)).toBe(true);
  });

  it("rejects no inputs, more than 16, a wrong-length input, and pairs or out too short for count with a RangeError", async () => {
    const fast = await createFastPoseidonHasher();
    const e = new Uint8Array(32);
    expect(() => fast.hash([])).toThrow(RangeError);
    expect(() => fast.hash(Array.from({ length: 17 }, () => e))).toThrow(RangeError);
    for (const n of [1, 2, 3, 5]) {
      const inputs = Array.from({ length: n }, () => e);
      inputs[n - 1] = new Uint8Array(31);
      expect(() => fast.hash(inputs), `${n} inputs`).toThrow(RangeError);
    }
    expect(() => fast.hashPairs(new Uint8Array(64 * 2 - 1), 2, new Uint8Array(64), 0)).toThrow(RangeError);
    expect(() => fast.hashPairs(new Uint8Array(64 * 2), 2, new Uint8Array(64), 1)).toThrow(RangeError);
    expect(() => fast.hashPairs(new Uint8Array(64), -1, new Uint8Array(64), 0)).toThrow(RangeError);
  });

  it("loads the module from the first place that has it and falls back to the lean hasher (same outputs, and a warning) where none does", async () => {
    const ref = await circom();
    const a = EDGES[2]!;
    const b = EDGES[4]!;
    const missing = path.join(os.tmpdir(), "no-such-dir", "poseidon-bn254-fast.wasm");
    const warnings: string[] = [];
    const found = await openFastPoseidonHasher([missing, PREBUILT_WASM], (line) => warnings.push(line));
    expect(warnings).toEqual([]);
    const none = await openFastPoseidonHasher([missing], (line) => warnings.push(line));
    expect(warnings).toEqual([expect.stringContaining(`in none of ${missing}`)]);
    expect(hex(found.hash([a, b]))).toBe(hex(ref.hash([a, b])));
    expect(hex(none.hash([a, b]))).toBe(hex(ref.hash([a, b])));
  });
});
