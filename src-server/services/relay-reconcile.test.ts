import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Network } from "../../src-shared/networks";
import type { SubmissionAttempt } from "../../src-shared/submission-attempt";
import { DurableDb } from "../adapters/storage-sqljs/durable-db";
import { SqlRelayStore } from "../adapters/storage-sqljs/relay-store";
import { MIGRATIONS, SQL_FUNCTIONS } from "../adapters/storage-sqljs/schema-migrations";
import { RelayState } from "../core/relay/states";
import type { ChainBackend } from "../ports/chain";
import { RelayService, type RelayDeps } from "./relay-service";

const NOW = 1_800_000_000_000;
/** The chain's block height in these tests: an attempt valid up to it may still land, one valid only below it cannot. */
const HEIGHT = 5_000;
let dir: string;
let db: DurableDb;
let store: SqlRelayStore;
let spent: Map<string, string>;
let n = 0;

const chain = (kind: "sandbox" | "solana"): ChainBackend =>
  ({
    kind,
    network: "mainnet",
    spentBy: async (_mint: string, hash: Uint8Array) => spent.get(Buffer.from(hash).toString("hex")) ?? null,
    blockHeight: async () => (kind === "sandbox" ? null : HEIGHT),
  }) as unknown as ChainBackend;

const service = (kind: "sandbox" | "solana" = "solana"): RelayService =>
  new RelayService({
    chains: new Map<Network, ChainBackend>([["mainnet", chain(kind)]]),
    store,
    now: () => NOW,
    instanceId: "this-run",
  } as unknown as RelayDeps);

const attempt = (signature: string, sentAt: number, lastValidBlockHeight = HEIGHT): SubmissionAttempt => ({
  n: 1,
  signature,
  blockhash: "bh",
  lastValidBlockHeight,
  computeUnitLimit: 1,
  computeUnitPriceMicroLamports: 0,
  networkFeeLamports: 5000,
  sentAt,
  broadcasts: 1,
  verdict: "pending",
  verdictAt: null,
  slot: null,
  detail: null,
});

/** A relay record as a crash left it: `submitted` (or earlier), with these attempts on record. */
async function interrupted(
  opts: { submitted?: boolean; attempts?: SubmissionAttempt[]; holder?: string; receivedAt?: number } = {},
): Promise<{ id: string; nullifier: string }> {
  const id = `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
  const nullifier = n.toString(16).padStart(64, "0");
  await store.create(
    {
      id,
      kind: "relay",
      network: "mainnet",
      mint: "M",
      outputMint: null,
      recipient: "R",
      nullifierHash: nullifier,
      depositSize: 1000n,
      changeCommitment: "01".repeat(32),
      fee: 1n,
      relayer: "F",
      minOut: null,
      receivedAt: opts.receivedAt ?? NOW - 10_000,
      holder: opts.holder ?? "previous-run",
    },
    RelayState.received(opts.receivedAt ?? NOW - 10_000),
  );
  if (opts.submitted ?? true) await store.advance(id, RelayState.submitted(NOW - 9_000));
  for (const a of opts.attempts ?? []) await store.recordAttempt(id, a);
  return { id, nullifier };
}

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "relay-reconcile-"));
  db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS, snapshotIntervalMs: 0 });
  store = new SqlRelayStore(db);
  spent = new Map();
});
afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("RelayService.reconcileInterrupted (relays a crash left without a verdict)", () => {
  it("confirms a relay whose own transaction spent the nullifier, with that signature", async () => {
    const r = await interrupted({ attempts: [attempt("S1", NOW - 5_000)] });
    spent.set(r.nullifier, "S1");
    expect(await service().reconcileInterrupted()).toEqual({ confirmed: 1, failed: 0, held: 0 });
    expect(await store.get(r.id)).toMatchObject({ status: "confirmed", signature: "S1" });
  });

  it("fails NullifierAlreadySpent when another transaction spent it", async () => {
    const r = await interrupted({ attempts: [attempt("S1", NOW - 5_000)] });
    spent.set(r.nullifier, "SOMEONE-ELSE");
    await service().reconcileInterrupted();
    expect(await store.get(r.id)).toMatchObject({ status: "failed", error: "NullifierAlreadySpent" });
  });

  it("fails a relay that never reached submission", async () => {
    const r = await interrupted({ submitted: false });
    await service().reconcileInterrupted();
    expect(await store.get(r.id)).toMatchObject({ status: "failed", error: "RelayFailed" });
    expect((await store.get(r.id))!.steps.at(-1)).toMatchObject({ detail: "interrupted by a restart before it was submitted" });
  });

  it("holds the nullifier of an unspent relay whose transaction may still land (block height not past its lastValidBlockHeight), and fails one whose blockhash expired", async () => {
    const recent = await interrupted({ attempts: [attempt("S1", NOW - 5_000, HEIGHT)] });
    const old = await interrupted({ attempts: [attempt("S2", NOW - 5_000, HEIGHT - 1)] });
    const s = service();
    expect(await s.reconcileInterrupted()).toEqual({ confirmed: 0, failed: 1, held: 1 });
    expect(s.inFlightCount).toBe(1);
    expect((await store.get(recent.id))!.status).toBe("submitted");
    expect(await store.get(old.id)).toMatchObject({ status: "failed", error: "RelayFailed" });
  });

  it("never releases a held relay on time alone: a sweep an hour later still holds it at the same height, and confirms it once its transaction landed", async () => {
    const r = await interrupted({ attempts: [attempt("S1", NOW - 3_600_000, HEIGHT)] });
    const s = service();
    expect(await s.reconcileInterrupted()).toMatchObject({ held: 1 });
    expect(await s.resolveOrphans(["this-run"])).toEqual({ confirmed: 0, failed: 0, held: 1 });
    spent.set(r.nullifier, "S1");
    expect(await s.resolveOrphans(["this-run"])).toEqual({ confirmed: 1, failed: 0, held: 0 });
    expect(s.inFlightCount).toBe(0);
    expect(await store.get(r.id)).toMatchObject({ status: "confirmed", signature: "S1" });
  });

  it("leaves the relays of a live instance alone, and resolves those of an instance that stopped", async () => {
    const r = await interrupted({ attempts: [attempt("S1", NOW - 5_000, HEIGHT - 1)] });
    const s = service();
    expect(await s.resolveOrphans(["this-run", "previous-run"])).toEqual({ confirmed: 0, failed: 0, held: 0 });
    expect((await store.get(r.id))!.status).toBe("submitted");
    expect(await s.resolveOrphans(["this-run"])).toEqual({ confirmed: 0, failed: 1, held: 0 });
    expect(await store.get(r.id)).toMatchObject({ status: "failed", error: "RelayFailed" });
  });

  it("fails a relay whose holder stopped before any attempt was recorded (nothing was sent), so the holder's late attempt is refused", async () => {
    const r = await interrupted({ submitted: true });
    await service().resolveOrphans(["this-run"]);
    expect(await store.get(r.id)).toMatchObject({ status: "failed", error: "RelayFailed" });
    expect(await store.recordAttempt(r.id, attempt("LATE", NOW))).toBe(false);
  });

  it("confirms a sandbox relay (no attempts: the ledger write is atomic) whose nullifier is spent", async () => {
    const r = await interrupted();
    spent.set(r.nullifier, "SANDBOX-SIG");
    await service("sandbox").reconcileInterrupted();
    expect(await store.get(r.id)).toMatchObject({ status: "confirmed", signature: "SANDBOX-SIG" });
  });

  it("leaves finished relays alone", async () => {
    const r = await interrupted({ attempts: [attempt("S1", NOW - 5_000)] });
    await store.advance(r.id, RelayState.confirmed(NOW - 1, "S1"));
    expect(await service().reconcileInterrupted()).toEqual({ confirmed: 0, failed: 0, held: 0 });
  });

  it("fails this instance's own record left with no attempt and no relay running here (its create's answer was lost) once it is 30 s old, and nothing younger or with an attempt", async () => {
    const lost = await interrupted({ submitted: false, holder: "this-run", receivedAt: NOW - 31_000 });
    const young = await interrupted({ submitted: false, holder: "this-run", receivedAt: NOW - 5_000 });
    const sent = await interrupted({ holder: "this-run", receivedAt: NOW - 60_000, attempts: [attempt("S1", NOW - 59_000)] });
    const s = service();
    expect(await s.resolveOrphans(["this-run"])).toEqual({ confirmed: 0, failed: 1, held: 0 });
    expect(await store.get(lost.id)).toMatchObject({ status: "failed", error: "RelayFailed" });
    expect((await store.get(lost.id))!.steps.at(-1)).toMatchObject({ detail: "interrupted before it was sent" });
    expect((await store.get(young.id))!.status).toBe("received");
    expect((await store.get(sent.id))!.status).toBe("submitted");
  });

  it("leaves another live instance's old records without an attempt to that instance", async () => {
    const r = await interrupted({ submitted: false, holder: "other-live", receivedAt: NOW - 60_000 });
    expect(await service().resolveOrphans(["this-run", "other-live"])).toEqual({ confirmed: 0, failed: 0, held: 0 });
    expect((await store.get(r.id))!.status).toBe("received");
  });
});
