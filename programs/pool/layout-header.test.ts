import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generateLayoutHeader, HEADER_PATH } from "../../tools/pool-layout/gen-layout";

describe("programs/pool/src/layout.h", () => {
  it("is exactly what tools/pool-layout/gen-layout.ts makes of src-shared/pool-program's constants (rerun it after a layout change)", () => {
    expect(readFileSync(HEADER_PATH, "utf8"), "stale header: npm run gen:pool-layout").toBe(generateLayoutHeader());
  });
});
