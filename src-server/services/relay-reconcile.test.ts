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
const HOLD = 600_000;
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
  }) as unknown as ChainBackend;

const service = (kind: "sandbox" | "solana" = "solana"): RelayService =>
  new RelayService({ chains: new Map<Network, ChainBackend>([["mainnet", chain(kind)]]), store, now: () => NOW, unknownHoldMs: HOLD } as unknown as RelayDeps);

const attempt = (signature: string, sentAt: number): SubmissionAttempt => ({
  n: 1,
  signature,
  blockhash: "bh",
  lastValidBlockHeight: 1,
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
async function interrupted(opts: { submitted?: boolean; attempts?: SubmissionAttempt[] } = {}): Promise<{ id: string; nullifier: string }> {
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
      receivedAt: NOW - 10_000,
    },
    RelayState.received(NOW - 10_000),
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
    expect(store.get(r.id)).toMatchObject({ status: "confirmed", signature: "S1" });
  });

  it("fails NullifierAlreadySpent when another transaction spent it", async () => {
    const r = await interrupted({ attempts: [attempt("S1", NOW - 5_000)] });
    spent.set(r.nullifier, "SOMEONE-ELSE");
    await service().reconcileInterrupted();
    expect(store.get(r.id)).toMatchObject({ status: "failed", error: "NullifierAlreadySpent" });
  });

  it("fails a relay that never reached submission", async () => {
    const r = await interrupted({ submitted: false });
    await service().reconcileInterrupted();
    expect(store.get(r.id)).toMatchObject({ status: "failed", error: "RelayFailed" });
    expect(store.get(r.id)!.steps.at(-1)).toMatchObject({ detail: "interrupted by a restart before it was submitted" });
  });

  it("holds the nullifier of an unspent relay sent within the hold (its transaction may still land), and fails one sent before it", async () => {
    const recent = await interrupted({ attempts: [attempt("S1", NOW - 5_000)] });
    const old = await interrupted({ attempts: [attempt("S2", NOW - HOLD - 1)] });
    const s = service();
    expect(await s.reconcileInterrupted()).toEqual({ confirmed: 0, failed: 1, held: 1 });
    expect(s.inFlightCount).toBe(1);
    expect(store.get(recent.id)!.status).toBe("submitted");
    expect(store.get(old.id)).toMatchObject({ status: "failed", error: "RelayFailed" });
  });

  it("confirms a sandbox relay (no attempts: the ledger write is atomic) whose nullifier is spent", async () => {
    const r = await interrupted();
    spent.set(r.nullifier, "SANDBOX-SIG");
    await service("sandbox").reconcileInterrupted();
    expect(store.get(r.id)).toMatchObject({ status: "confirmed", signature: "SANDBOX-SIG" });
  });

  it("leaves finished relays alone", async () => {
    const r = await interrupted({ attempts: [attempt("S1", NOW - 5_000)] });
    await store.advance(r.id, RelayState.confirmed(NOW - 1, "S1"));
    expect(await service().reconcileInterrupted()).toEqual({ confirmed: 0, failed: 0, held: 0 });
  });
});
