import { describe, expect, it } from "vitest";
import { pgStoresPerTest } from "../../../tests/support/pg-stores";
import { FeeSchedule } from "../fee-schedule";
import { PauseService } from "./pause-service";

const pg = pgStoresPerTest();
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const FEES = { default: { bps: 25, floor: 0n }, pools: { mainnet: {}, devnet: {} }, graceSec: 60 };

describe("operator settings on one PostgreSQL database, read by two instances", () => {
  it("a pause switched on one instance refuses relays on the other once it reads the switches again, and its release lets them on", async () => {
    const a = await pg.open();
    const b = await pg.open({ url: pg.urlOf(a) });
    const onA = await PauseService.open(a.console);
    const onB = await PauseService.open(b.console);
    await onA.set("mainnet", USDC, true, "vault migration");
    expect(onB.pausedReason("mainnet", USDC)).toBeNull();
    await onB.refresh();
    expect(onB.pausedReason("mainnet", USDC)).toMatch(/vault migration/);
    await onA.set("mainnet", USDC, false, undefined);
    await onB.refresh();
    expect(onB.pausedReason("mainnet", USDC)).toBeNull();
  });

  it("a fee changed on one instance is the other's once it reads the changes again", async () => {
    const a = await pg.open();
    const b = await pg.open({ url: pg.urlOf(a) });
    const onA = await FeeSchedule.open(FEES, a.console, 60_000);
    const onB = await FeeSchedule.open(FEES, b.console, 60_000);
    expect((await onA.set("mainnet", USDC, { bps: 40, floor: 1000n })).ok).toBe(true);
    expect(onB.policyFor("mainnet", USDC)).toEqual({ bps: 25, floor: 0n });
    await onB.refresh();
    expect(onB.policyFor("mainnet", USDC)).toEqual({ bps: 40, floor: 1000n });
    // The fee it replaced stays acceptable on both for the grace period.
    expect(onB.inForce("mainnet", USDC).previous?.policy).toEqual({ bps: 25, floor: 0n });
  });
});
