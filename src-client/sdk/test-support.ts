/**
 * Test code shared by the SDK's tests (a test-support.ts file counts as a
 * test for the layer rules): a temporary folder around a block of tests, a note.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
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
