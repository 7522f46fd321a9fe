/**
 * Test code shared by the SDK's tests (a test-support.ts file counts as a
 * test for the layer rules): a temporary folder around a block of tests, a
 * note, a stand-in proof.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { TREE_DEPTH } from "../../src-shared/pool-program/constants";
import type { SnarkjsProof } from "../../src-shared/zk/proof-codec";
import { createNote, type CreateNoteOptions, type DepositNote } from "./note";
import type { MerklePathInput } from "./prove";
import { leafIndexBits } from "./tree";

/** A folder of its own for the tests around the call, made before them and removed after; the answer gives its path. */
export function tempDirAround(prefix: string): () => string {
  let dir = "";
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), prefix));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return () => dir;
}

/** A fresh note, or the test stops: making one fails only on a bad argument. */
export async function createNoteOrThrow(options: CreateNoteOptions): Promise<DepositNote> {
  const r = await createNote(options);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

/** A well-formed Groth16 proof that proves nothing: what a stand-in prover answers where proving is not what a test checks. */
export const STAND_IN_PROOF: SnarkjsProof = {
  pi_a: ["1", "2", "1"],
  pi_b: [
    ["3", "4"],
    ["5", "6"],
    ["1", "0"],
  ],
  pi_c: ["7", "8", "1"],
};

/** Root and path of leaves[index] in a depth-32 tree whose other leaves are empty (0), built level by level: the tests' own tree, apart from the SDK's. */
export function localTree(hasher: FieldHasher, leaves: Uint8Array[], index: number): MerklePathInput {
  const zeros: Uint8Array[] = [new Uint8Array(32)];
  for (let i = 0; i < TREE_DEPTH; i++) zeros.push(hasher.hash([zeros[i]!, zeros[i]!]));
  const path: Uint8Array[] = [];
  let level = leaves.slice();
  let idx = index;
  for (let i = 0; i < TREE_DEPTH; i++) {
    path.push(level[idx ^ 1] ?? zeros[i]!);
    const next: Uint8Array[] = [];
    for (let j = 0; j < level.length; j += 2) next.push(hasher.hash([level[j]!, level[j + 1] ?? zeros[i]!]));
    level = next;
    idx >>= 1;
  }
  return { root: level[0]!, path, indices: leafIndexBits(index) };
}
