import { describe, expect, it } from "vitest";
import { RejectedRelays } from "./relay-rejections";

const rejection = (i: number, error = "InvalidProof") => ({
  at: i,
  kind: "relay" as const,
  network: "mainnet" as const,
  mint: "m",
  fault: "client" as const,
  error,
  detail: `#${i}`,
});

describe("RejectedRelays", () => {
  it("keeps only the newest `capacity` rejections, newest first, but counts every one per error name", () => {
    const list = new RejectedRelays(3, 0);
    for (let i = 1; i <= 10; i++) list.add(rejection(i, i % 2 ? "InvalidProof" : "InvalidRoot"));
    expect(list.recent().map((r) => r.at)).toEqual([10, 9, 8]);
    expect(list.recent(2).map((r) => r.at)).toEqual([10, 9]);
    expect(list.total).toBe(10);
    expect(list.counts()).toEqual({ InvalidProof: 5, InvalidRoot: 5 });
  });

  it("cuts a long detail", () => {
    const list = new RejectedRelays(2, 0);
    list.add({ ...rejection(1), detail: "x".repeat(1000) });
    expect(list.recent()[0]!.detail.length).toBe(301);
  });
});
