import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { STAND_IN_PROOF } from "./test-support";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import bs58 from "bs58";
import { computeExtDataHash } from "../../src-shared/crypto/protocol";
import { bigIntToBytes32, bytesToBigInt } from "../../src-shared/encoding/field";
import { RelayClient } from "./http";
import { Keypair } from "./keypair";
import { changeNoteOf, createNote, loadNote, saveNote, withDeposit, type DepositNote } from "./note";
import { followChain, relayLedger, resolveNote } from "./follow";
import { describePlan, planWithdrawal, withdrawInPieces } from "./pieces";
import type { PoolLeaf } from "./chain-history";
import { anonymitySet, decoyLeafSet, decoyNullifierSet, decoySeed, eligibleLeaves, relayLeaves, type KnownLeaf } from "./lookup";
import type { Prover, WithdrawWitnessInput } from "./prove";
import { pathFromLeaves } from "./tree";
import { withdraw, type WithdrawOptions, type WithdrawStage } from "./withdraw";

const WSOL = "So11111111111111111111111111111111111111112";
const RECIPIENT = "9Uk1q4P21VNYeSt6pxPRpQh8WJDrXoQTBL7DyU6UpE7m";
const DEPTH = 32;

/**
 * Orchestration only: a relay played by a fetch stand-in and a prover that
 * answers the expected public signals with a dummy proof. Real proofs against
 * the real relay are in sdk.http.test.ts.
 */
const provedInputs: WithdrawWitnessInput[] = [];
const standInProver: Prover = async (input) => {
  provedInputs.push(input);
  return {
    proof: STAND_IN_PROOF,
    publicSignals: [input.root, input.nullifierHash, input.recipient, input.amount, input.mint, input.extDataHash, input.changeCommitment],
  };
};

const RELAYER = "5ZWj7a1f8tWkjBESHKgrLmXshuXxqeY9SYcfbshpAqPG";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
/** 25 bps, floor 1000: 2500 of a 1 000 000 deposit. */
const FEES = { default: { bps: 25, floor: "1000" }, pools: {}, relayers: { mainnet: "11111111111111111111111111111111", devnet: RELAYER } };

/** A /relay answer; `lands` makes a failure answer after the withdrawal landed anyway. */
type RelayStep = { status: number; body: unknown; lands?: boolean } | "drop";

interface FakeRelay {
  client: RelayClient;
  calls: string[];
  /** x-api-auth of each call, in order (null: none). */
  tokens: (string | null)[];
  /** get_proof's leaf index, per request. */
  proofIndices: number[];
  /** get_nullifier's nullifierHash, per request. */
  nullifierHashes: number[][];
  relayBodies: Record<string, unknown>[];
  relayTokens: (string | null)[];
  quoteBodies: Record<string, unknown>[];
  spent: { value: boolean };
  /** get_leaves' body, per request. */
  leafPages: { from?: number; limit?: number }[];
}

let hasher: FieldHasher;
let note: DepositNote;

beforeAll(async () => {
  hasher = await createPoseidonHasher();
  const created = await createNote({ network: "devnet", mint: WSOL, amount: 1_000_000n, hasher });
  if (!created.ok) throw new Error(created.error);
  note = withDeposit(created.value, { signature: "dep", status: "indexed", leafIndex: 0, wallet: RECIPIENT });
});

interface FakeRelayOptions {
  spent?: boolean;
  token?: string;
  fees?: unknown;
  quote?: unknown;
  /** Leaves in the tree, the note's at index 0 (default 1). */
  leafCount?: number;
  /** Rewrites a get_proof answer: an inconsistent relay. */
  lie?: (index: number, path: number[][]) => number[][];
  /** The note whose leaf is leaf 0 (default the shared 1 000 000 note). */
  note?: DepositNote;
  /** Called as each /relay arrives, before it is answered. */
  onRelay?: (body: Record<string, unknown>) => void;
  /** What get_leaves lists for leaf i (default: leaf 0 as the note is, the others deposits of the note's value; change leaves as /relay appends them). */
  kinds?: (index: number) => KnownLeaf;
  /** get_leaves answers 404 NotFound, as a relay from before it does. */
  noLeafList?: boolean;
  /** The most leaves a get_leaves page lists (default 10,000, the relay's). */
  leafPage?: number;
}

/**
 * A relay over a real depth-32 tree (the note's leaf at 0, other leaves
 * arbitrary field elements): login, get_nullifier, get_merkle, get_proof,
 * get_node as the relay answers them; /relay follows `steps`, and a 200
 * spends the nullifier and appends the request's change leaf.
 */
function fakeRelay(steps: RelayStep[], options: FakeRelayOptions = {}): FakeRelay & { leaves: Uint8Array[] } {
  const calls: string[] = [];
  const tokens: (string | null)[] = [];
  const proofIndices: number[] = [];
  const nullifierHashes: number[][] = [];
  const relayBodies: Record<string, unknown>[] = [];
  const relayTokens: (string | null)[] = [];
  const quoteBodies: Record<string, unknown>[] = [];
  const leafPages: { from?: number; limit?: number }[] = [];
  const first = options.note ?? note;
  const spentSet = new Set<string>(options.spent ? [Array.from(first.nullifierHash).join()] : []);
  const spent = {
    get value() {
      return spentSet.has(Array.from(first.nullifierHash).join());
    },
    set value(v: boolean) {
      if (v) spentSet.add(Array.from(first.nullifierHash).join());
    },
  };
  const leaves: Uint8Array[] = [first.commitment];
  for (let i = 1; i < (options.leafCount ?? 1); i++) leaves.push(hasher.hash([bigIntToBytes32(BigInt(i) * 7919n)]));
  const kinds: KnownLeaf[] = leaves.map(
    (_, i) => options.kinds?.(i) ?? (i === 0 && first.change ? { kind: "change", amount: null } : { kind: "deposit", amount: first.amount }),
  );
  let logins = 0;
  const reply = (status: number, body: unknown): Response => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const path = new URL(String(input)).pathname;
    const name = path.split("/")[1]!;
    calls.push(name);
    tokens.push(new Headers(init?.headers).get("x-api-auth"));
    if (name === "login") return reply(200, { id: `token-${++logins}` });
    if (name === "get_nullifier") {
      const asked = (JSON.parse(String(init?.body)) as { nullifierHash: number[] }).nullifierHash;
      nullifierHashes.push(asked);
      return reply(
        200,
        spentSet.has(asked.join()) ? { address: "Nullifier1111111111111111111111111111111111", json: { spent: true } } : { address: null, json: null },
      );
    }
    if (name === "get_merkle") {
      const root = pathFromLeaves(hasher, leaves, 0, DEPTH).root;
      return reply(200, { address: "Tree", json: { root: Array.from(root), nextIndex: leaves.length, depth: DEPTH } });
    }
    if (name === "get_leaves") {
      if (options.noLeafList) return reply(404, { error: "NotFound", message: "no such endpoint" });
      const asked = JSON.parse(String(init?.body ?? "{}")) as { from?: number; limit?: number };
      leafPages.push(asked);
      const from = asked.from ?? 0;
      const limit = Math.min(asked.limit ?? 10_000, options.leafPage ?? 10_000);
      const list = kinds.slice(from, from + limit).map((k, i) => ({ index: from + i, kind: k.kind, amount: k.amount === null ? null : String(k.amount) }));
      return reply(200, { address: "Tree", json: { nextIndex: leaves.length, from, leaves: list } });
    }
    if (name === "get_proof") {
      const index = Number(path.split("/")[4]);
      proofIndices.push(index);
      const p = pathFromLeaves(hasher, leaves, index, DEPTH);
      const wire = p.path.map((x) => Array.from(x));
      return reply(200, { address: "Tree", json: { path: options.lie ? options.lie(index, wire) : wire, indices: p.indices } });
    }
    if (name === "get_node") {
      const j = Number(path.split("/")[4]) - 2 ** DEPTH;
      return reply(200, { address: "Tree", json: { value: Array.from(leaves[j]!) } });
    }
    if (name === "fees") return reply(200, options.fees ?? FEES);
    if (name === "jupiter") {
      const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
      quoteBodies.push(body);
      return reply(
        200,
        options.quote ?? {
          inputMint: body.inputMint,
          outputMint: body.outputMint,
          inAmount: String(body.amount),
          outAmount: "5000",
          otherAmountThreshold: "4975",
          slippageBps: 50,
          priceImpactPct: 0.1,
          routePlan: [],
        },
      );
    }
    if (name === "relay" || name === "relay_swap") {
      const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
      relayBodies.push(body);
      relayTokens.push(new Headers(init?.headers).get("x-api-auth"));
      options.onRelay?.(body);
      const step = steps.shift();
      if (!step) throw new Error("unexpected /relay");
      if (step === "drop") throw new TypeError("fetch failed", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) });
      if (step.status === 200 || step.lands) {
        spentSet.add((body.nullifierHash as number[]).join());
        leaves.push(Uint8Array.from(body.changeCommitment as number[]));
        kinds.push({ kind: "change", amount: null });
      }
      if (step.status === 200) return reply(200, { ...(step.body as object), changeLeafIndex: leaves.length - 1 });
      return reply(step.status, step.body);
    }
    throw new Error(`unexpected ${path}`);
  }) as typeof fetch;
  return {
    client: new RelayClient({ baseUrl: "http://relay.test", fetch: fetchImpl, authToken: options.token }),
    calls,
    tokens,
    proofIndices,
    nullifierHashes,
    relayBodies,
    relayTokens,
    quoteBodies,
    spent,
    leaves,
    leafPages,
  };
}

const ok200 = { status: 200, body: { status: 200, signature: "5Af9byqcNKxE7jR3cCD6dNMgj1hbuHAuAgfv6GMuQ1w4L4N8vhBiRV8pfBxm7XpYnxDkTCESnGuTLCNPwVHZa1yw" } };
const run = (relay: FakeRelay, withWallet = true, extra: Partial<WithdrawOptions> = {}) => {
  const stages: WithdrawStage[] = [];
  const result = withdraw(relay.client, note, RECIPIENT, {
    hasher,
    wallet: withWallet ? Keypair.generate() : undefined,
    prove: { prover: standInProver },
    onStage: (s) => stages.push(s),
    ...extra,
  });
  return result.then((r) => ({ r, stages }));
};
const extDataHash = (relayer: string, fee: bigint, swap: { outputMint: string; minOut: bigint } | null = null): string =>
  bytesToBigInt(
    computeExtDataHash(hasher, { relayer: bs58.decode(relayer), fee, swap: swap && { outputMint: bs58.decode(swap.outputMint), minOut: swap.minOut } }),
  ).toString();

describe("withdraw", () => {
  it("logs in, checks the nullifier, reads the relay's key and fee, fetches the path, proves for them and relays the request", async () => {
    const relay = fakeRelay([ok200]);
    provedInputs.length = 0;
    const { r, stages } = await run(relay, true, { lookup: { kind: "relay-links-deposit" } });
    expect(r).toMatchObject({
      ok: true,
      value: { signature: ok200.body.signature, terms: { relayer: RELAYER, fee: 2500n, toRecipient: 997_500n, minOut: null } },
    });
    expect(stages).toEqual(["login", "nullifier", "fees", "merkle", "prove", "relay"]);
    expect(relay.calls).toEqual(["login", "get_nullifier", "fees", "get_merkle", "get_proof", "get_merkle", "relay"]);
    expect(relay.relayTokens).toEqual(["token-1"]);
    expect(relay.relayBodies[0]).toEqual({
      nullifierHash: Array.from(note.nullifierHash),
      proof: expect.any(Array),
      root: Array.from(pathFromLeaves(hasher, [note.commitment], 0).root),
      recipient: RECIPIENT,
      depth: 32,
      depositSize: 1_000_000,
      mint: WSOL,
      network: "devnet",
      // The devnet key of GET /fees (not mainnet's), and the published fee: exactly what the proof binds.
      fee: 2500,
      relayer: RELAYER,
      // Protocol v3: the change leaf of what is left (here 0), by the chain rule.
      changeCommitment: Array.from(changeNoteOf(hasher, note, 1_000_000n).commitment),
    });
    expect(relay.relayBodies[0]!.proof).toHaveLength(256);
    // The relay put the change leaf at 1: the result's change note knows it.
    expect(r.ok && r.value).toMatchObject({ changeLeafIndex: 1, change: { amount: 0n, change: { leafIndex: 1, piece: 1 } } });
    expect(provedInputs[0]!.extDataHash).toBe(extDataHash(RELAYER, 2500n));
    if (r.ok) expect(r.value.proof).toMatchObject({ relayer: RELAYER, fee: 2500n, swap: null });
  });

  it("by default asks for the leaf among 8 other leaves (path and value) and the nullifier among 8 other hashes, without the token", async () => {
    const relay = fakeRelay([ok200], { leafCount: 50 });
    const { r } = await run(relay);
    expect(r).toMatchObject({ ok: true });
    expect(relay.calls).toEqual([
      "login",
      ...Array(9).fill("get_nullifier"),
      "fees",
      "get_merkle",
      "get_leaves",
      ...Array(9).fill(["get_proof", "get_node"]).flat(),
      "get_merkle",
      "relay",
    ]);
    // The whole public list from leaf 0 (the same for every note), in the relay's largest pages.
    expect(relay.leafPages).toEqual([{ from: 0 }]);
    // Nine distinct leaves below the tree's 50, the note's (0) among them.
    expect(new Set(relay.proofIndices).size).toBe(9);
    expect(relay.proofIndices).toContain(0);
    expect(relay.proofIndices.every((i) => i >= 0 && i < 50)).toBe(true);
    expect(new Set(relay.nullifierHashes.map((h) => h.join())).size).toBe(9);
    expect(relay.nullifierHashes.map((h) => h.join())).toContain(Array.from(note.nullifierHash).join());
    // Only /relay carries the token; no lookup does.
    relay.calls.forEach((name, i) => expect([name, relay.tokens[i]]).toEqual([name, name === "relay" ? "token-1" : null]));

    // The order follows from the note's secrets: over notes the note's leaf is not always asked first (or always last).
    const positions = new Set<number>();
    for (let i = 0; i < 8; i++) {
      const other = await createNote({ network: "devnet", mint: WSOL, amount: 1_000_000n, hasher });
      if (!other.ok) throw new Error(other.error);
      const set = decoyLeafSet(
        decoySeed(other.value),
        0,
        Array.from({ length: 50 }, (_, j) => j),
        8,
      );
      positions.add(set.indexOf(0));
    }
    expect(positions.size).toBeGreaterThan(1);
  });

  it("decoys follow from the note and its piece: a retry asks the same leaves and hashes in the same order; another piece asks others", async () => {
    const first = fakeRelay([{ status: 400, body: { status: 400, error: "InvalidProof" } }], { leafCount: 50 });
    await run(first);
    const retry = fakeRelay([ok200], { leafCount: 50 });
    await run(retry);
    expect(retry.proofIndices).toEqual(first.proofIndices);
    expect(retry.nullifierHashes).toEqual(first.nullifierHashes);
    // The change note (piece 1) draws its own sets.
    const change = changeNoteOf(hasher, note, 400_000n);
    const leaves = Array.from({ length: 50 }, (_, j) => j);
    expect(decoyLeafSet(decoySeed(change), 0, leaves, 8)).not.toEqual(decoyLeafSet(decoySeed(note), 0, leaves, 8));
    expect(decoyNullifierSet(decoySeed(note), note.nullifierHash, 8)).toEqual(decoyNullifierSet(decoySeed(note), note.nullifierHash, 8));
    // A pool that grew keeps the set, but for leaves ranking above a decoy.
    const grown = decoyLeafSet(
      decoySeed(note),
      0,
      Array.from({ length: 60 }, (_, j) => j),
      8,
    );
    const before = new Set(decoyLeafSet(decoySeed(note), 0, leaves, 8));
    expect(grown.filter((i) => before.has(i)).length).toBe(grown.filter((i) => i < 50).length);
  });

  it("decoys are drawn among the leaves that could hold the piece: change leaves and deposits of at least it", () => {
    const pool = new Map<number, PoolLeaf>([
      [0, { index: 0, kind: "deposit", commitment: note.commitment, amount: 1_000_000n }],
      [1, { index: 1, kind: "deposit", commitment: new Uint8Array(32), amount: 5_000n }],
      [2, { index: 2, kind: "change", commitment: new Uint8Array(32), amount: null }],
      [3, { index: 3, kind: "deposit", commitment: new Uint8Array(32), amount: 2_000_000n }],
      [4, { index: 4, kind: "deposit", commitment: new Uint8Array(32), amount: 500_000n }],
    ]);
    expect(eligibleLeaves(pool, 5, 500_000n)).toEqual([0, 2, 3, 4]);
    expect(eligibleLeaves(pool, 5, 1_000_000n)).toEqual([0, 2, 3]);
    expect(anonymitySet(pool, 2_000_000n)).toBe(2);
    // Without kinds (a relay tells none) every leaf is a candidate.
    expect(eligibleLeaves(null, 5, 1_000_000n)).toEqual([0, 1, 2, 3, 4]);
  });

  it("given the pool's leaves, the path is asked only among leaves that could hold the piece", async () => {
    const relay = fakeRelay([ok200], { leafCount: 30 });
    const leaves = new Map<number, PoolLeaf>(
      relay.leaves.map((leaf, i) => [
        i,
        i === 0
          ? { index: 0, kind: "deposit", commitment: leaf, amount: 1_000_000n }
          : i % 3 === 0
            ? { index: i, kind: "change", commitment: leaf, amount: null }
            : { index: i, kind: "deposit", commitment: leaf, amount: i % 3 === 1 ? 100_000n : 2_000_000n },
      ]),
    );
    const { r } = await run(relay, true, { amount: 500_000n, lookup: { kind: "decoys", leaves } });
    expect(r).toMatchObject({ ok: true });
    expect(relay.proofIndices).toHaveLength(9);
    // Deposits of 100,000 cannot hold a piece of 500,000: none is asked.
    expect(relay.proofIndices.every((i) => i % 3 !== 1)).toBe(true);
    expect(relay.proofIndices).toEqual(decoyLeafSet(decoySeed(note), 0, eligibleLeaves(leaves, 30, 500_000n), 8));
  });

  /** Leaf 0 is the note (a deposit of 1,000,000); then change leaves, deposits of 100,000 and of 2,000,000 in turn. */
  const mixedKinds = (i: number): KnownLeaf =>
    i === 0
      ? { kind: "deposit", amount: 1_000_000n }
      : i % 3 === 0
        ? { kind: "change", amount: null }
        : { kind: "deposit", amount: i % 3 === 1 ? 100_000n : 2_000_000n };
  const mixedPool = (count: number): Map<number, KnownLeaf> => new Map(Array.from({ length: count }, (_, i) => [i, mixedKinds(i)]));

  it("without the pool's leaves, reads the relay's whole leaf list from leaf 0 and asks the path only among leaves that could hold the piece", async () => {
    const relay = fakeRelay([ok200], { leafCount: 30, kinds: mixedKinds, leafPage: 7 });
    const { r } = await run(relay, true, { amount: 500_000n });
    expect(r).toMatchObject({ ok: true });
    // Pages from 0 on, wherever the note's leaf is: nothing in the requests points at it.
    expect(relay.leafPages).toEqual([{ from: 0 }, { from: 7 }, { from: 14 }, { from: 21 }, { from: 28 }]);
    expect(relay.proofIndices).toHaveLength(9);
    // Deposits of 100,000 cannot hold a piece of 500,000: none is asked.
    expect(relay.proofIndices.every((i) => i % 3 !== 1)).toBe(true);
    expect(relay.proofIndices).toEqual(decoyLeafSet(decoySeed(note), 0, eligibleLeaves(mixedPool(30), 30, 500_000n), 8));
    // The same note and piece asks the same set again.
    const again = fakeRelay([ok200], { leafCount: 30, kinds: mixedKinds });
    await run(again, true, { amount: 500_000n });
    expect(again.proofIndices).toEqual(relay.proofIndices);
    // A piece of 2,000,000 would be hidden among change leaves and the 2,000,000 deposits only.
    expect(eligibleLeaves(mixedPool(30), 30, 2_000_000n).every((i) => i === 0 || i % 3 !== 1)).toBe(true);
  });

  it("a leaf list that misstates the note's own leaf stops the lookup before any path is asked", async () => {
    for (const lie of [
      { kind: "deposit", amount: 5_000n },
      { kind: "change", amount: null },
    ] as KnownLeaf[]) {
      const relay = fakeRelay([], { leafCount: 20, kinds: (i) => (i === 0 ? lie : { kind: "deposit", amount: 1_000_000n }) });
      const { r, stages } = await run(relay);
      expect(r).toMatchObject({
        ok: false,
        error: { stage: "merkle", error: { kind: "inconsistent", message: expect.stringMatching(/leaf list is false/) } },
      });
      expect(relay.proofIndices).toEqual([]);
      expect(stages).not.toContain("prove");
    }
  });

  it("a relay that does not list its leaves (404) leaves every leaf a candidate, as before get_leaves", async () => {
    const relay = fakeRelay([ok200], { leafCount: 50, noLeafList: true });
    expect((await run(relay)).r).toMatchObject({ ok: true });
    const all = Array.from({ length: 50 }, (_, j) => j);
    expect(relay.proofIndices).toEqual(decoyLeafSet(decoySeed(note), 0, all, 8));
    // A plan then has only the leaf count, an upper bound.
    const fresh = fakeRelay([], { leafCount: 50, noLeafList: true });
    expect(await relayLeaves(fresh.client, WSOL, "devnet")).toEqual({ ok: true, value: { leaves: null, nextIndex: 50 } });
  });

  it("a relay whose answers disagree with its own root stops the lookup: nothing is asked again, nothing proved", async () => {
    const liar = fakeRelay([], {
      leafCount: 20,
      lie: (index, path) => (index === 0 ? path : [[...path[0]!.slice(0, 31), path[0]![31]! ^ 1], ...path.slice(1)]),
    });
    const { r, stages } = await run(liar);
    expect(r).toMatchObject({
      ok: false,
      error: { stage: "merkle", error: { kind: "inconsistent", message: expect.stringMatching(/instead of asking again/) } },
    });
    expect(stages).not.toContain("prove");
    expect(liar.calls.filter((c) => c === "get_merkle")).toHaveLength(2);
    expect(liar.proofIndices).toHaveLength(9);
  });

  it("withdraws part of a note: depositSize is the part, the fee is charged on it, and the change note holds the rest", async () => {
    const relay = fakeRelay([ok200], { leafCount: 3 });
    provedInputs.length = 0;
    const { r } = await run(relay, true, { amount: 200_000n });
    expect(r).toMatchObject({ ok: true, value: { terms: { fee: 1000n, toRecipient: 199_000n }, changeLeafIndex: 3 } });
    expect(relay.relayBodies[0]).toMatchObject({ depositSize: 200_000, fee: 1000 });
    const change = changeNoteOf(hasher, note, 200_000n);
    expect(relay.relayBodies[0]!.changeCommitment).toEqual(Array.from(change.commitment));
    expect(provedInputs[0]).toMatchObject({ amount: "200000", value: "1000000" });
    if (!r.ok) throw new Error("unreachable");
    expect(r.value.change).toMatchObject({ amount: 800_000n, change: { leafIndex: 3, piece: 1, origin: note.commitment } });
    expect(r.value.change.commitment).toEqual(change.commitment);
    await expect(run(fakeRelay([]), true, { amount: 1_000_001n })).rejects.toThrow(/above the note's value/);
  });

  it("decoys: a small tree gives every other leaf; decoys 0 asks for the leaf alone; a bad count throws before anything is sent", async () => {
    const small = fakeRelay([ok200], { leafCount: 4 });
    expect((await run(small)).r).toMatchObject({ ok: true });
    expect([...small.proofIndices].sort()).toEqual([0, 1, 2, 3]);
    expect(small.calls.filter((c) => c === "get_node")).toHaveLength(4);
    const none = fakeRelay([ok200], { leafCount: 50 });
    expect((await run(none, true, { lookup: { kind: "decoys", decoys: 0 } })).r).toMatchObject({ ok: true });
    expect(none.proofIndices).toEqual([0]);
    const three = fakeRelay([ok200], { leafCount: 50 });
    expect((await run(three, true, { lookup: { kind: "decoys", decoys: 3 } })).r).toMatchObject({ ok: true });
    expect(three.proofIndices).toHaveLength(4);
    expect(three.nullifierHashes).toHaveLength(4);
    const bad = fakeRelay([]);
    await expect(run(bad, true, { lookup: { kind: "decoys", decoys: -1 } })).rejects.toThrow(/decoys/);
    expect(bad.calls).toEqual([]);
  });

  it("proves and sends a higher fee when asked", async () => {
    const relay = fakeRelay([ok200]);
    provedInputs.length = 0;
    const { r } = await run(relay, true, { fee: 4000n });
    expect(r).toMatchObject({ ok: true, value: { terms: { fee: 4000n, toRecipient: 996_000n } } });
    expect(relay.relayBodies[0]).toMatchObject({ fee: 4000, relayer: RELAYER });
    expect(provedInputs[0]!.extDataHash).toBe(extDataHash(RELAYER, 4000n));
  });

  it("stops before proving when GET /fees names no relayer for the network or its fee eats the deposit", async () => {
    for (const fees of [
      { ...FEES, relayers: { mainnet: RELAYER } },
      { default: FEES.default, pools: {} },
      { ...FEES, relayers: { devnet: null } },
    ]) {
      const relay = fakeRelay([], { fees });
      const { r, stages } = await run(relay);
      expect(r).toMatchObject({
        ok: false,
        error: { stage: "fees", failure: { error: "BadResponse", message: expect.stringMatching(/no relayer for devnet/) } },
      });
      expect(stages).not.toContain("prove");
    }
    const costly = fakeRelay([], { fees: { ...FEES, default: { bps: 0, floor: "1000000" } } });
    expect((await run(costly)).r).toMatchObject({
      ok: false,
      error: { stage: "fees", failure: { error: "InvalidRequest", message: expect.stringMatching(/does not cover/) } },
    });
    expect(costly.calls).not.toContain("relay");
  });

  it("swap: quotes depositSize - fee from the note's mint, proves with the quote's otherAmountThreshold as minOut, and sends it to /relay_swap", async () => {
    const relay = fakeRelay([ok200]);
    provedInputs.length = 0;
    const { r, stages } = await run(relay, true, { swapTo: USDC });
    expect(stages).toEqual(["login", "nullifier", "fees", "quote", "merkle", "prove", "relay"]);
    expect(relay.quoteBodies[0]).toMatchObject({ inputMint: WSOL, outputMint: USDC, amount: 997_500, network: "devnet" });
    expect(r).toMatchObject({ ok: true, value: { terms: { relayer: RELAYER, fee: 2500n, minOut: 4975n }, quote: { otherAmountThreshold: "4975" } } });
    expect(relay.calls.at(-1)).toBe("relay_swap");
    const body = relay.relayBodies[0]!;
    expect(body).toMatchObject({ input_mint: WSOL, output_mint: USDC, minOut: "4975", fee: 2500, relayer: RELAYER, depositSize: 1_000_000, network: "devnet" });
    expect(body).not.toHaveProperty("mint");
    expect(provedInputs[0]!.extDataHash).toBe(extDataHash(RELAYER, 2500n, { outputMint: USDC, minOut: 4975n }));

    // An explicit minOut overrides the quote's.
    const explicit = fakeRelay([ok200]);
    provedInputs.length = 0;
    expect((await run(explicit, true, { swapTo: USDC, minOut: 4000n })).r).toMatchObject({ ok: true, value: { terms: { minOut: 4000n } } });
    expect(explicit.relayBodies[0]).toMatchObject({ minOut: "4000" });
    expect(provedInputs[0]!.extDataHash).toBe(extDataHash(RELAYER, 2500n, { outputMint: USDC, minOut: 4000n }));
  });

  it("swap: a quote without a usable otherAmountThreshold stops before proving; bad options throw", async () => {
    const base = { inputMint: WSOL, outputMint: USDC, inAmount: "997500", outAmount: "5000", priceImpactPct: 0.1, routePlan: [] };
    for (const quote of [base, { ...base, otherAmountThreshold: "0" }]) {
      const relay = fakeRelay([], { quote });
      const { r, stages } = await run(relay, true, { swapTo: USDC });
      expect(r).toMatchObject({ ok: false, error: { stage: "quote" } });
      expect(stages).not.toContain("prove");
    }
    await expect(run(fakeRelay([]), true, { swapTo: USDC, minOut: 0n })).rejects.toThrow(/minOut/);
    await expect(run(fakeRelay([]), true, { minOut: 5n })).rejects.toThrow(/swapTo/);
  });

  it("keeps a token the client already has, and sends none when there is neither token nor wallet", async () => {
    const withToken = fakeRelay([ok200], { token: "mine" });
    expect((await run(withToken)).r.ok).toBe(true);
    expect(withToken.calls).not.toContain("login");
    expect(withToken.relayTokens).toEqual(["mine"]);
    const anonymous = fakeRelay([{ status: 401, body: { status: 401, error: "Unauthorized" } }]);
    expect((await run(anonymous, false)).r).toMatchObject({ ok: false, error: { stage: "relay", failure: { status: 401, error: "Unauthorized" } } });
    expect(anonymous.relayTokens).toEqual([null]);
  });

  it("stops before proving when the note is already spent", async () => {
    const relay = fakeRelay([], { spent: true });
    const { r, stages } = await run(relay);
    expect(r).toMatchObject({ ok: false, error: { stage: "spent", address: expect.any(String) } });
    expect(stages).toEqual(["login", "nullifier"]);
  });

  it("logs in again once when the relay answers 401 (an expired token)", async () => {
    const relay = fakeRelay([{ status: 401, body: { status: 401, error: "Unauthorized" } }, ok200], { token: "expired" });
    expect((await run(relay)).r.ok).toBe(true);
    expect(relay.relayTokens).toEqual(["expired", "token-1"]);
  });

  it("sends again once when the connection broke before an answer and the nullifier is unspent", async () => {
    // What a keep-alive socket the relay closed while the event loop was busy proving looks like.
    const relay = fakeRelay(["drop", ok200]);
    expect((await run(relay)).r).toMatchObject({ ok: true });
    // After /relay carried the nullifier hash, asking for it alone tells the relay nothing new.
    expect(relay.calls.slice(-3)).toEqual(["relay", "get_nullifier", "relay"]);
  });

  it("after an unknown outcome, reports whether the withdrawal landed", async () => {
    const dropped = fakeRelay(["drop", "drop"]);
    expect((await run(dropped)).r).toMatchObject({ ok: false, error: { stage: "relay", failure: { status: 0, error: "NetworkError" }, landed: false } });

    const failedButLanded = fakeRelay([{ status: 500, body: { status: 500, error: "RelayFailed" }, lands: true }]);
    expect((await run(failedButLanded)).r).toMatchObject({
      ok: false,
      error: { stage: "relay", failure: { status: 500, error: "RelayFailed" }, landed: true },
    });
  });

  it("passes a refusal through without a landed guess", async () => {
    const relay = fakeRelay([{ status: 400, body: { status: 400, error: "InvalidProof", message: "the proof does not verify" } }]);
    const { r } = await run(relay);
    expect(r).toMatchObject({ ok: false, error: { stage: "relay", failure: { status: 400, error: "InvalidProof", message: "the proof does not verify" } } });
    if (!r.ok && r.error.stage === "relay") expect(r.error).not.toHaveProperty("landed");
  });

  it("proves again once against a fresh path when the relay answers InvalidRoot, says so (stage reprove), and the second proof lands", async () => {
    const relay = fakeRelay([
      { status: 400, body: { status: 400, error: "InvalidRoot", message: "root is not the pool's current root or one of its last 1000" } },
      ok200,
    ]);
    const { r, stages } = await run(relay, true, { lookup: { kind: "relay-links-deposit" } });
    expect(r).toMatchObject({ ok: true, value: { signature: ok200.body.signature, reproved: true } });
    expect(stages).toEqual(["login", "nullifier", "fees", "merkle", "prove", "relay", "reprove", "merkle", "prove", "relay"]);
    expect(relay.relayBodies).toHaveLength(2);
  });

  it("reports a second InvalidRoot (or the program's UnknownRoot) instead of proving a third time", async () => {
    for (const error of ["InvalidRoot", "UnknownRoot"]) {
      const refusal = { status: 400, body: { status: 400, error, message: "root is not known" } };
      const relay = fakeRelay([refusal, refusal, ok200]);
      const { r, stages } = await run(relay, true, { lookup: { kind: "relay-links-deposit" } });
      expect(r, error).toMatchObject({ ok: false, error: { stage: "relay", failure: { status: 400, error } } });
      expect(stages.filter((s) => s === "prove")).toHaveLength(2);
      expect(relay.relayBodies).toHaveLength(2);
    }
  });
});

const mixedKindsForPlan = (i: number): KnownLeaf =>
  i % 3 === 0 ? { kind: "change", amount: null } : { kind: "deposit", amount: i % 3 === 1 ? 700_000n : 1_000_000n };

describe("standard pieces (pieces.ts)", () => {
  const feeOf = (a: bigint): bigint | null => {
    const fee = (a * 25n) / 10_000n > 1000n ? (a * 25n) / 10_000n : 1000n;
    return fee >= a ? null : fee;
  };

  it("splits the amount into standard amounts, leaves what is below the floor in the note, and counts each piece's anonymity set", () => {
    const leaves = new Map<number, PoolLeaf>([
      [0, { index: 0, kind: "deposit", commitment: new Uint8Array(32), amount: 3_000_000n }],
      [1, { index: 1, kind: "deposit", commitment: new Uint8Array(32), amount: 700_000n }],
      [2, { index: 2, kind: "change", commitment: new Uint8Array(32), amount: null }],
      [3, { index: 3, kind: "deposit", commitment: new Uint8Array(32), amount: 1_000_000n }],
    ]);
    const rest = planWithdrawal({ value: 3_000_000n, amount: 1_500_000n, floor: 1000n, feeOf, leaves });
    if (!rest.ok) throw new Error(rest.error);
    expect(rest.value).toMatchObject({ total: 1_500_000n, fees: 3750n, toRecipient: 1_496_250n, unsplit: 0n, left: 1_500_000n });
    expect(rest.value.pieces).toEqual([
      { amount: 1_000_000n, fee: 2500n, toRecipient: 997_500n, anonymitySet: 3, standard: true },
      { amount: 500_000n, fee: 1250n, toRecipient: 498_750n, anonymitySet: 4, standard: true },
    ]);
    expect(describePlan(rest.value, USDC, RECIPIENT)).toEqual([
      `withdrawing 1500000 of ${USDC} to ${RECIPIENT} in 2 pieces:`,
      "  piece 1: 1000000, fee 2500, the recipient receives 997500; anonymity set 3 leaves",
      "  piece 2: 500000, fee 1250, the recipient receives 498750; anonymity set 4 leaves",
      "total fees: 3750; the recipient receives 1496250 in all",
      "the note keeps 1500000 after the last piece",
    ]);

    const odd = planWithdrawal({ value: 3_000_000n, amount: 1_234_567n, floor: 1000n, feeOf, leaves: null, leafCount: 12 });
    if (!odd.ok) throw new Error(odd.error);
    expect(odd.value.pieces.map((p) => p.amount)).toEqual([1_000_000n, 200_000n, 20_000n, 10_000n, 2_000n, 2_000n]);
    expect(odd.value).toMatchObject({ unsplit: 567n, left: 3_000_000n - 1_234_000n, leafCount: 12 });
    const lines = describePlan(odd.value, USDC, RECIPIENT);
    expect(lines).toContain("567 of the 1234567 asked is below the smallest standard amount (1000) and stays in the note");
    expect(lines[1]).toMatch(/anonymity set at most 12 leaves \(the relay does not list its leaves: give --rpc/);
  });

  it("without --rpc, the relay's leaf list gives each piece's exact anonymity set", async () => {
    const relay = fakeRelay([], { leafCount: 30, leafPage: 8, kinds: (i) => (i === 0 ? { kind: "deposit", amount: 3_000_000n } : mixedKindsForPlan(i)) });
    const listed = await relayLeaves(relay.client, WSOL, "devnet");
    if (!listed.ok) throw new Error(JSON.stringify(listed.error));
    expect(listed.value.nextIndex).toBe(30);
    expect(relay.leafPages.map((p) => p.from)).toEqual([0, 8, 16, 24]);
    const plan = planWithdrawal({ value: 3_000_000n, amount: 1_500_000n, floor: 1000n, feeOf, leaves: listed.value.leaves });
    if (!plan.ok) throw new Error(plan.error);
    // Pieces of 1,000,000 and 500,000. Leaf 0 and the change leaves (i % 3 == 0: 10 with leaf 0) and the deposits of
    // 1,000,000 (i % 3 == 2: 10) hold either; the deposits of 700,000 (i % 3 == 1: 10) only the second.
    expect(plan.value.pieces.map((p) => p.amount)).toEqual([1_000_000n, 500_000n]);
    expect(plan.value.pieces.map((p) => p.anonymitySet)).toEqual([20, 30]);
    expect(plan.value.leafCount).toBeNull();
    const lines = describePlan(plan.value, USDC, RECIPIENT);
    expect(lines[1]).toMatch(/; anonymity set 20 leaves$/);
    expect(lines.join("\n")).not.toMatch(/at most/);
    const small = planWithdrawal({ value: 3_000_000n, amount: 500_000n, floor: 1000n, feeOf, leaves: listed.value.leaves });
    expect(small.ok && small.value.pieces.map((p) => p.anonymitySet)).toEqual([30]);
  });

  it("--exact sends one non-standard piece with a warning; amounts that cannot be sent are refused before anything is", () => {
    const exact = planWithdrawal({ value: 3_000_000n, amount: 1_234_567n, floor: 1000n, exact: true, feeOf, leaves: null });
    if (!exact.ok) throw new Error(exact.error);
    expect(exact.value.pieces).toEqual([{ amount: 1_234_567n, fee: 3086n, toRecipient: 1_231_481n, anonymitySet: null, standard: false }]);
    expect(describePlan(exact.value, USDC, RECIPIENT).join("\n")).toMatch(
      /piece 1: 1234567 \(NOT a standard amount\)[^]*warning: --exact sends 1234567, which is not a standard amount/,
    );
    expect(planWithdrawal({ value: 3_000_000n, amount: 999n, floor: 1000n, feeOf, leaves: null })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/below the smallest standard amount \(1000\): it stays in the note/),
    });
    expect(planWithdrawal({ value: 3_000_000n, amount: 3_000_001n, floor: 1000n, feeOf, leaves: null })).toMatchObject({ ok: false });
    expect(planWithdrawal({ value: 3_000_000n, amount: 1000n, floor: 1000n, feeOf, leaves: null })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/does not cover the relay's fee/),
    });
    // All that is left: the whole value, split.
    const all = planWithdrawal({ value: 1_500_000n, floor: 1000n, feeOf, leaves: null });
    expect(all.ok && all.value.pieces.map((p) => p.amount)).toEqual([1_000_000n, 500_000n]);
  });
});

describe("a chain of pieces and its note file", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "sdk-pieces-"));
  });

  const readFile = (f: string) => JSON.parse(readFileSync(f, "utf8")) as Record<string, unknown> & { pending: Record<string, unknown> | null };
  const planOf = (value: bigint, amount: bigint) => {
    const p = planWithdrawal({ value, amount, floor: 1000n, feeOf: (a) => (a / 400n > 1000n ? a / 400n : 1000n), leaves: null });
    if (!p.ok) throw new Error(p.error);
    return p.value;
  };

  it("each piece spends the previous change; the file holds the pending change while a piece is in flight and the confirmed change after", async () => {
    const file = path.join(dir, "chain.json");
    saveNote(file, note);
    const seen: Record<string, unknown>[] = [];
    const relay = fakeRelay([ok200, ok200], { leafCount: 5, onRelay: () => seen.push(readFile(file)) });
    const plan = planOf(1_000_000n, 700_000n);
    const waits: number[] = [];
    const r = await withdrawInPieces(relay.client, file, note, RECIPIENT, plan, {
      hasher,
      wallet: Keypair.generate(),
      prove: { prover: standInProver },
      // --spread: one wait of that length between the two pieces, none before the first.
      spreadMs: 600_000,
      sleep: (ms) => (waits.push(ms), Promise.resolve()),
    });
    if (!r.ok) throw new Error(JSON.stringify(r.error.stage));
    expect(waits).toEqual([600_000]);
    expect(relay.relayBodies.map((b) => b.depositSize)).toEqual([500_000, 200_000]);
    const first = changeNoteOf(hasher, note, 500_000n);
    // The second piece spends the first piece's change note.
    expect(relay.relayBodies[1]!.nullifierHash).toEqual(Array.from(first.nullifierHash));
    // While each request was in flight, the file held that piece's change as pending, with the note it spends.
    expect(seen[0]).toMatchObject({ state: "pending", value: "500000", piece: 1, pending: { amount: "500000", spends: { value: "1000000", piece: 0 } } });
    expect(seen[1]).toMatchObject({
      state: "pending",
      value: "300000",
      piece: 2,
      pending: { amount: "200000", spends: { value: "500000", piece: 1, leafIndex: 5 } },
    });
    expect(readFile(file)).toMatchObject({ state: "confirmed", value: "300000", piece: 2, leafIndex: 6, pending: null });
    expect(r.value.note).toMatchObject({ amount: 300_000n, change: { leafIndex: 6, piece: 2 } });

    // The original note alone finds the same chain through the relay.
    const followed = await followChain(hasher, note, relayLedger(relay.client, hasher));
    if (!followed.ok) throw new Error(followed.error.kind);
    expect(followed.value.pieces.map((p) => [p.piece, p.amount, p.remaining, p.changeLeafIndex])).toEqual([
      [0, 500_000n, 500_000n, 5],
      [1, 200_000n, 300_000n, 6],
    ]);
    expect(followed.value.current.commitment).toEqual(r.value.note.commitment);
  });

  it("a refused piece puts the note it would have spent back; a piece whose outcome is unknown stays pending until the chain tells", async () => {
    const refused = path.join(dir, "refused.json");
    saveNote(refused, note);
    const before = readFileSync(refused, "utf8");
    const relay = fakeRelay([{ status: 400, body: { status: 400, error: "InvalidRoot" } }], { leafCount: 3 });
    const r = await withdrawInPieces(relay.client, refused, note, RECIPIENT, planOf(1_000_000n, 500_000n), { hasher, prove: { prover: standInProver } });
    expect(r).toMatchObject({ ok: false, error: { stage: "withdraw", index: 1, error: { stage: "relay" } } });
    expect(readFileSync(refused, "utf8")).toBe(before);

    // The relay fails with a 500 after the transaction landed: the file stays pending (both notes on disk) ...
    const unknown = path.join(dir, "unknown.json");
    saveNote(unknown, note);
    const landedAnyway = fakeRelay([{ status: 500, body: { status: 500, error: "RelayFailed" }, lands: true }], { leafCount: 3 });
    const u = await withdrawInPieces(landedAnyway.client, unknown, note, RECIPIENT, planOf(1_000_000n, 500_000n), { hasher, prove: { prover: standInProver } });
    expect(u).toMatchObject({ ok: false, error: { stage: "withdraw", error: { stage: "relay", landed: true } } });
    expect(readFile(unknown)).toMatchObject({ state: "pending", value: "500000", leafIndex: null });
    // ... and a restart resolves it from the relay: the spent note's change leaf is found after it, at leaf 3.
    const loaded = await loadNote(unknown, hasher);
    if (!loaded.ok) throw new Error(loaded.error);
    const resolved = await resolveNote(hasher, loaded.value, relayLedger(landedAnyway.client, hasher));
    expect(resolved).toMatchObject({ ok: true, value: { pending: "landed", current: { amount: 500_000n, change: { leafIndex: 3 } } } });

    // A dropped connection twice, nullifier unspent: nothing landed, the file goes back.
    const dropped = path.join(dir, "dropped.json");
    saveNote(dropped, note);
    const d = await withdrawInPieces(fakeRelay(["drop", "drop"], { leafCount: 3 }).client, dropped, note, RECIPIENT, planOf(1_000_000n, 500_000n), {
      hasher,
      prove: { prover: standInProver },
    });
    expect(d).toMatchObject({ ok: false, error: { error: { stage: "relay", landed: false } } });
    expect(readFile(dropped)).toMatchObject({ state: "confirmed", value: "1000000", piece: 0 });

    // A pending file whose withdrawal never reached the pool resolves back to the note it spends.
    const pendingAgain = await loadNote(unknown, hasher);
    if (!pendingAgain.ok) throw new Error(pendingAgain.error);
    const neverSent = await resolveNote(hasher, pendingAgain.value, relayLedger(fakeRelay([], { leafCount: 3 }).client, hasher));
    expect(neverSent).toMatchObject({ ok: true, value: { pending: "not-landed", pieces: [], current: { amount: 1_000_000n, change: null } } });
  });

  it("following through a relay finds standard pieces and the file's recorded amount, and says when it cannot", async () => {
    const relay = fakeRelay([ok200], { leafCount: 2 });
    const exact = planWithdrawal({ value: 1_000_000n, amount: 123_457n, floor: 1000n, exact: true, feeOf: () => 1000n, leaves: null });
    if (!exact.ok) throw new Error(exact.error);
    const file = path.join(dir, "exact.json");
    saveNote(file, note);
    const r = await withdrawInPieces(relay.client, file, note, RECIPIENT, exact.value, { hasher, prove: { prover: standInProver } });
    expect(r.ok).toBe(true);
    const lost = await followChain(hasher, note, relayLedger(relay.client, hasher));
    expect(lost).toMatchObject({ ok: false, error: { kind: "not-found", message: expect.stringMatching(/read the chain with --rpc/) } });
    const hinted = await followChain(hasher, note, relayLedger(relay.client, hasher), { hints: [123_457n] });
    expect(hinted).toMatchObject({ ok: true, value: { current: { amount: 876_543n, change: { leafIndex: 2 } } } });
  });
});
