import { readFileSync } from "node:fs";
import { buildBn128, type Bn128Curve } from "ffjavascript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { decodeProof, toSnarkjs } from "../../src-shared/zk/proof-codec";
import { FastProver, MSM_WASM, randomScalar } from "./fast-prover";
import { withLeafIndex, type DepositNote } from "./note";
import { DEFAULT_ARTIFACTS, buildWithdrawalInput, proveWithdrawal, verifyWithdrawalProof, type Prover } from "./prove";
import { loadSnarkjs } from "./snarkjs";
import { createNoteOrThrow, localTree } from "./test-support";

const WSOL = "So11111111111111111111111111111111111111112";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const RECIPIENT = encodeBase58(Uint8Array.from({ length: 32 }, (_, i) => 0xff - 3 * i));
const RELAYER = encodeBase58(Uint8Array.from({ length: 32 }, (_, i) => (7 * i + 1) & 0xff));
/** proveWithdrawal's prover option backed by `p`. */
const fastProverFn =
  (p: FastProver): Prover =>
  async (input, wasmPath, zkeyPath) => {
    const { proof, publicSignals } = await p.prove(input, wasmPath, zkeyPath);
    return { proof, publicSignals };
  };
const vkey = JSON.parse(readFileSync(DEFAULT_ARTIFACTS.vkeyPath, "utf8")) as object;

describe("FastProver", () => {
  let hasher: FieldHasher;
  let curve: Bn128Curve;
  let notes: DepositNote[];
  // Threads asked for, so that the shared path is tested on a one-core machine too.
  const prover = new FastProver({ threads: true });

  beforeAll(async () => {
    hasher = await createPoseidonHasher();
    curve = await buildBn128(true);
    (globalThis as { curve_bn128?: unknown }).curve_bn128 = curve;
    notes = [];
    for (let i = 0; i < 2; i++) notes.push(await createNoteOrThrow({ network: "mainnet", mint: WSOL, amount: 1_000_000n + BigInt(i), hasher }));
  });

  afterAll(async () => {
    (globalThis as { curve_bn128?: unknown }).curve_bn128 = null;
    await curve?.terminate();
    await prover.close();
  });

  /** A withdrawal's witness input, as proveWithdrawal hands it to its prover. */
  const withdrawalInput = (): object => {
    const built = buildWithdrawalInput(hasher, notes[0]!, localTree(hasher, [notes[0]!.commitment], 0), RECIPIENT, { relayer: RELAYER, fee: 0n });
    if (!built.ok) throw new Error(built.error.message);
    return built.value.input;
  };

  it("draws r and s uniformly below r, never the same twice", () => {
    const r = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
    const seen = new Set<bigint>();
    for (let i = 0; i < 64; i++) {
      const x = randomScalar();
      expect(x >= 0n && x < r).toBe(true);
      seen.add(x);
    }
    expect(seen.size).toBe(64);
  });

  it("proves a plain withdrawal, a swap and a change-note withdrawal; snarkjs verifies each, in JSON and wire form", async () => {
    const fn = fastProverFn(prover);
    const groth16 = await loadSnarkjs();
    const leaves = notes.map((n) => n.commitment);
    // 1. part of a deposit note, /relay terms.
    const plain = await proveWithdrawal(notes[0]!, localTree(hasher, leaves, 0), RECIPIENT, {
      relayer: RELAYER,
      fee: 2500n,
      hasher,
      prover: fn,
      amount: 300_000n,
    });
    if (!plain.ok) throw new Error(`${plain.error.kind}: ${plain.error.message}`);
    // 2. the whole of the other deposit, /relay_swap terms.
    const swap = await proveWithdrawal(notes[1]!, localTree(hasher, leaves, 1), RECIPIENT, {
      relayer: RELAYER,
      fee: 1000n,
      swap: { outputMint: USDC, minOut: 4_975_000n },
      hasher,
      prover: fn,
    });
    if (!swap.ok) throw new Error(`${swap.error.kind}: ${swap.error.message}`);
    // 3. part of the first piece's change note, a change leaf (isChange 1).
    const change = withLeafIndex(plain.value.change, 2);
    const fromChange = await proveWithdrawal(change, localTree(hasher, [...leaves, change.commitment], 2), RECIPIENT, {
      relayer: RELAYER,
      fee: 2500n,
      hasher,
      prover: fn,
      amount: 200_000n,
    });
    if (!fromChange.ok) throw new Error(`${fromChange.error.kind}: ${fromChange.error.message}`);

    for (const p of [plain.value, swap.value, fromChange.value]) {
      expect(p.proof).toHaveLength(256);
      expect(await verifyWithdrawalProof(p.proof, p.publicSignals)).toEqual({ ok: true, value: true });
      const decoded = decodeProof(p.proof);
      if (!decoded.ok) throw new Error(decoded.error);
      expect(await groth16.verify(vkey, p.publicSignals, toSnarkjs(decoded.value))).toBe(true);
      // Bound to its signals: another amount does not verify.
      expect(
        await groth16.verify(
          vkey,
          p.publicSignals.map((s, i) => (i === 3 ? "1" : s)),
          toSnarkjs(decoded.value),
        ),
      ).toBe(false);
    }
    expect(fromChange.value.change.amount).toBe(500_000n);
    expect(swap.value.swap).toEqual({ outputMint: USDC, minOut: 4_975_000n });
  });

  it("two proofs of the same withdrawal differ (fresh r, s) and both verify", async () => {
    const merkle = localTree(hasher, [notes[0]!.commitment], 0);
    const single = new FastProver({ threads: false });
    const fn = fastProverFn(single);
    const a = await proveWithdrawal(notes[0]!, merkle, RECIPIENT, { relayer: RELAYER, fee: 0n, hasher, prover: fn });
    const b = await proveWithdrawal(notes[0]!, merkle, RECIPIENT, { relayer: RELAYER, fee: 0n, hasher, prover: fn });
    if (!a.ok || !b.ok) throw new Error("proving failed");
    expect(a.value.publicSignals).toEqual(b.value.publicSignals);
    expect(a.value.proof).not.toEqual(b.value.proof);
    expect(await verifyWithdrawalProof(a.value.proof, a.value.publicSignals)).toEqual({ ok: true, value: true });
    expect(await verifyWithdrawalProof(b.value.proof, b.value.publicSignals)).toEqual({ ok: true, value: true });
    await single.close();
  });

  it("proves the same witness with its MSMs shared with a thread and on one thread: both verify with snarkjs, with the same public signals; one thread keeps the five sums whole", async () => {
    const groth16 = await loadSnarkjs();
    const input = withdrawalInput();
    const single = new FastProver({ threads: false });
    try {
      const { wasmPath, zkeyPath } = DEFAULT_ARTIFACTS;
      const shared = await prover.prove(input, wasmPath, zkeyPath);
      const alone = await single.prove(input, wasmPath, zkeyPath);
      expect(shared.publicSignals).toEqual(alone.publicSignals);
      expect(shared.timings.slices).toBeGreaterThan(5);
      expect(alone.timings).toMatchObject({ slices: 5, slicesOnThread: 0 });
      for (const out of [shared, alone]) expect(await groth16.verify(vkey, out.publicSignals, out.proof)).toBe(true);
    } finally {
      await single.close();
    }
  });

  it("a proof whose MSM thread is ended mid-way still proves (this thread sums what the thread held), and the next proof starts a new thread and verifies", async () => {
    const input = withdrawalInput();
    const { wasmPath, zkeyPath } = DEFAULT_ARTIFACTS;
    const groth16 = await loadSnarkjs();
    const p = new FastProver({ threads: true });
    await p.warm(wasmPath, zkeyPath);
    const inFlight = p.prove(input, wasmPath, zkeyPath);
    // Ended while the proof computes its witness or sums its slices.
    await new Promise((r) => setTimeout(r, 60));
    await p.close();
    for (const out of [await inFlight, await p.prove(input, wasmPath, zkeyPath)]) expect(await groth16.verify(vkey, out.publicSignals, out.proof)).toBe(true);
    await p.close();
  });

  it("rejects when msm.c's module is not where it was told to look, and proves once it is", async () => {
    const missing = new FastProver({ threads: false, msmWasm: `${MSM_WASM}.missing` });
    const merkle = localTree(hasher, [notes[0]!.commitment], 0);
    const tried = await proveWithdrawal(notes[0]!, merkle, RECIPIENT, { relayer: RELAYER, fee: 0n, hasher, prover: fastProverFn(missing) });
    expect(tried.ok).toBe(false);
    await missing.close();
    const found = new FastProver({ threads: false, msmWasm: MSM_WASM });
    const proved = await proveWithdrawal(notes[0]!, merkle, RECIPIENT, { relayer: RELAYER, fee: 0n, hasher, prover: fastProverFn(found) });
    if (!proved.ok) throw new Error(proved.error.message);
    expect(await verifyWithdrawalProof(proved.value.proof, proved.value.publicSignals)).toEqual({ ok: true, value: true });
    await found.close();
  });

  it("refuses a zkey that is not one, and a witness input the circuit rejects", async () => {
    await expect(prover.prove({}, DEFAULT_ARTIFACTS.wasmPath, DEFAULT_ARTIFACTS.vkeyPath)).rejects.toThrow(/not a zkey/);
    await expect(prover.prove({ root: "1" }, DEFAULT_ARTIFACTS.wasmPath, DEFAULT_ARTIFACTS.zkeyPath)).rejects.toThrow();
  });
});
