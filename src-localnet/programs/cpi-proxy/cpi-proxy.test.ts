import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { findClang } from "../../../tools/sbf/compile";
import { CPI_PROXY_SO, buildCpiProxy } from "./index";

describe("cpi-proxy (a test program of the local validator)", () => {
  // As for programs/*: the committed binary is the source's (tools/sbf/build.ts --check does the same for those).
  it.skipIf(!findClang())("the committed cpi-proxy.so is what its source builds to", () => {
    const built = buildCpiProxy(findClang()!);
    expect(Buffer.compare(Buffer.from(built), readFileSync(CPI_PROXY_SO))).toBe(0);
  });
});
