import { describe, expect, it } from "vitest";
import { RelayState } from "../core/relay/states";
import type { NewRelayRecord, RelayRecord, RelayStore } from "../ports/relay-store";
import type { RelayEvent } from "../ports/relay-events";
import { observeRelayStore } from "./relay-events";

/** A store whose state is in #private fields: the wrapper must call its methods on the store itself. */
class PrivateStore implements RelayStore {
  #records = new Map<string, RelayRecord>();
  async create(r: NewRelayRecord, first: RelayState) {
    this.#records.set(r.id, {
      ...r,
      status: first.kind,
      error: null,
      signature: null,
      steps: [first],
      attempts: [],
      networkFeeLamports: null,
      changeLeafIndex: null,
    });
    return "created" as const;
  }
  async advance(id: string, s: RelayState) {
    const r = this.#records.get(id)!;
    r.steps.push(s);
    r.status = s.kind;
  }
  async recordSwap() {}
  async recordAttempt() {
    return true;
  }
  async get(id: string) {
    return this.#records.get(id) ?? null;
  }
  async unfinished() {
    return [...this.#records.values()].filter((r) => r.status !== "confirmed" && r.status !== "failed");
  }
  async recent(limit: number) {
    return [...this.#records.values()].slice(0, limit);
  }
}

const record: NewRelayRecord = {
  id: "r1",
  kind: "relay",
  network: "mainnet",
  mint: "M",
  outputMint: null,
  recipient: "RECIPIENT",
  nullifierHash: "abcd",
  depositSize: 10n,
  changeCommitment: null,
  fee: 1n,
  relayer: null,
  minOut: null,
  receivedAt: 100,
  holder: "this-instance",
};

describe("observeRelayStore", () => {
  it("passes each recorded state on with the earlier states' times, and leaves every other method to the store", async () => {
    const events: RelayEvent[] = [];
    const store = observeRelayStore(new PrivateStore(), (e) => events.push(e));
    await store.create(record, RelayState.received(100));
    await store.advance("r1", RelayState.verified(150, 40));
    await store.advance("r1", RelayState.submitted(160));
    await store.advance("r1", RelayState.confirmed(400, "SIG"));
    expect(events.map((e) => e.state.kind)).toEqual(["received", "verified", "submitted", "confirmed"]);
    expect(events[3]).toMatchObject({
      id: "r1",
      network: "mainnet",
      mint: "M",
      receivedAt: 100,
      times: { received: 100, verified: 150, submitted: 160, confirmed: 400 },
    });
    expect(JSON.stringify(events)).not.toContain("RECIPIENT");
    expect((await store.get("r1"))?.status).toBe("confirmed");
    expect(await store.unfinished()).toEqual([]);
  });

  it("never fails the store's write when a listener throws", async () => {
    const store = observeRelayStore(new PrivateStore(), () => {
      throw new Error("listener broke");
    });
    await expect(store.create(record, RelayState.received(100))).resolves.toBe("created");
    await expect(store.advance("r1", RelayState.failed(120, "InvalidProof", "no"))).resolves.toBeUndefined();
    expect((await store.get("r1"))?.status).toBe("failed");
  });
});
