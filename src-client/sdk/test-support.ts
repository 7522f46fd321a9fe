/**
 * Test code shared by the SDK's tests (a test-support.ts file counts as a
 * test for the layer rules): a temporary folder around a block of tests.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";

/** A folder of its own for the tests around the call, made before them and removed after; the answer gives its path. */
export function tempDirAround(prefix: string): () => string {
  let dir = "";
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), prefix));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return () => dir;
}
