import { bigIntToBytes32, bytesToBigInt } from "../encoding/field";
import { err, ok, type Result } from "../result";

/** BN254 base field: proof coordinates live below it (the scalar field is smaller). */
export const BASE_FIELD_MODULUS = 21888242871839275222246405745257275088696311157297823662689037894645226208583n;
export const PROOF_BYTES = 256;

export interface G1Point {
  x: bigint;
  y: bigint;
}
/** Fp2 coordinates as [c0, c1] (real, imaginary), snarkjs's order. */
export interface G2Point {
  x: [bigint, bigint];
  y: [bigint, bigint];
}
export interface Groth16Proof {
  a: G1Point;
  b: G2Point;
  c: G1Point;
}

/** snarkjs's proof JSON (decimal strings, projective with z = 1). */
export interface SnarkjsProof {
  pi_a: string[];
  pi_b: string[][];
  pi_c: string[];
  protocol?: string;
  curve?: string;
}

export type ProofCodecError = "wrong length" | "coordinate not below the base field modulus";

/**
 * The wire layout (256 bytes): A.x A.y | B.x.c1 B.x.c0 B.y.c1 B.y.c0 | C.x C.y,
 * 32-byte big-endian words, A not negated: what alt_bn128 syscalls and EIP-197 take.
 */
export function decodeProof(bytes: Uint8Array): Result<Groth16Proof, ProofCodecError> {
  if (bytes.length !== PROOF_BYTES) return err("wrong length");
  const w: bigint[] = [];
  for (let i = 0; i < 8; i++) {
    const v = bytesToBigInt(bytes.subarray(32 * i, 32 * i + 32));
    if (v >= BASE_FIELD_MODULUS) return err("coordinate not below the base field modulus");
    w.push(v);
  }
  const [ax, ay, bxc1, bxc0, byc1, byc0, cx, cy] = w as [bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint];
  return ok({ a: { x: ax, y: ay }, b: { x: [bxc0, bxc1], y: [byc0, byc1] }, c: { x: cx, y: cy } });
}

export function encodeProof(p: Groth16Proof): Uint8Array {
  const words = [p.a.x, p.a.y, p.b.x[1], p.b.x[0], p.b.y[1], p.b.y[0], p.c.x, p.c.y];
  const out = new Uint8Array(PROOF_BYTES);
  words.forEach((v, i) => out.set(bigIntToBytes32(v), 32 * i));
  return out;
}

/** From snarkjs's affine output (z = 1); a projective z other than 1 is not what snarkjs emits. */
export function fromSnarkjs(p: SnarkjsProof): Groth16Proof {
  const n = (s: string | undefined): bigint => {
    if (s === undefined) throw new Error("incomplete snarkjs proof");
    return BigInt(s);
  };
  const pb = p.pi_b;
  return {
    a: { x: n(p.pi_a[0]), y: n(p.pi_a[1]) },
    b: { x: [n(pb[0]?.[0]), n(pb[0]?.[1])], y: [n(pb[1]?.[0]), n(pb[1]?.[1])] },
    c: { x: n(p.pi_c[0]), y: n(p.pi_c[1]) },
  };
}

export function toSnarkjs(p: Groth16Proof): SnarkjsProof {
  const s = (v: bigint): string => v.toString();
  return {
    pi_a: [s(p.a.x), s(p.a.y), "1"],
    pi_b: [
      [s(p.b.x[0]), s(p.b.x[1])],
      [s(p.b.y[0]), s(p.b.y[1])],
      ["1", "0"],
    ],
    pi_c: [s(p.c.x), s(p.c.y), "1"],
    protocol: "groth16",
    curve: "bn128",
  };
}
