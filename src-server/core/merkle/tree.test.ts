import { buildPoseidon, type Poseidon } from "circomlibjs";
import { beforeAll, describe, expect, it } from "vitest";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { bigIntToBytes32, bytesToBigInt } from "../../../src-shared/encoding/field";
import { toHex } from "../../../src-shared/encoding/bytes";
import { FrontierTree } from "./frontier";
import { MerkleTree, ROOT_HISTORY_SIZE } from "./tree";
import { ROOT_HISTORY_SIZE as PROGRAM_ROOT_HISTORY_SIZE } from "../../../src-shared/pool-program/constants";

let hasher: FieldHasher;
let ref: Poseidon;
const H = (a: bigint, b: bigint): bigint => ref.F.toObject(ref([a, b]));

/** Independent reference: the root of a sparse depth-32 tree, straight from circomlibjs. */
function referenceRoot(leaves: bigint[], depth = 32): bigint {
  const zeros = [0n];
  for (let i = 0; i < depth; i++) zeros.push(H(zeros[i]!, zeros[i]!));
  let level = leaves.slice();
  for (let d = 0; d < depth; d++) {
    const next: bigint[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(H(level[i]!, level[i + 1] ?? zeros[d]!));
    level = next.length ? next : [];
  }
  return level[0] ?? zeros[depth]!;
}

const leaf = (n: number): Uint8Array => bigIntToBytes32(BigInt(n) * 7919n + 3n);
const concat = (parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.length * 32);
  parts.forEach((p, i) => out.set(p, i * 32));
  return out;
};

beforeAll(async () => {
  hasher = await createPoseidonHasher();
  ref = await buildPoseidon();
});

describe("Poseidon", () => {
  it("matches the circomlib golden vector Poseidon([1,2])", () => {
    const out = hasher.hash([bigIntToBytes32(1n), bigIntToBytes32(2n)]);
    expect(toHex(out)).toBe("115cc0f5e7d690413df64c6b9662e9cf2a3617f2743245519e19607a4417189a");
  });

  it("agrees with circomlibjs for 1 to 5 inputs and for batch pair hashing", () => {
    for (let n = 1; n <= 5; n++) {
      const xs = Array.from({ length: n }, (_, i) => BigInt(i + 1) * 1234567891011n + BigInt(n));
      expect(bytesToBigInt(hasher.hash(xs.map(bigIntToBytes32)))).toBe(ref.F.toObject(ref(xs)));
    }
    const pairs = concat([leaf(1), leaf(2), leaf(3), leaf(4)]);
    const out = new Uint8Array(64);
    hasher.hashPairs(pairs, 2, out, 0);
    expect(bytesToBigInt(out.subarray(0, 32))).toBe(H(bytesToBigInt(leaf(1)), bytesToBigInt(leaf(2))));
    expect(bytesToBigInt(out.subarray(32))).toBe(H(bytesToBigInt(leaf(3)), bytesToBigInt(leaf(4))));
  });
});

describe("MerkleTree", () => {
  it("has the empty-tree root Z[32] computed independently", () => {
    const tree = new MerkleTree(hasher);
    expect(bytesToBigInt(tree.root())).toBe(referenceRoot([]));
    expect(toHex(tree.root())).toBe("2f68a1c58e257e42a17a6c61dff5551ed560b9922ab119d5ac8e184c9734ead9");
  });

  it("pins the roots after 1, 2 and 3 appends against an independent circomlibjs computation", () => {
    const tree = new MerkleTree(hasher);
    const leaves: bigint[] = [];
    const pinned: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const l = leaf(i);
      leaves.push(bytesToBigInt(l));
      const res = tree.append(l);
      if (!res.ok) throw new Error(res.error);
      expect(bytesToBigInt(res.value.root)).toBe(referenceRoot(leaves));
      pinned.push(toHex(res.value.root));
    }
    expect(pinned).toMatchInlineSnapshot(`
      [
        "0d26d185c0272be06abd03792db90ca7ca5ff76422be3122a90aad9f63b748ed",
        "28c2bcbe265b1d9f5f7c0da2d80ba4bf82fc90b3c568c28c14c4bee0f8e719d9",
        "28a586b70697fd5689ba191f602fa3e24b7ecef9d684d2753b7055d1c54a293c",
      ]
    `);
  });

  it("gives the same state for one batch append as for appends one by one", () => {
    const a = new MerkleTree(hasher);
    const b = new MerkleTree(hasher);
    const leaves = Array.from({ length: 37 }, (_, i) => leaf(i + 10));
    for (const l of leaves) a.append(l);
    b.append(concat(leaves.slice(0, 5)));
    b.append(concat(leaves.slice(5)));
    expect(toHex(b.root())).toBe(toHex(a.root()));
    expect(bytesToBigInt(a.root())).toBe(referenceRoot(leaves.map(bytesToBigInt)));
    for (let h = 1; h < 64; h++) expect(b.heapNode(h)).toEqual(a.heapNode(h));
  });

  it("returns proofs whose path rebuilds the current root for every leaf", () => {
    const tree = new MerkleTree(hasher);
    const leaves = Array.from({ length: 11 }, (_, i) => leaf(i + 100));
    tree.append(concat(leaves));
    for (let i = 0; i < leaves.length; i++) {
      const proof = tree.proof(i);
      if (!proof.ok) throw new Error(proof.error);
      expect(proof.value.path).toHaveLength(32);
      let node = bytesToBigInt(leaves[i]!);
      proof.value.path.forEach((sibling, level) => {
        const s = bytesToBigInt(sibling);
        node = proof.value.indices[level] === 0 ? H(node, s) : H(s, node);
      });
      expect(node).toBe(bytesToBigInt(tree.root()));
      expect(proof.value.indices.slice(0, 4)).toEqual([i & 1, (i >> 1) & 1, (i >> 2) & 1, (i >> 3) & 1]);
    }
  });

  it("refuses proofs at or past nextIndex and heap indices outside 1..2^33-1", () => {
    const tree = new MerkleTree(hasher);
    tree.append(leaf(1));
    expect(tree.proof(1)).toEqual({ ok: false, error: "IndexOutOfRange" });
    expect(tree.proof(-1)).toEqual({ ok: false, error: "IndexOutOfRange" });
    expect(tree.heapNode(0)).toEqual({ ok: false, error: "IndexOutOfRange" });
    expect(tree.heapNode(2 ** 33)).toEqual({ ok: false, error: "IndexOutOfRange" });
  });

  it("serves heap-order nodes: 1 is the root, 2^32 + j is leaf j, empty subtrees are zero hashes", () => {
    const tree = new MerkleTree(hasher);
    tree.append(concat([leaf(1), leaf(2), leaf(3)]));
    const get = (h: number): Uint8Array => {
      const r = tree.heapNode(h);
      if (!r.ok) throw new Error(r.error);
      return r.value;
    };
    expect(get(1)).toEqual(tree.root());
    expect(get(2 ** 32 + 2)).toEqual(leaf(3));
    expect(get(2 ** 32 + 3)).toEqual(new Uint8Array(32));
    expect(get(3)).toEqual(tree.zeros[31]);
    expect(get(2 ** 33 - 1)).toEqual(new Uint8Array(32));
    expect(bytesToBigInt(get(2 ** 31))).toBe(H(bytesToBigInt(leaf(1)), bytesToBigInt(leaf(2))));
    expect(bytesToBigInt(get(2 ** 30))).toBe(H(H(bytesToBigInt(leaf(1)), bytesToBigInt(leaf(2))), H(bytesToBigInt(leaf(3)), 0n)));
  });

  it("accepts the last 1,000 roots (the current one and 999 before it), as the pool program's ring holds them, and forgets older ones", () => {
    expect(ROOT_HISTORY_SIZE).toBe(1000);
    expect(ROOT_HISTORY_SIZE).toBe(PROGRAM_ROOT_HISTORY_SIZE);
    // Depth 10 (1,024 leaves) keeps 1,002 appends quick; the history does not depend on the depth.
    const tree = new MerkleTree(hasher, 10);
    const roots: Uint8Array[] = [];
    for (let i = 0; i < 1002; i++) {
      const r = tree.append(leaf(i));
      if (r.ok) roots.push(r.value.root);
    }
    // roots[k] is the root after k + 1 leaves: of 1,002 roots the ring keeps roots[2] to roots[1001].
    expect(tree.isKnownRoot(roots[0]!)).toBe(false);
    expect(tree.isKnownRoot(roots[1]!)).toBe(false);
    expect(tree.isKnownRoot(roots[2]!)).toBe(true);
    expect(tree.isKnownRoot(roots[1001]!)).toBe(true);
    expect(tree.recentRoots().map(toHex)).toEqual(roots.slice(2).map(toHex));
  });
});

describe("FrontierTree", () => {
  it("tracks the same root and history as the full tree, and resumes from its saved state", () => {
    const full = new MerkleTree(hasher);
    let frontier = new FrontierTree(hasher);
    for (let i = 0; i < 9; i++) {
      const l = leaf(i + 500);
      expect(frontier.insert(l)).toEqual({ ok: true, value: i });
      full.append(l);
      expect(toHex(frontier.root())).toBe(toHex(full.root()));
      if (i === 4) frontier = new FrontierTree(hasher, frontier.state());
    }
    expect(frontier.isKnownRoot(full.root())).toBe(true);
  });

  it("states the roots oldest first in one buffer, the newest being the root, and resumes from that state", () => {
    const frontier = new FrontierTree(hasher);
    const roots: string[] = [];
    for (let i = 0; i < 5; i++) {
      frontier.insert(leaf(i + 700));
      roots.push(toHex(frontier.root()));
    }
    const state = frontier.state();
    expect(state.nextIndex).toBe(5);
    expect(toHex(state.roots)).toBe(roots.join(""));
    const resumed = new FrontierTree(hasher, state);
    expect(toHex(resumed.root())).toBe(roots[4]);
    expect(toHex(resumed.state().filledSubtrees)).toBe(toHex(state.filledSubtrees));
    expect(resumed.isKnownRoot(frontier.root())).toBe(true);
  });
});
