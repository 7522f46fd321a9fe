import type { FieldHasher } from "./hasher";

/**
 * The shape of circomlibjs's wasm Poseidon we rely on: its field's thread
 * manager exposes the wasm instance, whose `poseidon` export works on
 * Montgomery little-endian elements in linear memory.
 */
export interface WasmPoseidonInternals {
  F: {
    tm: {
      u8: Uint8Array;
      memory: { buffer: ArrayBufferLike };
      alloc(length: number): number;
      instance: {
        exports: {
          poseidon(pState: number, pIn: number, n: number, pOut: number, nOut: number): void;
          frm_toMontgomery(pIn: number, pOut: number): void;
          frm_fromMontgomery(pIn: number, pOut: number): void;
        };
      };
    };
  };
}

/** The wasm instance circomlibjs's Poseidon plugin runs in: its memory, a bump allocator on it, and the exports. */
export type PoseidonWasmInstance = WasmPoseidonInternals["F"]["tm"];

/** A FieldHasher over any instance that holds circomlibjs's `poseidon` export and the `frm` field (Montgomery form). */
export function hasherOverPoseidonWasm(tm: PoseidonWasmInstance): FieldHasher {
  const wasm = tm.instance.exports;
  const pState = tm.alloc(32);
  const pIn = tm.alloc(32 * 16);
  const pOut = tm.alloc(32);

  // The memory's buffer is replaced if the wasm heap grows; re-read it then.
  let mem = new Uint8Array(tm.memory.buffer);
  const memory = (): Uint8Array => {
    if (mem.buffer !== tm.memory.buffer) mem = new Uint8Array(tm.memory.buffer);
    return mem;
  };

  const writeElement = (m: Uint8Array, ptr: number, src: Uint8Array, srcOffset: number): void => {
    // Big-endian wire bytes -> little-endian limbs, then into Montgomery form in place.
    for (let i = 0; i < 32; i++) m[ptr + i] = src[srcOffset + 31 - i]!;
    wasm.frm_toMontgomery(ptr, ptr);
  };

  const permute = (m: Uint8Array, n: number, out: Uint8Array, outOffset: number): void => {
    m.fill(0, pState, pState + 32);
    wasm.poseidon(pState, pIn, n, pOut, 1);
    wasm.frm_fromMontgomery(pOut, pOut);
    for (let i = 0; i < 32; i++) out[outOffset + i] = m[pOut + 31 - i]!;
  };

  return {
    hash(inputs) {
      const n = inputs.length;
      if (n < 1 || n > 16) throw new RangeError("Poseidon takes 1 to 16 inputs");
      const m = memory();
      for (let i = 0; i < n; i++) {
        const input = inputs[i]!;
        if (input.length !== 32) throw new RangeError("Poseidon inputs are 32-byte field elements");
        writeElement(m, pIn + 32 * i, input, 0);
      }
      const out = new Uint8Array(32);
      permute(m, n, out, 0);
      return out;
    },
    hashPairs(pairs, count, out, outOffset) {
      const m = memory();
      for (let k = 0; k < count; k++) {
        writeElement(m, pIn, pairs, 64 * k);
        writeElement(m, pIn + 32, pairs, 64 * k + 32);
        permute(m, 2, out, outOffset + 32 * k);
      }
    },
  };
}
