import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RelayState } from "../../core/relay/states";
import type { SubmissionAttempt } from "../../ports/chain";
import { DurableDb } from "./durable-db";
import { SqlRelayStore } from "./relay-store";
import { MIGRATIONS, SQL_FUNCTIONS } from "./schema-migrations";

const ID = "00000000-0000-4000-8000-000000000001";
let dir: string;
let db: DurableDb;
let store: SqlRelayStore;

const attempt = (n: number, verdict: SubmissionAttempt["verdict"], fee = 5000 + n): SubmissionAttempt => ({
  n,
  signature: `sig${n}`,
  blockhash: `bh${n}`,
  lastValidBlockHeight: 150 + n,
  computeUnitLimit: 240_000,
  computeUnitPriceMicroLamports: 1000,
  networkFeeLamports: fee,
  sentAt: 1000 + n,
  broadcasts: 1,
  verdict,
  verdictAt: verdict === "pending" ? null : 2000 + n,
  slot: verdict === "landed" ? 42 : null,
  detail: null,
});

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "relay-store-"));
  db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
  store = new SqlRelayStore(db);
  await store.create(
    {
      id: ID,
      kind: "relay",
      network: "devnet",
      mint: "M",
      outputMint: null,
      recipient: "R",
      nullifierHash: "00".repeat(32),
      depositSize: 1000n,
      changeCommitment: "0a".repeat(32),
      fee: 10n,
      relayer: "F",
      minOut: 7n,
      receivedAt: 1,
      holder: "instance-a",
    },
    RelayState.received(1),
  );
});

/** Another relay of the record's nullifier (or of `nullifierHash`), taken by instance B. */
const second = async (nullifierHash = "00".repeat(32)) => ({
  ...(await store.get(ID))!,
  id: "00000000-0000-4000-8000-000000000003",
  nullifierHash,
  holder: "instance-b",
});

describe("SqlRelayStore: the record is the nullifier's lock", () => {
  it("refuses a second record of a nullifier whose first has no verdict or landed, writing nothing; takes it once the first failed", async () => {
    const other = await second();
    expect(await store.create(other, RelayState.received(2))).toBe("locked");
    expect(await store.get(other.id)).toBeNull();
    await store.advance(ID, RelayState.confirmed(3, "SIG"));
    expect(await store.create(other, RelayState.received(4))).toBe("locked");
    expect(await store.create(await second("11".repeat(32)), RelayState.received(4))).toBe("created");
  });

  it("is released by a failure: the nullifier can be relayed again, by any instance, and the holder is read back", async () => {
    await store.advance(ID, RelayState.failed(3, "RelayFailed", "did not land"));
    const other = await second();
    expect(await store.create(other, RelayState.received(4))).toBe("created");
    expect(await store.get(other.id)).toMatchObject({ holder: "instance-b", status: "received" });
    expect(await store.get(ID)).toMatchObject({ holder: "instance-a", status: "failed" });
  });

  it("keeps a verdict: a later state writes nothing, and an attempt is refused (false) instead of recorded", async () => {
    await store.advance(ID, RelayState.failed(3, "RelayFailed", "resolved by another instance"));
    await store.advance(ID, RelayState.submitted(4));
    await store.advance(ID, RelayState.confirmed(5, "SIG"));
    expect(await store.recordAttempt(ID, attempt(1, "pending"))).toBe(false);
    expect(await store.get(ID)).toMatchObject({ status: "failed", signature: null, attempts: [] });
    expect((await store.get(ID))!.steps.map((s) => s.kind)).toEqual(["received", "failed"]);
  });
});
afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("SqlRelayStore attempts", () => {
  it("keeps one entry per attempt number, replaced by its verdict, and the fee of the attempt that landed", async () => {
    expect(await store.recordAttempt(ID, attempt(1, "pending"))).toBe(true);
    expect((await store.get(ID))!.attempts.map((a) => a.verdict)).toEqual(["pending"]);
    expect((await store.get(ID))!.networkFeeLamports).toBeNull();
    await store.recordAttempt(ID, attempt(1, "expired"));
    await store.recordAttempt(ID, attempt(2, "pending"));
    await store.recordAttempt(ID, attempt(2, "landed", 7000));
    const r = (await store.get(ID))!;
    expect(r.attempts.map((a) => [a.n, a.verdict, a.signature])).toEqual([
      [1, "expired", "sig1"],
      [2, "landed", "sig2"],
    ]);
    expect(r.networkFeeLamports).toBe(7000n);
  });

  it("has the pending attempt's signature on disk before the send (survives a reopen)", async () => {
    await store.recordAttempt(ID, attempt(1, "pending"));
    await db.close();
    db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
    store = new SqlRelayStore(db);
    expect((await store.get(ID))!.attempts[0]).toMatchObject({ signature: "sig1", verdict: "pending" });
  });

  it("refuses an attempt for a relay that was never recorded", async () => {
    await expect(store.recordAttempt("00000000-0000-4000-8000-00000000ffff", attempt(1, "pending"))).rejects.toThrow("no relay record");
  });
});

describe("SqlRelayStore: protocol v3's change leaf", () => {
  it("records the change commitment with the relay, and the change leaf's index once confirmed", async () => {
    expect(await store.get(ID)).toMatchObject({ changeCommitment: "0a".repeat(32), changeLeafIndex: null, depositSize: 1000n });
    await store.advance(ID, RelayState.submitted(2));
    await store.advance(ID, RelayState.confirmed(3, "SIG", 41));
    await db.close();
    db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
    store = new SqlRelayStore(db);
    const r = (await store.get(ID))!;
    expect(r).toMatchObject({ status: "confirmed", signature: "SIG", changeCommitment: "0a".repeat(32), changeLeafIndex: 41 });
    expect(r.steps.at(-1)).toEqual({ kind: "confirmed", at: 3, signature: "SIG", changeLeafIndex: 41 });
  });

  it("keeps the change leaf's index when a later state does not carry one", async () => {
    await store.advance(ID, RelayState.confirmed(3, "SIG", 5));
    await store.advance(ID, RelayState.confirmed(4, "SIG"));
    expect((await store.get(ID))!.changeLeafIndex).toBe(5);
  });

  it("refuses a change commitment that is not 32 bytes of hex, writing nothing", async () => {
    const bad = { ...(await second("22".repeat(32))), changeCommitment: "0a" };
    await expect(store.create(bad, RelayState.received(1))).rejects.toThrow("32 bytes of hex");
    expect(await store.get(bad.id)).toBeNull();
  });
});
