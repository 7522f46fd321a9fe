import { describe, expect, it } from "vitest";
import { bytesToHex, formatCount, formatUptime, humanizeName, shortHex, shortenMiddle } from "./format";

describe("format", () => {
  it("writes bytes as 0x-prefixed lowercase hex", () => {
    expect(bytesToHex([0, 1, 171, 255])).toBe("0x0001abff");
    expect(bytesToHex(new Array<number>(32).fill(0))).toBe("0x" + "0".repeat(64));
  });

  it("elides the middle of long values only", () => {
    expect(shortenMiddle("abcdef", 2, 2)).toBe("ab…ef");
    expect(shortenMiddle("abcde", 2, 2)).toBe("abcde");
    expect(shortHex("0x" + "a".repeat(10) + "b".repeat(54))).toBe("0xaaaaaa…bbbbbb");
  });

  it("shows uptime in its two largest units", () => {
    expect(formatUptime(0)).toBe("0 s");
    expect(formatUptime(59.9)).toBe("59 s");
    expect(formatUptime(303)).toBe("5 min 3 s");
    expect(formatUptime(2 * 3600 + 14 * 60 + 9)).toBe("2 h 14 min");
    expect(formatUptime(3 * 86400 + 4 * 3600 + 5)).toBe("3 d 4 h");
    expect(formatUptime(-5)).toBe("0 s");
  });

  it("groups thousands", () => {
    expect(formatCount(0)).toBe("0");
    expect(formatCount(1234567)).toBe("1,234,567");
  });

  it("turns check names into labels", () => {
    expect(humanizeName("store")).toBe("Store");
    expect(humanizeName("chain.mainnet")).toBe("Chain mainnet");
    expect(humanizeName("indexerLag")).toBe("Indexer lag");
    expect(humanizeName("chain:mainnet")).toBe("Chain mainnet");
    expect(humanizeName("fee-balance")).toBe("Fee balance");
  });
});
