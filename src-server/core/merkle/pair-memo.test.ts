import { describe, expect, it } from "vitest";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { FrontierTree } from "./frontier";
import { memoReadingHasher, PairMemo, pairMemoOf, recordingHasher } from "./pair-memo";
import { MerkleTree } from "./tree";
import { countingHasher } from "../../../tests/support/counting-hasher";

const leaf = (i: number): Uint8Array => {
  const b = new Uint8Array(32);
  b[31] = i & 0xff;
  b[30] = i >> 8;
  b[0] = 1;
  return b;
};

describe("PairMemo", () => {
  it("lets the indexer's tree append the frontier's leaves without hashing again, with the same roots as a tree on the bare hasher", async () => {
    const { hasher, pairs } = await countingHasher();
    const frontier = new FrontierTree(recordingHasher(hasher));
    const indexed = new MerkleTree(memoReadingHasher(hasher));
    const reference = new MerkleTree(await createPoseidonHasher());
    const before = pairs();
    for (let i = 0; i < 40; i++) {
      frontier.insert(leaf(i));
      // One leaf at a time, then several at once (a batched sync reads the pairs of the last insert of each node).
      if (i < 20 || i % 5 === 4) {
        const from = indexed.nextIndex;
        const batch = new Uint8Array((i + 1 - from) * 32);
        for (let j = from; j <= i; j++) batch.set(leaf(j), (j - from) * 32);
        const appended = indexed.append(batch);
        reference.append(batch);
        expect(appended.ok).toBe(true);
        expect(Buffer.from(indexed.root()).toString("hex")).toBe(Buffer.from(frontier.root()).toString("hex"));
        expect(Buffer.from(indexed.root()).toString("hex")).toBe(Buffer.from(reference.root()).toString("hex"));
      }
    }
    // The frontier hashed 32 pairs per leaf; the indexer's tree none of its own.
    expect(pairs() - before).toBe(40 * 32);
    for (let i = 0; i < 40; i += 7) expect(indexed.proof(i)).toEqual(reference.proof(i));
  });

  it("hashes what was never recorded, and answers a pair once", async () => {
    const { hasher, pairs } = await countingHasher();
    const reading = memoReadingHasher(hasher);
    const a = leaf(1);
    const b = leaf(2);
    const real = (await createPoseidonHasher()).hash([a, b]);
    const n0 = pairs();
    expect(reading.hash([a, b])).toEqual(real);
    expect(pairs() - n0).toBe(1);
    recordingHasher(hasher).hash([a, b]);
    const n1 = pairs();
    expect(reading.hash([a, b])).toEqual(real);
    expect(pairs() - n1).toBe(0);
    expect(reading.hash([a, b])).toEqual(real);
    expect(pairs() - n1).toBe(1);
    expect(pairMemoOf(hasher).size).toBe(0);
  });

  it("drops the oldest pairs beyond its capacity", () => {
    const memo = new PairMemo(2);
    const h = (i: number): Uint8Array => new Uint8Array(32).fill(i);
    const pair = (i: number): Uint8Array => {
      const p = new Uint8Array(64);
      p.set(leaf(i), 0);
      p.set(leaf(i + 100), 32);
      return p;
    };
    for (const i of [1, 2, 3]) memo.record(leaf(i), leaf(i + 100), h(i));
    expect(memo.size).toBe(2);
    expect(memo.take(pair(1), 0)).toBeUndefined();
    expect(memo.take(pair(2), 0)).toEqual(h(2));
    expect(memo.take(pair(3), 0)).toEqual(h(3));
  });

  it("never answers a pair that only shares its slot with a recorded one: the whole 64 bytes must match", () => {
    const memo = new PairMemo();
    const recorded = new Uint8Array(64).fill(7);
    const hash = new Uint8Array(32).fill(9);
    memo.record(recorded.subarray(0, 32), recorded.subarray(32), hash);
    // Same low-order bytes (the slot) in both halves, a different high byte.
    const lookalike = recorded.slice();
    lookalike[0] = 8;
    expect(memo.take(lookalike, 0)).toBeUndefined();
    expect(memo.misses).toBe(1);
    const padded = new Uint8Array(96);
    padded.set(recorded, 32);
    expect(memo.take(padded, 32)).toEqual(hash);
    expect(memo.size).toBe(0);
  });
});
