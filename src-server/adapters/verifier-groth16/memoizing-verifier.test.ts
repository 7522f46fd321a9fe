import { describe, expect, it } from "vitest";
import type { ProofVerifier } from "../../ports/proof-verifier";
import { MemoizingVerifier } from "./memoizing-verifier";

/** A verifier that accepts proofs whose first byte is 1 and counts its calls. */
class CountingVerifier implements ProofVerifier {
  calls = 0;
  async verify(proof: Uint8Array): Promise<boolean> {
    this.calls++;
    return proof[0] === 1;
  }
  async close(): Promise<void> {}
}

const proof = (first: number, tag = 0): Uint8Array => Uint8Array.from({ length: 256 }, (_, i) => (i === 0 ? first : i === 1 ? tag : 0));
const signals = [new Uint8Array(32), Uint8Array.from({ length: 32 }, () => 7)];

/** A memoizing verifier over a counting one. */
const memoized = (capacity?: number) => {
  const inner = new CountingVerifier();
  return { inner, v: new MemoizingVerifier(inner, capacity) };
};

describe("MemoizingVerifier", () => {
  it("verifies an accepted (proof, signals) pair once and answers repeats from memory", async () => {
    const { inner, v } = memoized();
    expect(await v.verify(proof(1), signals)).toBe(true);
    expect(await v.verify(proof(1), signals)).toBe(true);
    expect(inner.calls).toBe(1);
  });

  it("never answers a rejected proof from memory, and keys on the signals too", async () => {
    const { inner, v } = memoized();
    expect(await v.verify(proof(0), signals)).toBe(false);
    expect(await v.verify(proof(0), signals)).toBe(false);
    expect(inner.calls).toBe(2);
    await v.verify(proof(1), signals);
    await v.verify(proof(1), [signals[1]!, signals[0]!]);
    expect(inner.calls).toBe(4);
  });

  it("stays within its capacity, dropping the oldest", async () => {
    const { inner, v } = memoized(2);
    for (const tag of [1, 2, 3]) await v.verify(proof(1, tag), signals);
    await v.verify(proof(1, 1), signals);
    expect(inner.calls).toBe(4);
    await v.verify(proof(1, 3), signals);
    expect(inner.calls).toBe(4);
  });
});
