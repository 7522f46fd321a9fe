import { afterEach, describe, expect, it } from "vitest";
import { FrontierTree } from "../../core/merkle/frontier";
import { PrecomputedPairs } from "../../core/merkle/precomputed-pairs";
import { openFastPoseidonHasher, PREBUILT_WASM } from "../poseidon-fast/fast-hasher";
import { FrontierLane, liveLaneWorkers } from "./lane";

const lanes: FrontierLane[] = [];
afterEach(async () => {
  for (const l of lanes.splice(0)) await l.close();
});

const leaf = (i: number): Uint8Array => {
  const b = new Uint8Array(32);
  b[31] = i & 0xff;
  b[2] = 9;
  return b;
};

async function started(): Promise<FrontierLane> {
  const lines: string[] = [];
  const lane = new FrontierLane({ wasmPlaces: [PREBUILT_WASM] }, (l) => lines.push(l));
  lanes.push(lane);
  lane.start();
  expect(await lane.ready, lines.join("\n")).toBe(true);
  return lane;
}

describe("frontier lane", () => {
  it("answers inserts, in the order sent, with the pairs the main thread's insert then takes whole", async () => {
    const lane = await started();
    const hasher = await openFastPoseidonHasher();
    const replay = new PrecomputedPairs(hasher);
    const tree = new FrontierTree(replay);
    const reference = new FrontierTree(hasher);
    for (let i = 0; i < 3; i++) {
      tree.insert(leaf(i));
      reference.insert(leaf(i));
    }
    const s = tree.state();
    lane.track("mainnet/M", s.nextIndex, s.filledSubtrees);
    // Sent together, before any is applied: the lane runs ahead of the chain.
    const lists = await Promise.all([3, 4, 5, 6].map((i) => lane.insert("mainnet/M", leaf(i))));
    for (const [k, list] of lists.entries()) {
      expect(list?.length).toBe(32 * 96);
      replay.load(list);
      tree.insert(leaf(3 + k));
      reference.insert(leaf(3 + k));
      expect(replay.servedCount).toBe(32);
    }
    expect(tree.state()).toEqual(reference.state());
    expect(lane.stats()).toEqual({ state: "ready", inserts: 4, unanswered: 0 });
  });

  it("answers null for a pool it does not track, and keeps serving the others", async () => {
    const lane = await started();
    const fresh = new FrontierTree(await openFastPoseidonHasher()).state();
    lane.track("devnet/A", fresh.nextIndex, fresh.filledSubtrees);
    expect(await lane.insert("devnet/B", leaf(1))).toBeNull();
    expect((await lane.insert("devnet/A", leaf(1)))?.length).toBe(32 * 96);
    expect(lane.stats().unanswered).toBe(1);
  });

  it("answers null at once once closed, and for what was still waiting", async () => {
    const lane = await started();
    const fresh = new FrontierTree(await openFastPoseidonHasher()).state();
    lane.track("mainnet/M", fresh.nextIndex, fresh.filledSubtrees);
    const waiting = lane.insert("mainnet/M", leaf(1));
    await lane.close();
    expect(await waiting).toBeNull();
    expect(await lane.insert("mainnet/M", leaf(2))).toBeNull();
    expect(lane.stats().state).toBe("down");
  });
});

describe("frontier lane start", () => {
  it("runs no thread until the first insert, answers that one null while it starts, and starts from each pool's latest state", async () => {
    const before = liveLaneWorkers();
    const lane = new FrontierLane({ wasmPlaces: [PREBUILT_WASM] }, () => {});
    lanes.push(lane);
    const hasher = await openFastPoseidonHasher();
    const tree = new FrontierTree(hasher);
    const stale = tree.state();
    lane.track("mainnet/M", stale.nextIndex, stale.filledSubtrees);
    tree.insert(leaf(0));
    const latest = tree.state();
    lane.track("mainnet/M", latest.nextIndex, latest.filledSubtrees);
    expect(liveLaneWorkers()).toBe(before);
    expect(lane.stats().state).toBe("idle");

    expect(await lane.insert("mainnet/M", leaf(1))).toBeNull();
    expect(liveLaneWorkers()).toBe(before + 1);
    expect(await lane.ready).toBe(true);
    // The chain hashed leaf 1 itself and sent its tree again.
    tree.insert(leaf(1));
    const now = tree.state();
    lane.track("mainnet/M", now.nextIndex, now.filledSubtrees);
    const replay = new PrecomputedPairs(hasher);
    const mirror = new FrontierTree(replay, tree.state());
    replay.load(await lane.insert("mainnet/M", leaf(2)));
    mirror.insert(leaf(2));
    tree.insert(leaf(2));
    expect(replay.servedCount).toBe(32);
    expect(mirror.root()).toEqual(tree.root());
  });

  it("needs the fast module: without it the lane says why and stays down, and inserts answer null", async () => {
    const lines: string[] = [];
    const lane = new FrontierLane({ wasmPlaces: ["/nonexistent/poseidon-bn254-fast.wasm"] }, (l) => lines.push(l));
    lanes.push(lane);
    lane.start();
    expect(await lane.ready).toBe(false);
    expect(lines).toEqual([expect.stringMatching(/^frontier lane: could not start \(the fast Poseidon module is in none of/)]);
    expect(await lane.insert("mainnet/M", leaf(1))).toBeNull();
  });
});
