import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { buildPoseidonModule, createLeanPoseidonHasher, PREBUILT_WASM } from "./lean-hasher";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** Deterministic field elements below the modulus (top byte kept small). */
function element(seed: number): Uint8Array {
  const out = new Uint8Array(32);
  let x = seed * 2654435761 + 1;
  for (let i = 1; i < 32; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  out[0] = seed % 0x30;
  return out;
}

describe("lean Poseidon hasher", () => {
  it("ships the module that circomlibjs's Poseidon plugin builds today, byte for byte", async () => {
    const built = await buildPoseidonModule();
    expect(hex(readFileSync(PREBUILT_WASM)) === hex(built), `regenerate ${PREBUILT_WASM}: npm run gen:poseidon-lean`).toBe(true);
  });

  it("hashes 1 to 16 inputs and pairs exactly as circomlibjs's buildPoseidon does", async () => {
    const lean = await createLeanPoseidonHasher();
    const full = await createPoseidonHasher();
    for (let n = 1; n <= 16; n++) {
      const inputs = Array.from({ length: n }, (_, i) => element(n * 31 + i));
      expect(hex(lean.hash(inputs))).toBe(hex(full.hash(inputs)));
    }
    const pairs = new Uint8Array(64 * 50);
    for (let i = 0; i < 100; i++) pairs.set(element(1000 + i), 32 * i);
    const a = new Uint8Array(32 * 50 + 32);
    const b = new Uint8Array(32 * 50 + 32);
    lean.hashPairs(pairs, 50, a, 32);
    full.hashPairs(pairs, 50, b, 32);
    expect(hex(a)).toBe(hex(b));
  });
});
