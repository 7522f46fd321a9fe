import { beforeAll, describe, expect, it } from "vitest";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { ProofJson, writeNodeJson } from "./proof-json";
import { MerkleTree } from "./tree";

let hasher: FieldHasher;
beforeAll(async () => {
  hasher = await createPoseidonHasher();
});

const ADDRESS = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
const text = (b: Uint8Array | null): string => (b ? Buffer.from(b).toString("latin1") : "null");

/** The answer as the spec writes it, from the tree's own proof. */
function expected(tree: MerkleTree, leaf: number): string {
  const p = tree.proof(leaf);
  if (!p.ok) throw new Error(p.error);
  return JSON.stringify({ address: ADDRESS, json: { path: p.value.path.map((n) => Array.from(n)), indices: p.value.indices } });
}

/** Leaves whose bytes cover 0, one-, two- and three-digit values (below the field modulus: first byte < 0x30). */
function leaves(first: number, count: number): Uint8Array {
  const out = new Uint8Array(count * 32);
  for (let i = 0; i < out.length; i++) out[i] = (i * 37 + first * 101) % 256;
  for (let i = 0; i < count; i++) out[i * 32] = (first + i) % 0x30;
  return out;
}

describe("ProofJson", () => {
  it("writes a node exactly as JSON.stringify writes its byte array, for every byte value", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const out = new Uint8Array(2000);
    for (let k = 0; k < 256; k += 32) {
      const node = all.subarray(k, k + 32);
      expect(Buffer.from(out.subarray(0, writeNodeJson(out, 0, node))).toString("latin1")).toBe(JSON.stringify(Array.from(node)));
    }
  });

  it("answers every leaf byte-identical to JSON.stringify of the tree's proof, cached or not, at every segment level", () => {
    const tree = new MerkleTree(hasher);
    tree.append(leaves(0, 300));
    for (const opts of [{}, { maxAnswers: 0 }, { segmentLevel: 0 }, { segmentLevel: 40 }, { maxAnswers: 3, segmentLevel: 2 }]) {
      const answers = new ProofJson(tree, ADDRESS, opts);
      for (let round = 0; round < 2; round++) {
        for (let leaf = 0; leaf < 300; leaf++) expect(text(answers.answer(leaf))).toBe(expected(tree, leaf));
      }
    }
  });

  it("answers from the grown tree after an append, not from before it", () => {
    const tree = new MerkleTree(hasher);
    tree.append(leaves(0, 5));
    const answers = new ProofJson(tree, ADDRESS, { segmentLevel: 0 });
    const before = [0, 1, 2, 3, 4].map((i) => text(answers.answer(i)));
    for (let added = 0; added < 70; added++) {
      tree.append(leaves(5 + added, 1));
      for (let leaf = 0; leaf < tree.nextIndex; leaf++) expect(text(answers.answer(leaf))).toBe(expected(tree, leaf));
    }
    // Every old leaf's path changed somewhere (the new leaves are in its sibling subtrees).
    [0, 1, 2, 3, 4].forEach((i) => expect(text(answers.answer(i))).not.toBe(before[i]));
  });

  it("answers in the caller's copy of the bytes, never in its own reused buffer", () => {
    const tree = new MerkleTree(hasher);
    tree.append(leaves(0, 4));
    const copies: Uint8Array[] = [];
    const answers = new ProofJson(tree, ADDRESS, { maxAnswers: 0, copy: (b) => (copies.push(new Uint8Array(b)), copies.at(-1)!) });
    const first = answers.answer(0)!;
    answers.answer(3);
    expect(copies).toHaveLength(2);
    expect(first).toBe(copies[0]);
    expect(text(first)).toBe(expected(tree, 0));
  });

  it("has no answer for an index that is not a leaf yet", () => {
    const tree = new MerkleTree(hasher);
    const answers = new ProofJson(tree, ADDRESS);
    expect(answers.answer(0)).toBeNull();
    tree.append(leaves(0, 2));
    expect(answers.answer(2)).toBeNull();
    expect(answers.answer(-1)).toBeNull();
    expect(answers.answer(1.5)).toBeNull();
    expect(text(answers.answer(1))).toBe(expected(tree, 1));
  });
});
