import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src-shared/ceremony/sha256";

const node = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");

describe("sha256 (pure)", () => {
  it("gives the FIPS 180-4 digests of the empty string and 'abc'", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("agrees with node:crypto at every length around the 64-byte block and padding edges", () => {
    for (let n = 0; n <= 200; n++) {
      const b = randomBytes(n);
      expect(sha256Hex(b), `length ${n}`).toBe(node(b));
    }
  });

  it("agrees with node:crypto on a program-sized input and on non-ASCII text", () => {
    const big = randomBytes(300_000);
    expect(sha256Hex(big)).toBe(node(big));
    expect(sha256Hex("α β γ δ — ✓")).toBe(node("α β γ δ — ✓"));
  });
});
