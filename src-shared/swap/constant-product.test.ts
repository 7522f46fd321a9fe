import { describe, expect, it } from "vitest";
import { cpAmountOut, cpPriceImpactPct, cpSwap } from "./constant-product";

describe("cpAmountOut: floor(amountIn · 997 · rOut / (rIn · 1000 + amountIn · 997))", () => {
  it.each([
    // [amountIn, rIn, rOut, out]: worked by hand, e.g. 1000·997·2e6 / (1e9 + 997 000) = 1992.01…
    [10n, 1000n, 1000n, 9n],
    [1000n, 1_000_000n, 2_000_000n, 1992n],
    [1_000_000n, 50_000_000_000n, 10_000_000_000_000n, 199_396_024n],
    [999_500n, 1_000_000_000n, 1_000_000_000n, 995_509n],
    [1007n, 1000n, 1000n, 500n],
  ])("in %s against (%s, %s) gives %s", (amountIn, rIn, rOut, out) => {
    expect(cpAmountOut(amountIn, rIn, rOut)).toBe(out);
  });

  it("is the largest output that keeps (rIn·1000 + in·997)·(rOut − out) ≥ rIn·1000·rOut, for many sizes", () => {
    const cases: [bigint, bigint, bigint][] = [];
    for (const rIn of [1n, 7n, 1000n, 123_456_789n, 2n ** 64n + 13n])
      for (const rOut of [1n, 3n, 999n, 987_654_321n, 2n ** 80n]) for (const a of [1n, 2n, 999n, 1000n, 10n ** 9n, 2n ** 70n]) cases.push([a, rIn, rOut]);
    for (const [a, rIn, rOut] of cases) {
      const out = cpAmountOut(a, rIn, rOut);
      const left = rIn * 1000n + a * 997n;
      expect(left * (rOut - out) >= rIn * 1000n * rOut).toBe(true);
      expect(left * (rOut - out - 1n) < rIn * 1000n * rOut).toBe(true);
    }
  });
});

describe("cpPriceImpactPct: 100 · amountIn / (rIn + amountIn), percent, fee excluded", () => {
  it.each([
    [1_000_000n, 1_000_000n, 50],
    [1n, 99n, 1],
    [1000n, 1_000_000n, 0.0999000999],
    [3n, 1n, 75],
  ])("in %s against rIn %s is %s %", (a, rIn, pct) => {
    expect(cpPriceImpactPct(a, rIn)).toBeCloseTo(pct, 9);
  });

  it("keeps precision with reserves beyond 2^53", () => {
    expect(cpPriceImpactPct(2n ** 60n, 3n * 2n ** 60n)).toBe(25);
  });
});

describe("cpSwap", () => {
  it("reports output, fee in the input mint, impact and the reserves after", () => {
    const r = cpSwap(1000n, 1_000_000n, 2_000_000n);
    expect(r).toEqual({
      ok: true,
      value: {
        amountIn: 1000n,
        amountOut: 1992n,
        feeAmount: 3n,
        priceImpactPct: cpPriceImpactPct(1000n, 1_000_000n),
        reserveInAfter: 1_001_000n,
        reserveOutAfter: 1_998_008n,
      },
    });
  });

  it("charges at least one unit of fee on tiny inputs (ceil of 0.3%)", () => {
    const r = cpSwap(1n, 10n, 10_000n);
    expect(r.ok && r.value.feeAmount).toBe(1n);
    const r2 = cpSwap(1001n, 10n ** 12n, 10n ** 12n);
    expect(r2.ok && r2.value.feeAmount).toBe(4n);
  });

  it("allows an output of exactly half the output reserve and refuses one unit more", () => {
    expect(cpSwap(1007n, 1000n, 1000n)).toMatchObject({ ok: true, value: { amountOut: 500n } });
    const over = cpSwap(1008n, 1000n, 1000n);
    expect(over.ok).toBe(false);
    expect(!over.ok && over.error.detail).toMatch(/exceeds half/);
  });

  it("refuses empty reserves and an output that rounds to zero", () => {
    expect(cpSwap(10n, 0n, 1000n).ok).toBe(false);
    expect(cpSwap(10n, 1000n, 0n).ok).toBe(false);
    const dust = cpSwap(1n, 1_000_000n, 1000n);
    expect(!dust.ok && dust.error.detail).toMatch(/less than one base unit/);
  });

  it("throws on a non-positive input: callers validate amounts first", () => {
    expect(() => cpSwap(0n, 10n, 10n)).toThrow(RangeError);
  });

  it("conserves tokens: what leaves the output reserve is what the trader gets", () => {
    const r = cpSwap(123_456n, 9_876_543n, 5_555_555n);
    if (!r.ok) throw new Error("expected a swap");
    expect(r.value.reserveOutAfter + r.value.amountOut).toBe(5_555_555n);
    expect(r.value.reserveInAfter - r.value.amountIn).toBe(9_876_543n);
  });
});
