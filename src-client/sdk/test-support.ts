/**
 * Test code shared by the SDK's tests (a test-support.ts file counts as a
 * test for the layer rules): a temporary folder around a block of tests, a
 * note, a stand-in proof.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { SnarkjsProof } from "../../src-shared/zk/proof-codec";
import { createNote, type CreateNoteOptions, type DepositNote } from "./note";

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
