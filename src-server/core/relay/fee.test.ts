import { describe, expect, it } from "vitest";
import { decideFee, quoteFee, type FeeInForce } from "./fee";

const policy = (bps: number, floor = 0n) => ({ bps, floor });
const only = (bps: number, floor = 0n): FeeInForce => ({ current: policy(bps, floor), previous: null });

describe("quoteFee: max(floor, depositSize · bps / 10 000), the recipient gets the rest", () => {
  it("charges bps, rounded down, or the floor when that is more", () => {
    expect(quoteFee(1_000_000n, policy(25))).toEqual({ fee: 2_500n, toRecipient: 997_500n });
    expect(quoteFee(1_000n, policy(25, 10n))).toEqual({ fee: 10n, toRecipient: 990n });
  });
  it("refuses a deposit the fee would swallow", () => {
    expect(quoteFee(10n, policy(0, 10n))).toBeNull();
  });
});

describe("decideFee: the fee a relay charges under protocol v2", () => {
  it("charges the published fee when the request names none", () => {
    expect(decideFee(1_000_000n, null, only(25), 0)).toEqual({ ok: true, fee: 2_500n });
  });
  it("charges exactly the fee asked when it is at or above the published one (the proof binds that value)", () => {
    expect(decideFee(1_000_000n, 2_500n, only(25), 0)).toEqual({ ok: true, fee: 2_500n });
    expect(decideFee(1_000_000n, 9_000n, only(25), 0)).toEqual({ ok: true, fee: 9_000n });
  });
  it("refuses a fee below the published one, saying what the fee is", () => {
    expect(decideFee(1_000_000n, 2_499n, only(25), 0)).toEqual({ ok: false, kind: "TooLow", published: 2_500n });
    expect(decideFee(1_000_000n, 0n, only(25), 0)).toEqual({ ok: false, kind: "TooLow", published: 2_500n });
  });
  it("accepts the replaced fee until its grace ends after an increase, and not a unit below it", () => {
    const inForce: FeeInForce = { current: policy(50), previous: { policy: policy(25), acceptedUntil: 120_000 } };
    expect(decideFee(1_000_000n, 2_500n, inForce, 119_999)).toEqual({ ok: true, fee: 2_500n });
    expect(decideFee(1_000_000n, 2_499n, inForce, 119_999)).toEqual({ ok: false, kind: "TooLow", published: 5_000n });
    expect(decideFee(1_000_000n, 2_500n, inForce, 120_000)).toEqual({ ok: false, kind: "TooLow", published: 5_000n });
  });
  it("answers Uncoverable when the pool's fee is at least the deposit", () => {
    expect(decideFee(10n, null, only(0, 10n), 0)).toEqual({ ok: false, kind: "Uncoverable" });
  });
});
