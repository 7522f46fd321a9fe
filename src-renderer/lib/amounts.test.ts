import { describe, expect, it } from "vitest";
import { formatAmount, mintLabel } from "./mints";
import { formatAgo, formatDuration } from "./time";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const SOL = "So11111111111111111111111111111111111111112";

describe("formatAmount", () => {
  it("shows base units in the mint's units, exactly", () => {
    expect(formatAmount("1002500", USDC)).toBe("1.0025 USDC");
    expect(formatAmount("2500", USDC)).toBe("0.0025 USDC");
    expect(formatAmount("0", USDC)).toBe("0 USDC");
    expect(formatAmount("1234567000000000", SOL)).toBe("1,234,567 SOL");
    expect(formatAmount("18446744073709551615", SOL)).toBe("18,446,744,073.709551615 SOL");
  });

  it("keeps base units for an unknown mint", () => {
    expect(formatAmount("1234567", "11111111111111111111111111111111")).toBe("1,234,567 units");
    expect(mintLabel("11111111111111111111111111111111")).toBe("1111…1111");
    expect(mintLabel(USDC)).toBe("USDC");
  });
});

describe("time", () => {
  it("says how long ago and how long", () => {
    expect(formatAgo(1_000, 3_000)).toBe("just now");
    expect(formatAgo(0, 90_000)).toBe("1 min ago");
    expect(formatAgo(0, 3 * 86_400_000)).toBe("3 d ago");
    expect(formatDuration(850)).toBe("850 ms");
    expect(formatDuration(2_440)).toBe("2.4 s");
    expect(formatDuration(65_000)).toBe("1 min 5 s");
  });
});
