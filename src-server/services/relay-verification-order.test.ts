import { beforeAll, describe, expect, it } from "vitest";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import type { Network } from "../../src-shared/networks";
import type { ParsedWithdrawal as WithdrawalRequest } from "../core/relay/request";
import type { ChainBackend, SubmitResult, WithdrawalSubmission } from "../ports/chain";
import { VerifierBusyError, type ProofVerifier } from "../ports/proof-verifier";
import type { RelayStore } from "../ports/relay-store";
import type { SanctionsList } from "../ports/sanctions";
import type { IndexerService } from "./indexer";
import { RelayService, type RelayDeps, type VerificationGate } from "./relay-service";

/**
 * docs/security.md, "Event loop and verifier": a pairing is the expensive step, so
 * every cheap refusal comes before it, a client has only its share of the verifier,
 * and a full verifier queue is 503 ServerBusy, never 500.
 */

const KNOWN_ROOT = new Uint8Array(32).fill(7);
const SPENT = new Uint8Array(32).fill(9);
const bytes = (b: number): Uint8Array => new Uint8Array(32).fill(b);
const FEE_PAYER = encodeBase58(bytes(3));
const MINT = encodeBase58(bytes(1));

let hasher: FieldHasher;
beforeAll(async () => {
  hasher = await createPoseidonHasher();
});

/** A verifier that counts the proofs that reach it, and answers as told. */
class CountingVerifier implements ProofVerifier {
  calls = 0;
  lastSignals: Uint8Array[] = [];
  constructor(private readonly answer: () => Promise<boolean>) {}
  verify(_proof: Uint8Array, signals: Uint8Array[]): Promise<boolean> {
    this.calls++;
    this.lastSignals = signals;
    return this.answer();
  }
  async close(): Promise<void> {}
}

const submitted: WithdrawalSubmission[] = [];

function service(
  verifier: ProofVerifier,
  submit: () => SubmitResult = () => ({ ok: true, signature: "SIG", changeLeafIndex: 12 }),
  changeLeafIndexOf: () => number | null = () => null,
  pauses?: RelayDeps["pauses"],
  indexerOver: Partial<Record<"leads" | "get" | "sync", unknown>> = {},
): RelayService {
  const chain = {
    kind: "sandbox",
    network: "mainnet",
    feePayer: FEE_PAYER,
    isNullifierSpent: async (_mint: string, h: Uint8Array) => Buffer.from(h).equals(Buffer.from(SPENT)),
    submitWithdrawal: async (w: WithdrawalSubmission) => {
      submitted.push(w);
      return submit();
    },
  } as unknown as ChainBackend;
  const store = {
    create: async () => "created",
    advance: async () => {},
    recordSwap: async () => {},
    recordAttempt: async () => true,
  } as unknown as RelayStore;
  const indexer = {
    get: () => ({ tree: { isKnownRoot: (r: Uint8Array) => Buffer.from(r).equals(Buffer.from(KNOWN_ROOT)) } }),
    sync: async () => {},
    leads: () => true,
    changeLeafIndexOf,
    ...indexerOver,
  } as unknown as IndexerService;
  const sanctions = { check: () => ({ listed: false }) } as unknown as SanctionsList;
  const deps: RelayDeps = {
    hasher,
    indexer,
    chains: new Map<Network, ChainBackend>([["mainnet", chain]]),
    verifier,
    sanctions,
    store,
    fees: { inForce: () => ({ current: { bps: 25, floor: 0n }, previous: null }) },
    ...(pauses ? { pauses } : {}),
    instanceId: "test-instance",
  };
  return new RelayService(deps);
}

let n = 100;
const request = (over: Partial<WithdrawalRequest> = {}): WithdrawalRequest => ({
  network: "mainnet",
  mint: MINT,
  mintBytes: bytes(1),
  recipient: encodeBase58(bytes(2)),
  recipientBytes: bytes(2),
  nullifierHash: bytes(n++ % 250),
  root: KNOWN_ROOT,
  proof: new Uint8Array(256),
  depositSize: 1_000_000n,
  changeCommitment: bytes(5),
  fee: null,
  relayer: null,
  ...over,
});

describe("what reaches the proof verifier", () => {
  it("never sends an unknown root, a spent nullifier, a fee below the published one or another relayer's proof to the verifier", async () => {
    const verifier = new CountingVerifier(async () => true);
    const relay = service(verifier);
    expect(await relay.relay(request({ root: bytes(8) }))).toMatchObject({ fault: "client", error: "InvalidRoot" });
    expect(await relay.relay(request({ nullifierHash: SPENT }))).toMatchObject({ fault: "client", error: "NullifierAlreadySpent" });
    expect(await relay.relay(request({ fee: 1n }))).toMatchObject({ fault: "client", error: "FeeTooLow" });
    expect(await relay.relay(request({ relayer: encodeBase58(bytes(4)) }))).toMatchObject({ fault: "client", error: "InvalidRequest" });
    expect(await relay.relay(request({ network: "devnet" }))).toMatchObject({ fault: "client", error: "InvalidRequest" });
    expect(verifier.calls).toBe(0);
    // The same request with a known root and a fresh nullifier does reach it.
    expect(await relay.relay(request())).toEqual({ status: 200, signature: "SIG", changeLeafIndex: 12 });
    expect(verifier.calls).toBe(1);
  });

  it("answers 429 RateLimited without verifying when the client's verification gate is full, and frees the slot after each verdict", async () => {
    const verifier = new CountingVerifier(async () => false);
    const relay = service(verifier);
    let held = 0;
    let releases = 0;
    const gate =
      (cap: number): VerificationGate =>
      () => {
        if (held >= cap) return null;
        held++;
        return () => {
          held--;
          releases++;
        };
      };
    expect(await relay.relay(request(), gate(0))).toMatchObject({ fault: "rate-limited", error: "RateLimited" });
    expect(verifier.calls).toBe(0);
    expect(await relay.relay(request(), gate(1))).toMatchObject({ fault: "client", error: "InvalidProof" });
    expect(verifier.calls).toBe(1);
    expect([held, releases]).toEqual([0, 1]);
    // A spent nullifier takes no slot at all.
    expect(await relay.relay(request({ nullifierHash: SPENT }), gate(0))).toMatchObject({ fault: "client", error: "NullifierAlreadySpent" });
  });

  it("answers 503 ServerBusy, not 500, when the verifier's queue is full, and releases the client's slot", async () => {
    const relay = service(new CountingVerifier(() => Promise.reject(new VerifierBusyError("queue full"))));
    let held = 0;
    const gate: VerificationGate = () => {
      held++;
      return () => held--;
    };
    expect(await relay.relay(request(), gate)).toMatchObject({ fault: "busy", error: "ServerBusy" });
    expect(held).toBe(0);
  });
});

describe("protocol v3 in the pipeline", () => {
  it("verifies against seven public inputs, the seventh the request's changeCommitment, and hands it to the chain", async () => {
    const verifier = new CountingVerifier(async () => true);
    const answer = await service(verifier).relay(request({ changeCommitment: bytes(6), depositSize: 400_000n }));
    expect(answer).toEqual({ status: 200, signature: "SIG", changeLeafIndex: 12 });
    expect(verifier.lastSignals).toHaveLength(7);
    expect(Array.from(verifier.lastSignals[6]!)).toEqual(Array.from(bytes(6)));
    expect(verifier.lastSignals[3]!.at(-1)).toBe(Number(400_000n & 0xffn));
    expect(submitted.at(-1)).toMatchObject({ changeCommitment: bytes(6), depositSize: 400_000n });
  });

  it("says the proof does not verify under protocol v3, whether the relay's verifier or the chain's refused it", async () => {
    const mine = await service(new CountingVerifier(async () => false)).relay(request());
    expect(mine).toMatchObject({ fault: "client", error: "InvalidProof", message: expect.stringContaining("does not verify under protocol v3") });
    const chains = await service(new CountingVerifier(async () => true), () => ({ ok: false, rejection: "InvalidProof", detail: "refused" })).relay(request());
    expect(chains).toMatchObject({ fault: "client", error: "InvalidProof", message: expect.stringContaining("does not verify under protocol v3") });
  });

  it("takes the change leaf's index from the indexer when the chain's verdict did not say", async () => {
    const relay = service(
      new CountingVerifier(async () => true),
      () => ({ ok: true, signature: "SIG2", changeLeafIndex: null }),
      () => 77,
    );
    expect(await relay.relay(request())).toEqual({ status: 200, signature: "SIG2", changeLeafIndex: 77 });
  });
});

describe("a network stopped while a proof is verified", () => {
  it("is refused 503 RelayPaused just before sending (the program guard saw an upgrade meanwhile), and nothing is submitted", async () => {
    let stopped: string | null = null;
    const verifier = new CountingVerifier(async () => {
      stopped = "relays on mainnet are stopped: the deployed program hashes d…";
      return true;
    });
    const before = submitted.length;
    const relay = service(verifier, undefined, undefined, { pausedReason: () => stopped });
    expect(await relay.relay(request())).toEqual({
      fault: "busy",
      error: "RelayPaused",
      message: "relays on mainnet are stopped: the deployed program hashes d…",
    });
    expect(verifier.calls).toBe(1);
    expect(submitted.length).toBe(before);
  });

  it("on a network another instance follows, catches up from the store once on an unknown root before refusing it; never on a known root or as the leader", async () => {
    let roots: Uint8Array[] = [KNOWN_ROOT];
    let syncs = 0;
    let leads = false;
    const indexer = {
      leads: () => leads,
      get: () => ({ tree: { isKnownRoot: (r: Uint8Array) => roots.some((k) => Buffer.from(k).equals(Buffer.from(r))) } }),
      // The leader's newest root reaches this instance's tree with the catch-up.
      sync: async () => {
        syncs++;
        roots = [...roots, bytes(8)];
      },
    };
    const relay = service(new CountingVerifier(async () => true), undefined, undefined, undefined, indexer);
    // Past the root check (the nullifier is what refuses it), after one catch-up.
    expect(await relay.relay(request({ root: bytes(8), nullifierHash: SPENT }))).toMatchObject({ error: "NullifierAlreadySpent" });
    expect(syncs).toBe(1);
    expect(await relay.relay(request({ root: bytes(6) }))).toMatchObject({ fault: "client", error: "InvalidRoot" });
    expect(syncs).toBe(2);
    expect(await relay.relay(request({ nullifierHash: SPENT }))).toMatchObject({ error: "NullifierAlreadySpent" });
    expect(syncs).toBe(2);
    leads = true;
    expect(await relay.relay(request({ root: bytes(6) }))).toMatchObject({ error: "InvalidRoot" });
    expect(syncs).toBe(2);
  });
});
