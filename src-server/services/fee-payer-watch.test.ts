import { describe, expect, it } from "vitest";
import { FeePayerWatch } from "./fee-payer-watch";

describe("FeePayerWatch", () => {
  const setup = () => {
    let t = 0;
    let balance: bigint | null = 1_000_000n;
    const w = new FeePayerWatch(new Map([["mainnet", async () => balance]]), { now: () => t });
    return {
      w,
      at: (ms: number) => (t = ms),
      set: (b: bigint | null) => (balance = b),
    };
  };

  it("knows no runway before any spend, and none left when the balance is zero", async () => {
    const s = setup();
    await s.w.sample();
    expect(s.w.status()[0]).toMatchObject({ lamports: 1_000_000n, spentLast24h: 0n, runwayHours: null });
    s.set(0n);
    s.at(1000);
    await s.w.sample();
    expect(s.w.status()[0]!.runwayHours).toBe(0);
  });

  it("divides the balance by the last hours' spend, not counting a top-up as spend", async () => {
    const s = setup();
    await s.w.sample();
    s.at(3600_000);
    s.set(900_000n); // 100 000 spent in an hour
    await s.w.sample();
    s.at(2 * 3600_000);
    s.set(1_800_000n); // top-up
    await s.w.sample();
    const st = s.w.status()[0]!;
    expect(st.spentLast24h).toBe(100_000n);
    // 100 000 over 2 h observed = 50 000 / h; 1 800 000 lasts 36 h.
    expect(st.runwayHours).toBeCloseTo(36, 5);
  });

  it("forgets spend older than 24 hours", async () => {
    const s = setup();
    await s.w.sample();
    s.at(3600_000);
    s.set(900_000n);
    await s.w.sample();
    s.at(30 * 3600_000);
    await s.w.sample();
    expect(s.w.status()[0]).toMatchObject({ spentLast24h: 0n, runwayHours: null });
  });

  it("reports an unreadable balance as null", async () => {
    const w = new FeePayerWatch(new Map([["devnet", async () => Promise.reject(new Error("down"))]]));
    await w.sample();
    expect(w.status()[0]).toMatchObject({ network: "devnet", lamports: null, runwayHours: null });
  });
});
