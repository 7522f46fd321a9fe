import { buildPoseidon, type Poseidon } from "circomlibjs";
import type { Element, HashFunction } from "fixed-merkle-tree";

let shared: Promise<Poseidon> | null = null;

/** circomlibjs's wasm Poseidon, built once per process. */
export function circomPoseidon(): Promise<Poseidon> {
  shared ??= buildPoseidon();
  return shared;
}

/**
 * The hash fixed-merkle-tree is given in the usual Tornado-style setup:
 * decimal-string elements, circomlibjs Poseidon of the two children, used
 * the normal way (bigints in, `F.toObject` out).
 */
export async function fmtPoseidonHash(): Promise<HashFunction<Element>> {
  const poseidon = await circomPoseidon();
  const F = poseidon.F;
  return (left, right) => F.toObject(poseidon([BigInt(left), BigInt(right)])).toString();
}
