import { describe, expect, it } from "vitest";
import { initMcl, mcl, mclGlueDecode } from "./mcl";

describe("mcl-wasm as mcl.ts loads it", () => {
  it("decodes its wasm with Buffer, not the glue's per-byte callback (70+ ms of each verifier thread's boot)", async () => {
    // A new mcl-wasm whose glue decodes otherwise would load as shipped: this says so, so the loader can be looked at again.
    expect(mclGlueDecode()).toBe("buffer");
    await initMcl();
    expect(mcl.curveType).toBe(mcl.BN_SNARK1);
    // The generator of G1 is (1, 2): the module decoded from base64 computes as mcl does.
    const g = new mcl.G1();
    g.setStr("1 1 2");
    const two = new mcl.Fr();
    two.setInt(2);
    expect(g.isValid()).toBe(true);
    expect(mcl.add(g, g).isEqual(mcl.mul(g, two))).toBe(true);
  });
});
