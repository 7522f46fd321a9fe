import { describe, expect, it } from "vitest";
import { defaultStandardFloor, isStandardAmount, splitIntoStandardAmounts, standardAmounts } from "./standard-amounts";

describe("standard amounts", () => {
  it("lists 1-2-5 x 10^k from the floor to the ceiling", () => {
    expect(standardAmounts(1_000n, 60_000n)).toEqual([1_000n, 2_000n, 5_000n, 10_000n, 20_000n, 50_000n]);
    expect(standardAmounts(1_500n, 5_000n)).toEqual([2_000n, 5_000n]);
  });

  it("splits an amount greedily and keeps what is below the floor as a remainder", () => {
    expect(splitIntoStandardAmounts(3_000_000n, 1_000n)).toEqual({ pieces: [2_000_000n, 1_000_000n], remainder: 0n });
    expect(splitIntoStandardAmounts(1_234_567n, 1_000n)).toEqual({ pieces: [1_000_000n, 200_000n, 20_000n, 10_000n, 2_000n, 2_000n], remainder: 567n });
    expect(splitIntoStandardAmounts(999n, 1_000n)).toEqual({ pieces: [], remainder: 999n });
  });

  it("every piece of a split is standard and the parts add up to the total", () => {
    for (const total of [1n, 7n, 1_000n, 4_999n, 9_999_999n, 123_456_789_012n]) {
      const { pieces, remainder } = splitIntoStandardAmounts(total, 1_000n);
      expect(pieces.every((p) => isStandardAmount(p, 1_000n))).toBe(true);
      expect(pieces.reduce((a, b) => a + b, 0n) + remainder).toBe(total);
      expect(remainder < 1_000n || pieces.length > 0).toBe(true);
    }
  });

  it("recognizes standard amounts and refuses the others", () => {
    expect(isStandardAmount(500_000n, 1_000n)).toBe(true);
    expect(isStandardAmount(300_000n, 1_000n)).toBe(false);
    expect(isStandardAmount(500n, 1_000n)).toBe(false);
  });

  it("sets the default floor at a thousandth of a token", () => {
    expect(defaultStandardFloor(6)).toBe(1_000n);
    expect(defaultStandardFloor(9)).toBe(1_000_000n);
    expect(defaultStandardFloor(0)).toBe(1n);
  });
});
