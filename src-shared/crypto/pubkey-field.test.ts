import { describe, expect, it } from "vitest";
import type { FieldHasher } from "./hasher";
import { pubkeyToField } from "./pubkey-field";
import { createPoseidonHasher } from "./poseidon-wasm";

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** Counts the hashes it is asked for. */
function counting(inner: FieldHasher): FieldHasher & { calls: number } {
  const h = {
    calls: 0,
    hash(inputs: readonly Uint8Array[]) {
      h.calls++;
      return inner.hash(inputs);
    },
    hashPairs: inner.hashPairs.bind(inner),
  };
  return h;
}

describe("pubkeyToField", () => {
  it("hashes a key once per hasher and answers repeats from memory, each caller getting its own copy", async () => {
    const hasher = counting(await createPoseidonHasher());
    const key = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
    const first = pubkeyToField(hasher, key);
    first[0] = 0xff - (first[0] ?? 0);
    const second = pubkeyToField(hasher, key);
    expect(hasher.calls).toBe(1);
    const hi = new Uint8Array(32);
    const lo = new Uint8Array(32);
    hi.set(key.subarray(0, 16), 16);
    lo.set(key.subarray(16), 16);
    expect(hex(second)).toBe(hex((await createPoseidonHasher()).hash([hi, lo])));
    const other = Uint8Array.from({ length: 32 }, (_, i) => i);
    expect(hex(pubkeyToField(hasher, other))).not.toBe(hex(second));
    expect(hasher.calls).toBe(2);
  });

  it("refuses a key that is not 32 bytes", async () => {
    const hasher = await createPoseidonHasher();
    expect(() => pubkeyToField(hasher, new Uint8Array(31))).toThrow(RangeError);
  });
});
