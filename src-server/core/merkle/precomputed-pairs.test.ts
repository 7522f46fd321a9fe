import { describe, expect, it } from "vitest";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { FrontierTree } from "./frontier";
import { listingHasher, PrecomputedPairs } from "./precomputed-pairs";
import { countingHasher } from "../../../tests/support/counting-hasher";

const leaf = (i: number): Uint8Array => {
  const b = new Uint8Array(32);
  b[31] = i & 0xff;
  b[30] = (i >> 8) & 0xff;
  b[1] = 7;
  return b;
};

/** Trees of `n` leaves on a lane's hasher and on a PrecomputedPairs over a counting one, the latter fed the lane's lists. */
async function pair(n: number) {
  const base = await createPoseidonHasher();
  const listing = listingHasher(base);
  const lane = new FrontierTree(listing.hasher);
  const c = await countingHasher();
  const seen: Uint8Array[] = [];
  const replay = new PrecomputedPairs(c.hasher, (_l, _r, h) => seen.push(h));
  const tree = new FrontierTree(replay);
  const reference = new FrontierTree(base);
  for (let i = 0; i < n; i++) {
    lane.insert(leaf(i));
    listing.take();
    replay.load(null);
    tree.insert(leaf(i));
    reference.insert(leaf(i));
  }
  return { listing, lane, c, replay, tree, reference, seen };
}

describe("PrecomputedPairs", () => {
  it("answers a frontier insert wholly from the list another tree made for the same state and leaf: same state, no hash", async () => {
    const { listing, lane, c, replay, tree, reference, seen } = await pair(5);
    lane.insert(leaf(5));
    const list = listing.take();
    expect(list.length).toBe(32 * 96);
    replay.load(list);
    const before = c.pairs();
    tree.insert(leaf(5));
    reference.insert(leaf(5));
    expect(c.pairs() - before).toBe(0);
    expect(replay.servedCount).toBe(32);
    expect(seen.slice(-32).map((h) => Buffer.from(h).toString("hex"))).toEqual(
      Array.from({ length: 32 }, (_, k) => Buffer.from(list.subarray(96 * k + 64, 96 * k + 96)).toString("hex")),
    );
    expect(tree.state()).toEqual(reference.state());
  });

  it("gives the right state from a list made for another state: pairs stop being served at the first that differs", async () => {
    const { listing, lane, c, replay, tree, reference } = await pair(6);
    lane.insert(leaf(100)); // the lane inserted a leaf the tree never gets
    lane.insert(leaf(6));
    listing.take();
    lane.insert(leaf(7));
    const stale = listing.take();
    replay.load(stale);
    const before = c.pairs();
    tree.insert(leaf(6));
    reference.insert(leaf(6));
    expect(tree.state()).toEqual(reference.state());
    expect(replay.servedCount).toBeLessThan(32);
    expect(c.pairs() - before).toBe(32 - replay.servedCount);
  });

  it("never answers from an entry whose inputs differ, even when the list is the right length", async () => {
    const { listing, lane, replay, tree, reference } = await pair(3);
    lane.insert(leaf(3));
    const list = listing.take();
    list[5] = list[5]! ^ 1; // the first pair's left input
    list[96 * 31 + 64] = list[96 * 31 + 64]! ^ 1; // the last hash: never reached, the list is dropped at the first pair
    replay.load(list);
    tree.insert(leaf(3));
    reference.insert(leaf(3));
    expect(replay.servedCount).toBe(0);
    expect(tree.root()).toEqual(reference.root());
  });

  it("refuses a list that is not whole pairs", async () => {
    const replay = new PrecomputedPairs(await createPoseidonHasher());
    expect(() => replay.load(new Uint8Array(95))).toThrow(RangeError);
  });
});
