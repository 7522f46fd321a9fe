/**
 * The slice of mcl-wasm the verifier uses, initialised once per thread for
 * BN_SNARK1 (= BN254 / alt_bn128, the curve of snarkjs's "bn128", EIP-196/197
 * and Solana's alt_bn128 syscalls). mcl-wasm ships its own typings, so no
 * `any` is needed; this module only pins down the global state mcl keeps per
 * wasm instance (curve, order checks, serialization mode) and the exact
 * conversions from integers, which must never reduce or mask silently.
 */
import { readFileSync } from "node:fs";
import { createRequire, Module } from "node:module";
import { dirname, join } from "node:path";
import { Script } from "node:vm";
import type * as Mcl from "mcl-wasm";

const require = createRequire(import.meta.url);

/** How mcl-wasm 2.x's glue (dist/mcl_c.js) turns its base64 wasm into bytes: a callback per byte. */
const SLOW_DECODE = "Uint8Array.from(atob(wasmBase64), function (c) { return c.charCodeAt(0); })";

/**
 * mcl-wasm, with its glue's wasm decoded by Buffer. The glue carries the 436 KB module as
 * base64 and decodes it at every init with SLOW_DECODE, 70 to 170 ms of each verifier thread's
 * boot (profiled at start-up; Buffer decodes the same text in under a millisecond). So the glue
 * is compiled here with that one expression replaced, and put in require's cache before
 * mcl-wasm's index requires it. A version whose glue decodes otherwise is loaded as shipped.
 */
function requireMcl(): typeof Mcl {
  const glue = mclGlue();
  let source = "";
  try {
    source = require.cache[glue] ? "" : readFileSync(glue, "utf8");
  } catch {
    // Another layout: load the package as shipped.
  }
  if (source.includes(SLOW_DECODE)) {
    const fast = source.replace(SLOW_DECODE, 'Buffer.from(wasmBase64, "base64")');
    // The glue requires nothing and only sets module.exports; wrapped on its first line, its lines stay its own.
    const run = new Script(`(function (module) {${fast}\n})`, { filename: glue }).runInThisContext() as (m: Module) => void;
    const mod = new Module(glue);
    mod.filename = glue;
    run(mod);
    mod.loaded = true;
    require.cache[glue] = mod;
  }
  return require("mcl-wasm") as typeof Mcl;
}

/** The glue's file: beside the package's main (dist/index.js), which requires it as ./mcl_c.js. */
function mclGlue(): string {
  return join(dirname(require.resolve("mcl-wasm")), "mcl_c.js");
}

/** How the glue this thread loaded decodes its wasm (tests: the installed mcl-wasm must get the fast path). */
export function mclGlueDecode(): "buffer" | "shipped" | "not loaded" {
  const loaded = require.cache[mclGlue()]?.exports as unknown;
  if (typeof loaded !== "function") return "not loaded";
  return String(loaded).includes(SLOW_DECODE) ? "shipped" : "buffer";
}

/**
 * The CommonJS module object itself, not an ESM namespace: the namespace
 * snapshots `curveType` (a getter) at import time, and tsx, vitest and plain
 * Node would otherwise each apply their own CJS interop.
 */
export const mcl = requireMcl();
export type { Mcl };

let ready: Promise<void> | null = null;

/**
 * Initialises mcl for BN_SNARK1 in this thread (idempotent) and checks the
 * global state the verifier relies on:
 * - `verifyOrderG2(true)`: G2.isValid() then includes the order-r check
 *   (checked here on a known non-subgroup twist point, not just assumed).
 *   The verification key's G2 points go through it; a proof's B goes through
 *   the equivalent, faster test of g2-subgroup.ts;
 * - `verifyOrderG1(false)`: BN254's G1 has cofactor 1 (#E(Fp) = r), so every
 *   point on the curve already has order r; mcl's order check would be a
 *   scalar multiplication by r (~0.6 ms) that can never fail;
 * - Fp/Fr `deserialize` takes 32 little-endian bytes and rejects values not
 *   below the modulus (mcl's ETH serialization mode would make it big-endian;
 *   `setLittleEndian` masks silently and `setStr` accepts "-1": neither is used).
 */
export function initMcl(): Promise<void> {
  ready ??= (async () => {
    await mcl.init(mcl.BN_SNARK1);
    if (mcl.curveType !== mcl.BN_SNARK1) throw new Error(`mcl is initialised for curve ${mcl.curveType}, not BN_SNARK1`);
    mcl.verifyOrderG1(false);
    mcl.verifyOrderG2(true);
    selfCheck();
  })();
  return ready;
}

/** Little-endian 32 bytes of x (x < 2^256 assumed by callers). */
function le32(x: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let v = x;
  for (let i = 0; i < 32; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  if (v !== 0n) throw new RangeError("value does not fit in 32 bytes");
  return out;
}

/** Exact Fp from an integer; throws if x is not in [0, q). */
export function fpFromBigInt(x: bigint): Mcl.Fp {
  if (x < 0n) throw new RangeError("negative field element");
  const f = new mcl.Fp();
  f.deserialize(le32(x)); // mcl rejects >= q (throws)
  return f;
}

/** Exact Fr from an integer; throws if x is not in [0, r). */
export function frFromBigInt(x: bigint): Mcl.Fr {
  if (x < 0n) throw new RangeError("negative scalar");
  const f = new mcl.Fr();
  f.deserialize(le32(x)); // mcl rejects >= r (throws)
  return f;
}

/** Exact Fr from a 32-byte big-endian word; throws if not below r. */
export function frFromBytesBE(bytes: Uint8Array): Mcl.Fr {
  if (bytes.length !== 32) throw new RangeError("a scalar is 32 bytes");
  const le = new Uint8Array(32);
  for (let i = 0; i < 32; i++) le[i] = bytes[31 - i]!;
  const f = new mcl.Fr();
  f.deserialize(le);
  return f;
}

/** Fp2 = c0 + c1·u (u² = −1); mcl's `a` is c0, `b` is c1. */
export function fp2FromBigInts(c0: bigint, c1: bigint): Mcl.Fp2 {
  const f = new mcl.Fp2();
  f.set_a(fpFromBigInt(c0));
  f.set_b(fpFromBigInt(c1));
  return f;
}

/**
 * The affine point (x, y) with Z = 1, coordinates set explicitly (no
 * deserialisation, no compression, no reduction). It is never the point at
 * infinity (mcl encodes that as Z = 0); whether it is on the curve is for the
 * caller to ask (`isValid`).
 */
export function g1FromAffine(x: bigint, y: bigint): Mcl.G1 {
  const p = new mcl.G1();
  p.setX(fpFromBigInt(x));
  p.setY(fpFromBigInt(y));
  p.setZ(fpFromBigInt(1n));
  return p;
}

/** As g1FromAffine, on the twist E'(Fp2); coordinates as [c0, c1]. */
export function g2FromAffine(x: readonly [bigint, bigint], y: readonly [bigint, bigint]): Mcl.G2 {
  return g2FromFp2(fp2FromBigInts(x[0], x[1]), fp2FromBigInts(y[0], y[1]));
}

export function g2FromFp2(x: Mcl.Fp2, y: Mcl.Fp2): Mcl.G2 {
  const p = new mcl.G2();
  p.setX(x);
  p.setY(y);
  p.setZ(fp2FromBigInts(1n, 0n));
  return p;
}

/**
 * A point of E'(Fp2) that is NOT in the order-r subgroup: the first x = k + u
 * (k = 1, 2, ...) for which x³ + b' is a square. The twist has r·(2q − r)
 * points, so such a point lies in the subgroup with probability ~1/q. Used by
 * the init self-check and by tests.
 */
export function twistPointOutsideSubgroup(): Mcl.G2 {
  // Found once per thread: both self-checks ask (a verifier thread's boot runs them in Liftoff code, each order test a multiplication by r).
  if (outsideK !== null) return twistPointAt(fp2Int(outsideK, 1))!;
  for (let k = 1; k < 1000; k++) {
    const q = twistPointAt(fp2Int(k, 1));
    if (q && !q.isValidOrder()) {
      outsideK = k;
      return q;
    }
  }
  throw new Error("no twist point outside the subgroup found");
}

/** The k of twistPointOutsideSubgroup's point x = k + u, once found. */
let outsideK: number | null = null;

function fp2Int(a: number, b: number): Mcl.Fp2 {
  const x = new mcl.Fp2();
  x.setInt(a, b);
  return x;
}

/** b' = 3 / (9 + u): the twist is y² = x³ + b'. Computed once mcl is initialised. */
let bTwist: Mcl.Fp2 | null = null;

/** The point of E'(Fp2) at x (y: the square root mcl picks), or null when x³ + b' is not a square. In G2 or not. */
export function twistPointAt(x: Mcl.Fp2): Mcl.G2 | null {
  bTwist ??= mcl.div(fp2FromBigInts(3n, 0n), fp2FromBigInts(9n, 1n));
  const [isSquare, y] = mcl.squareRoot(mcl.add(mcl.mul(mcl.sqr(x), x), bTwist));
  return isSquare ? g2FromFp2(x, y) : null;
}

function selfCheck(): void {
  const one = new mcl.Fp();
  one.deserialize(le32(1n));
  if (!one.isOne()) throw new Error("mcl Fp serialization is not little-endian (ETH serialization mode on?)");
  // The scalar field is BN254's r: r − 1 is accepted, r is not.
  const r = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
  frFromBigInt(r - 1n);
  let rAccepted = true;
  try {
    frFromBigInt(r);
  } catch {
    rAccepted = false;
  }
  if (rAccepted) throw new Error("mcl Fr accepts r: not the BN254 scalar field, or deserialize reduces");
  // G1 generator (1, 2) is valid; (1, 1) is not on the curve.
  if (!g1FromAffine(1n, 2n).isValid() || g1FromAffine(1n, 1n).isValid()) throw new Error("mcl G1 curve check misbehaves");
  // The order check must be part of G2.isValid(), and must catch a non-subgroup point.
  const outside = twistPointOutsideSubgroup();
  if (outside.isValid()) throw new Error("mcl G2.isValid() accepts a point outside the order-r subgroup: verifyOrderG2 not effective");
}
