/**
 * Relay records in PostgreSQL: the record is the nullifier's lock across instances, final
 * records are never moved or sent again, and every field comes back as it went in.
 */
import { describe, expect, it } from "vitest";
import type { SubmissionAttempt } from "../../ports/chain";
import { RelayState } from "../../core/relay/states";
import { pgStoresPerTest } from "../../../tests/support/pg-stores";
import type { NewRelayRecord as HeldNewRelayRecord } from "../../ports/relay-store";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const NULLIFIER = "0b".repeat(32);
const T0 = 1_780_000_000_000;
const pg = pgStoresPerTest();

let n = 0;
function record(over: Partial<HeldNewRelayRecord> = {}): HeldNewRelayRecord {
  return {
    id: `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`,
    kind: "relay",
    network: "mainnet",
    mint: USDC,
    outputMint: null,
    recipient: "Recipient1111111111111111111111111111111111",
    nullifierHash: NULLIFIER,
    depositSize: 18_446_744_073_709_551_615n,
    changeCommitment: "ab".repeat(32),
    fee: 1_234_567n,
    relayer: "Relayer111111111111111111111111111111111111",
    minOut: null,
    receivedAt: T0 + n,
    holder: "instance-a",
    ...over,
  };
}

const attempt = (n: number, verdict: SubmissionAttempt["verdict"] = "pending"): SubmissionAttempt => ({
  n,
  signature: `sig${n}`,
  blockhash: `hash${n}`,
  lastValidBlockHeight: 1000 + n,
  computeUnitLimit: 200_000,
  computeUnitPriceMicroLamports: 5,
  networkFeeLamports: 5000 + n,
  sentAt: T0 + n,
  broadcasts: 1,
  verdict,
  verdictAt: verdict === "pending" ? null : T0 + 10 + n,
  slot: verdict === "landed" ? 77 : null,
  detail: null,
});

describe("PgRelayStore", () => {
  it("lets exactly one of 8 concurrent creates of one nullifier in, across two instances", async () => {
    const a = await pg.open();
    const b = await pg.open({ url: pg.urlOf(a) });
    const records = Array.from({ length: 8 }, (_, i) => record({ holder: i % 2 ? "instance-b" : "instance-a" }));
    const answers = await Promise.all(records.map((r, i) => (i % 2 ? b : a).relays.create(r, RelayState.received(r.receivedAt))));
    expect(answers.filter((x) => x === "created")).toHaveLength(1);
    expect(answers.filter((x) => x === "locked")).toHaveLength(7);
    const stored = await a.relays.recent(10);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.id).toBe(records[answers.indexOf("created")]!.id);
  });

  it("frees the nullifier once its record finally failed, and only then", async () => {
    const s = await pg.open();
    const first = record();
    expect(await s.relays.create(first, RelayState.received(T0))).toBe("created");
    await s.relays.advance(first.id, RelayState.submitted(T0 + 1));
    expect(await s.relays.create(record(), RelayState.received(T0 + 2))).toBe("locked");
    await s.relays.advance(first.id, RelayState.failed(T0 + 3, "RelayFailed", "expired unlanded"));
    const second = record();
    expect(await s.relays.create(second, RelayState.received(T0 + 4))).toBe("created");
    // The lock is per (network, mint, nullifier): another mint's record of the same nullifier is its own.
    expect(await s.relays.create(record({ mint: "So11111111111111111111111111111111111111112" }), RelayState.received(T0 + 5))).toBe("created");
    await s.relays.advance(second.id, RelayState.confirmed(T0 + 6, "landed-sig"));
    expect(await s.relays.create(record(), RelayState.received(T0 + 7))).toBe("locked");
  });

  it("refuses an attempt on a final record and writes nothing", async () => {
    const s = await pg.open();
    const r = record();
    await s.relays.create(r, RelayState.received(T0));
    expect(await s.relays.recordAttempt(r.id, attempt(1))).toBe(true);
    await s.relays.advance(r.id, RelayState.failed(T0 + 5, "RelayFailed", "resolved by another instance"));
    expect(await s.relays.recordAttempt(r.id, attempt(2))).toBe(false);
    expect(await s.relays.recordAttempt(r.id, attempt(1, "landed"))).toBe(false);
    const got = await s.relays.get(r.id);
    expect(got!.attempts).toEqual([attempt(1)]);
    expect(got!.networkFeeLamports).toBeNull();
    await expect(s.relays.recordAttempt("no-such-id", attempt(1))).rejects.toThrow(/no relay record/);
  });

  it("replaces an attempt by its number, keeps the order, and records the fee of a verdict", async () => {
    const s = await pg.open();
    const r = record();
    await s.relays.create(r, RelayState.received(T0));
    await s.relays.recordAttempt(r.id, attempt(1));
    await s.relays.recordAttempt(r.id, attempt(2));
    await s.relays.recordAttempt(r.id, attempt(1, "expired"));
    await s.relays.recordAttempt(r.id, attempt(2, "landed"));
    const got = await s.relays.get(r.id);
    expect(got!.attempts).toEqual([attempt(1, "expired"), attempt(2, "landed")]);
    expect(got!.networkFeeLamports).toBe(5002n);
  });

  it("never moves a final record back, and keeps every step it reached", async () => {
    const s = await pg.open();
    const r = record();
    await s.relays.create(r, RelayState.received(T0));
    await s.relays.advance(r.id, RelayState.verified(T0 + 1, 12));
    await s.relays.advance(r.id, RelayState.submitted(T0 + 2));
    await s.relays.advance(r.id, RelayState.confirmed(T0 + 3, "landed-sig", 41));
    await s.relays.advance(r.id, RelayState.failed(T0 + 4, "RelayFailed", "late"));
    await s.relays.advance(r.id, RelayState.submitted(T0 + 5));
    const got = await s.relays.get(r.id);
    expect(got!.status).toBe("confirmed");
    expect(got!.signature).toBe("landed-sig");
    expect(got!.changeLeafIndex).toBe(41);
    expect(got!.error).toBeNull();
    expect(got!.steps).toEqual([
      RelayState.received(T0),
      RelayState.verified(T0 + 1, 12),
      RelayState.submitted(T0 + 2),
      RelayState.confirmed(T0 + 3, "landed-sig", 41),
    ]);
    await expect(s.relays.advance("no-such-id", RelayState.submitted(T0))).rejects.toThrow(/no relay record/);
  });

  it("gives back every field of a record as it went in, swap quote included", async () => {
    const s = await pg.open();
    const r = record({ kind: "swap", outputMint: "So11111111111111111111111111111111111111112", minOut: 999n, changeCommitment: null, holder: "instance-z" });
    await s.relays.create(r, RelayState.received(T0));
    const swap = {
      venue: "jupiter" as const,
      quotedAt: T0 + 1,
      inAmount: 10_000_000_000_000_000_000n,
      quotedOut: 42n,
      priceImpactPct: 0.125,
      slippageBps: 50,
      minOut: 40n,
      executedOut: 41n,
      slippageSeenBps: 238.09,
    };
    await s.relays.recordSwap(r.id, swap);
    const got = await s.relays.get(r.id);
    expect(got).toEqual({
      ...r,
      status: "received",
      error: null,
      signature: null,
      steps: [RelayState.received(T0)],
      swap,
      attempts: [],
      networkFeeLamports: null,
      changeLeafIndex: null,
    });
    expect(await s.relays.get("missing")).toBeNull();
  });

  it("lists every instance's unfinished records oldest first, and recent ones newest first", async () => {
    const a = await pg.open();
    const b = await pg.open({ url: pg.urlOf(a) });
    const r1 = record({ nullifierHash: "01".repeat(32), receivedAt: T0 + 1 });
    const r2 = record({ nullifierHash: "02".repeat(32), receivedAt: T0 + 2, holder: "instance-b" });
    const r3 = record({ nullifierHash: "03".repeat(32), receivedAt: T0 + 3 });
    await a.relays.create(r1, RelayState.received(T0 + 1));
    await b.relays.create(r2, RelayState.received(T0 + 2));
    await a.relays.create(r3, RelayState.received(T0 + 3));
    await a.relays.advance(r1.id, RelayState.confirmed(T0 + 4, "s"));
    expect((await b.relays.unfinished()).map((x) => [x.id, x.holder])).toEqual([
      [r2.id, "instance-b"],
      [r3.id, "instance-a"],
    ]);
    expect((await b.relays.recent(2)).map((x) => x.id)).toEqual([r3.id, r2.id]);
  });
});
