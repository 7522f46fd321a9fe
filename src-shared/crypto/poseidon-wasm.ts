import { buildPoseidon } from "circomlibjs";
import type { FieldHasher } from "./hasher";
import { hasherOverPoseidonWasm, type WasmPoseidonInternals } from "./poseidon-wasm-hasher";

export { hasherOverPoseidonWasm, type PoseidonWasmInstance } from "./poseidon-wasm-hasher";

let shared: Promise<FieldHasher> | null = null;

/** One wasm instance per process: building it costs ~100 ms and some memory. */
export function createPoseidonHasher(): Promise<FieldHasher> {
  shared ??= build();
  return shared;
}

async function build(): Promise<FieldHasher> {
  const poseidon = (await buildPoseidon()) as unknown as WasmPoseidonInternals;
  return hasherOverPoseidonWasm(poseidon.F.tm);
}
