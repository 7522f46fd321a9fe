import { describe, expect, it } from "vitest";
import type { HealthCheck } from "../../src-shared/api/public";
import { HealthService } from "./health";

/** A check source that counts its calls and answers when told to. */
function countingSource() {
  let calls = 0;
  let release: () => void = () => {};
  const source = () => {
    calls += 1;
    return new Promise<HealthCheck[]>((resolve) => {
      release = () => resolve([{ name: "chain:mainnet", ok: true, detail: "slot 1" }]);
    });
  };
  return { source, calls: () => calls, release: () => release() };
}

describe("HealthService.cached", () => {
  it("runs the checks once for callers that arrive together, and again only after the 5 s window", async () => {
    let now = 1_000_000;
    const health = new HealthService(5_000, () => now);
    const chain = countingSource();
    health.add("chain:mainnet", chain.source);

    const together = Array.from({ length: 50 }, () => health.cached());
    expect(chain.calls()).toBe(1);
    chain.release();
    const reports = await Promise.all(together);
    expect(new Set(reports.map((r) => r.checkedAt))).toEqual(new Set([1_000_000]));

    now += 4_999;
    await health.cached();
    expect(chain.calls()).toBe(1);

    now += 1;
    const next = health.cached();
    expect(chain.calls()).toBe(2);
    chain.release();
    expect((await next).checkedAt).toBe(1_005_000);
    expect(health.refreshCount).toBe(2);
  });

  it("report() (the operator's view) always runs the checks", async () => {
    const health = new HealthService(5_000, () => 0);
    let calls = 0;
    health.add("store", () => (calls++, [{ name: "store", ok: true, detail: "" }]));
    await health.report();
    await health.report();
    expect(calls).toBe(2);
  });
});
