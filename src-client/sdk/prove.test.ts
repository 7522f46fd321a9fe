import { readFileSync } from "node:fs";
import bs58 from "bs58";
import { buildBn128, type Bn128Curve } from "ffjavascript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STAND_IN_PROOF, localTree } from "./test-support";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { PUBLIC_SIGNAL_NAMES, computeExtDataHash, withdrawalPublicSignals as relaySignals } from "../../src-shared/crypto/protocol";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { bigIntToBytes32, bytesToBigInt } from "../../src-shared/encoding/field";
import { decodeProof, encodeProof, toSnarkjs, type SnarkjsProof } from "../../src-shared/zk/proof-codec";
import { NoteSecrets, changeNoteOf, createNote, publicKeyField, withLeafIndex, type DepositNote } from "./note";
import { DEFAULT_ARTIFACTS, buildWithdrawalInput, proveWithdrawal, snarkjsProver, verifyWithdrawalProof, type MerklePathInput, type Prover } from "./prove";
import { loadSnarkjs } from "./snarkjs";
import { rootFromPath } from "./tree";

const WSOL = "So11111111111111111111111111111111111111112";
const RECIPIENT = encodeBase58(Uint8Array.from({ length: 32 }, (_, i) => 0xff - 3 * i)); // high bytes in both halves
const OTHER = encodeBase58(new Uint8Array(32).fill(9));
const RELAYER = encodeBase58(Uint8Array.from({ length: 32 }, (_, i) => (7 * i + 1) & 0xff));
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const TERMS = { relayer: RELAYER, fee: 2500n } as const;
const key = (s: string): Uint8Array => bs58.decode(s);
const vkey = JSON.parse(readFileSync(DEFAULT_ARTIFACTS.vkeyPath, "utf8")) as object;

describe("proveWithdrawal", () => {
  let hasher: FieldHasher;
  let curve: Bn128Curve;
  let notes: DepositNote[];

  beforeAll(async () => {
    hasher = await createPoseidonHasher();
    // snarkjs's verify picks up this single-threaded curve instead of starting worker threads.
    curve = await buildBn128(true);
    (globalThis as { curve_bn128?: unknown }).curve_bn128 = curve;
    notes = [];
    for (let i = 0; i < 3; i++) {
      const n = await createNote({ network: "mainnet", mint: WSOL, amount: 1_000_000n + BigInt(i), hasher });
      if (!n.ok) throw new Error(n.error);
      notes.push(n.value);
    }
  });

  afterAll(async () => {
    (globalThis as { curve_bn128?: unknown }).curve_bn128 = null;
    await curve?.terminate();
  });

  it("builds the circuit's input: public signals in order, recipient and mint as Poseidon(hi, lo), extDataHash of the terms", () => {
    const merkle = localTree(
      hasher,
      notes.map((n) => n.commitment),
      1,
    );
    const built = buildWithdrawalInput(hasher, notes[1]!, merkle, RECIPIENT, TERMS);
    if (!built.ok) throw new Error(built.error.message);
    const { input, publicSignals } = built.value;
    expect(Object.keys(input)).toEqual([
      "root",
      "nullifierHash",
      "recipient",
      "amount",
      "mint",
      "extDataHash",
      "changeCommitment",
      "value",
      "nullifier",
      "secret",
      "isChange",
      "origin",
      "pathElements",
      "pathIndices",
      "changeNullifier",
      "changeSecret",
    ]);
    // A whole withdrawal of a deposit note: value = amount, its own leaf as origin, a change leaf of 0 by the chain rule.
    expect(input).toMatchObject({ value: "1000001", isChange: "0", origin: bytesToBigInt(notes[1]!.commitment).toString() });
    const change = changeNoteOf(hasher, notes[1]!, 1_000_001n);
    expect(change.amount).toBe(0n);
    expect(input.changeCommitment).toBe(bytesToBigInt(change.commitment).toString());
    expect(input.changeNullifier).toBe(change.secrets.nullifier.toString());
    expect(input.changeSecret).toBe(change.secrets.secret.toString());
    expect(publicSignals).toEqual(PUBLIC_SIGNAL_NAMES.map((n) => input[n]));
    expect(input.amount).toBe("1000001");
    expect(input.root).toBe(bytesToBigInt(merkle.root).toString());
    expect(input.recipient).toBe(
      bytesToBigInt(
        publicKeyField(
          hasher,
          Uint8Array.from({ length: 32 }, (_, i) => 0xff - 3 * i),
        ),
      ).toString(),
    );
    // extDataHash = Poseidon(relayerField, fee, 0, 0) for a plain withdrawal.
    const relayerField = publicKeyField(hasher, key(RELAYER));
    const zero = new Uint8Array(32);
    expect(input.extDataHash).toBe(bytesToBigInt(hasher.hash([relayerField, bigIntToBytes32(2500n), zero, zero])).toString());
    // Exactly what the relay recomputes from the request and its own key (src-shared/crypto/protocol.ts).
    const relay = relaySignals(hasher, {
      root: merkle.root,
      nullifierHash: notes[1]!.nullifierHash,
      recipient: key(RECIPIENT),
      amount: 1_000_001n,
      mint: key(WSOL),
      terms: { relayer: key(RELAYER), fee: 2500n, swap: null },
      changeCommitment: change.commitment,
    });
    expect(publicSignals).toEqual(relay.map((b) => bytesToBigInt(b).toString()));
    // Leaf 1 is a right child at level 0 and a left child above.
    expect(input.pathIndices.slice(0, 3)).toEqual(["1", "0", "0"]);
    expect(input.pathElements[0]).toBe(bytesToBigInt(notes[0]!.commitment).toString());
    expect(input.pathElements).toHaveLength(32);
  });

  it("binds every term: another relayer, fee, output mint or minOut changes extDataHash and nothing else", () => {
    const merkle = localTree(
      hasher,
      notes.map((n) => n.commitment),
      0,
    );
    const signalsFor = (terms: Parameters<typeof buildWithdrawalInput>[4]): string[] => {
      const b = buildWithdrawalInput(hasher, notes[0]!, merkle, RECIPIENT, terms);
      if (!b.ok) throw new Error(b.error.message);
      return b.value.publicSignals;
    };
    const swap = { outputMint: USDC, minOut: 4_975_000n };
    const base = signalsFor({ ...TERMS, swap });
    expect(base[5]).toBe(
      bytesToBigInt(computeExtDataHash(hasher, { relayer: key(RELAYER), fee: 2500n, swap: { outputMint: key(USDC), minOut: 4_975_000n } })).toString(),
    );
    const variants = [
      signalsFor(TERMS),
      signalsFor({ ...TERMS, relayer: OTHER, swap }),
      signalsFor({ ...TERMS, fee: 2501n, swap }),
      signalsFor({ ...TERMS, swap: { ...swap, outputMint: OTHER } }),
      signalsFor({ ...TERMS, swap: { ...swap, minOut: 4_974_999n } }),
    ];
    for (const v of variants) {
      expect(v.slice(0, 5)).toEqual(base.slice(0, 5));
      expect(v[5]).not.toBe(base[5]);
      expect(v[6]).toBe(base[6]);
    }
    expect(new Set(variants.map((v) => v[5])).size).toBe(variants.length);
  });

  it("a proof for a locally built tree verifies with snarkjs; the wire form round-trips to the same verdicts", async () => {
    const merkle = localTree(
      hasher,
      notes.map((n) => n.commitment),
      2,
    );
    expect(rootFromPath(hasher, notes[2]!.commitment, merkle.path, merkle.indices)).toEqual(merkle.root);
    let original: SnarkjsProof | undefined;
    const capture: Prover = async (input, wasm, zkey) => {
      const out = await snarkjsProver(input, wasm, zkey);
      original = out.proof;
      return out;
    };
    const r = await proveWithdrawal(notes[2]!, merkle, RECIPIENT, { ...TERMS, hasher, prover: capture });
    if (!r.ok) throw new Error(`${r.error.kind}: ${r.error.message}`);
    const { proof, publicSignals } = r.value;
    console.log(`proving time (single-threaded snarkjs, witness + prove): ${r.value.provingMs} ms`);
    expect(proof).toBeInstanceOf(Uint8Array);
    expect(proof).toHaveLength(256);
    expect(r.value).toMatchObject({
      root: merkle.root,
      nullifierHash: notes[2]!.nullifierHash,
      recipient: RECIPIENT,
      mint: WSOL,
      amount: 1_000_002n,
      network: "mainnet",
      relayer: RELAYER,
      fee: 2500n,
      swap: null,
    });
    expect(publicSignals).toHaveLength(7);
    expect(bytesToBigInt(r.value.extDataHash).toString()).toBe(publicSignals[5]);
    expect(bytesToBigInt(r.value.changeCommitment).toString()).toBe(publicSignals[6]);
    expect(r.value.change.amount).toBe(0n);

    const groth16 = await loadSnarkjs();
    const decoded = decodeProof(proof);
    if (!decoded.ok) throw new Error(decoded.error);
    expect(encodeProof(decoded.value)).toEqual(proof);
    const fromWire = toSnarkjs(decoded.value);
    expect(fromWire.pi_a.slice(0, 2)).toEqual(original!.pi_a.slice(0, 2));
    expect(fromWire.pi_b.slice(0, 2)).toEqual(original!.pi_b.slice(0, 2));
    expect(fromWire.pi_c.slice(0, 2)).toEqual(original!.pi_c.slice(0, 2));

    expect(await groth16.verify(vkey, publicSignals, original!)).toBe(true);
    expect(await groth16.verify(vkey, publicSignals, fromWire)).toBe(true);
    expect(await verifyWithdrawalProof(proof, publicSignals)).toEqual({ ok: true, value: true });

    // The same proof for another recipient, another amount, another relayer, another fee or a swap is refused by both forms alike.
    const signalsFor = (recipient: string, terms: Parameters<typeof buildWithdrawalInput>[4]): string[] => {
      const b = buildWithdrawalInput(hasher, notes[2]!, merkle, recipient, terms);
      if (!b.ok) throw new Error(b.error.message);
      return b.value.publicSignals;
    };
    const tampered = [
      signalsFor(OTHER, TERMS),
      publicSignals.map((s, i) => (i === 3 ? "1" : s)),
      signalsFor(RECIPIENT, { ...TERMS, relayer: OTHER }),
      signalsFor(RECIPIENT, { ...TERMS, fee: 1_000_002n }),
      signalsFor(RECIPIENT, { ...TERMS, swap: { outputMint: USDC, minOut: 1n } }),
      // Another change leaf (a proof replayed to keep a change of another value) is refused too.
      publicSignals.map((s, i) => (i === 6 ? bytesToBigInt(changeNoteOf(hasher, notes[2]!, 1n).commitment).toString() : s)),
    ];
    for (const signals of tampered) {
      expect(await groth16.verify(vkey, signals, original!)).toBe(false);
      expect(await groth16.verify(vkey, signals, fromWire)).toBe(false);
    }
    // A flipped bit in C: still 256 valid bytes, no longer a proof.
    const bent = proof.slice();
    bent[255] = bent[255]! ^ 1;
    expect(await verifyWithdrawalProof(bent, publicSignals)).toEqual({ ok: true, value: false });
  });

  it("a chain with the real circuit: part of a deposit, then part of its change note, each proof verifying with seven signals", async () => {
    // Piece 1: 300,000 of a 1,000,000 deposit; piece 2: 200,000 of the 700,000 change note, proved along the tree holding it.
    const deposit = notes[0]!;
    const first = localTree(
      hasher,
      notes.map((n) => n.commitment),
      0,
    );
    const p1 = await proveWithdrawal(deposit, first, RECIPIENT, { ...TERMS, hasher, amount: 300_000n });
    if (!p1.ok) throw new Error(`${p1.error.kind}: ${p1.error.message}`);
    expect(p1.value.publicSignals[3]).toBe("300000");
    expect(p1.value.change).toMatchObject({ amount: 700_000n, change: { origin: deposit.commitment, piece: 1, leafIndex: null } });
    expect(await verifyWithdrawalProof(p1.value.proof, p1.value.publicSignals)).toEqual({ ok: true, value: true });

    const change = withLeafIndex(p1.value.change, notes.length);
    const second = localTree(hasher, [...notes.map((n) => n.commitment), change.commitment], notes.length);
    const built = buildWithdrawalInput(hasher, change, second, RECIPIENT, TERMS, 200_000n);
    if (!built.ok) throw new Error(built.error.message);
    // A change note spends a change leaf (isChange 1) and keeps the chain's origin.
    expect(built.value.input).toMatchObject({ isChange: "1", value: "700000", origin: bytesToBigInt(deposit.commitment).toString() });
    const p2 = await proveWithdrawal(change, second, RECIPIENT, { ...TERMS, hasher, amount: 200_000n });
    if (!p2.ok) throw new Error(`${p2.error.kind}: ${p2.error.message}`);
    expect(p2.value.change).toMatchObject({ amount: 500_000n, change: { origin: deposit.commitment, piece: 2 } });
    expect(await verifyWithdrawalProof(p2.value.proof, p2.value.publicSignals)).toEqual({ ok: true, value: true });
    // The second proof does not verify for the first piece's change leaf: each piece binds its own.
    expect(
      await verifyWithdrawalProof(
        p2.value.proof,
        p2.value.publicSignals.map((x, i) => (i === 6 ? p1.value.publicSignals[6]! : x)),
      ),
    ).toEqual({
      ok: true,
      value: false,
    });
  });

  it("refuses what cannot be proved before running the prover", async () => {
    const merkle = localTree(
      hasher,
      notes.map((n) => n.commitment),
      0,
    );
    const never: Prover = () => Promise.reject(new Error("the prover must not run"));
    const prove = (note: DepositNote, m: MerklePathInput, recipient = RECIPIENT, extra = {}) =>
      proveWithdrawal(note, m, recipient, { ...TERMS, hasher, prover: never, ...extra });

    expect(await prove(notes[0]!, merkle, "not-base58!")).toMatchObject({ ok: false, error: { kind: "recipient" } });
    expect(await prove(notes[0]!, merkle, RECIPIENT, { relayer: "not-base58!" })).toMatchObject({
      ok: false,
      error: { kind: "terms", message: expect.stringMatching(/^relayer/) },
    });
    expect(await prove(notes[0]!, merkle, RECIPIENT, { amount: 1_000_001n })).toMatchObject({
      ok: false,
      error: { kind: "amount", message: /above the note's value/ },
    });
    expect(await prove(notes[0]!, merkle, RECIPIENT, { amount: 0n })).toMatchObject({ ok: false, error: { kind: "amount" } });
    expect(await prove(notes[0]!, merkle, RECIPIENT, { amount: 2000n, fee: 2001n })).toMatchObject({ ok: false, error: { kind: "terms" } });
    expect(await prove(notes[0]!, merkle, RECIPIENT, { fee: 1_000_001n })).toMatchObject({
      ok: false,
      error: { kind: "terms", message: expect.stringMatching(/above the amount/) },
    });
    expect(await prove(notes[0]!, merkle, RECIPIENT, { fee: -1n })).toMatchObject({ ok: false, error: { kind: "terms" } });
    expect(await prove(notes[0]!, merkle, RECIPIENT, { fee: 1.5 })).toMatchObject({ ok: false, error: { kind: "terms" } });
    expect(await prove(notes[0]!, merkle, RECIPIENT, { swap: { outputMint: "nope", minOut: 1n } })).toMatchObject({
      ok: false,
      error: { kind: "terms", message: expect.stringMatching(/output mint/) },
    });
    expect(await prove(notes[0]!, merkle, RECIPIENT, { swap: { outputMint: USDC, minOut: 1n << 64n } })).toMatchObject({
      ok: false,
      error: { kind: "terms", message: expect.stringMatching(/minOut/) },
    });
    expect(await prove(notes[1]!, merkle)).toMatchObject({ ok: false, error: { kind: "path", message: expect.stringMatching(/rebuilds/) } });
    expect(await prove(notes[0]!, { ...merkle, path: merkle.path.slice(1) })).toMatchObject({ ok: false, error: { kind: "path" } });
    expect(await prove(notes[0]!, { ...merkle, indices: [2, ...merkle.indices.slice(1)] })).toMatchObject({ ok: false, error: { kind: "path" } });
    const forged: DepositNote = { ...notes[0]!, secrets: new NoteSecrets(notes[0]!.secrets.nullifier, notes[0]!.secrets.secret + 1n) };
    expect(await prove(forged, merkle)).toMatchObject({ ok: false, error: { kind: "note" } });
    expect(await prove(notes[0]!, merkle, RECIPIENT, { zkeyPath: "/nonexistent/withdraw.zkey" })).toMatchObject({ ok: false, error: { kind: "artifacts" } });
    expect(await prove(notes[0]!, merkle)).toMatchObject({ ok: false, error: { kind: "prover", message: "the prover must not run" } });
  });

  it("refuses a proof whose public signals are not what the relay recomputes", async () => {
    const merkle = localTree(
      hasher,
      notes.map((n) => n.commitment),
      0,
    );
    const fake = STAND_IN_PROOF;
    const wrongRecipient: Prover = async (input) => ({
      proof: fake,
      publicSignals: [input.root, input.nullifierHash, "5", input.amount, input.mint, input.extDataHash, input.changeCommitment],
    });
    expect(await proveWithdrawal(notes[0]!, merkle, RECIPIENT, { ...TERMS, hasher, prover: wrongRecipient })).toMatchObject({
      ok: false,
      error: { kind: "signals" },
    });
    // A prover bound to other terms (another extDataHash) is caught before anything is sent.
    const otherTerms: Prover = async (input) => ({
      proof: fake,
      publicSignals: [input.root, input.nullifierHash, input.recipient, input.amount, input.mint, "7", input.changeCommitment],
    });
    expect(await proveWithdrawal(notes[0]!, merkle, RECIPIENT, { ...TERMS, hasher, prover: otherTerms })).toMatchObject({
      ok: false,
      error: { kind: "signals" },
    });
    // A prover that keeps another change leaf (another remaining value) is caught too.
    const otherChange: Prover = async (input) => ({
      proof: fake,
      publicSignals: [input.root, input.nullifierHash, input.recipient, input.amount, input.mint, input.extDataHash, "11"],
    });
    expect(await proveWithdrawal(notes[0]!, merkle, RECIPIENT, { ...TERMS, hasher, prover: otherChange })).toMatchObject({
      ok: false,
      error: { kind: "signals" },
    });
    // v2 artifacts answer six signals: the message says what is wrong.
    const v2: Prover = async (input) => ({
      proof: fake,
      publicSignals: [input.root, input.nullifierHash, input.recipient, input.amount, input.mint, input.extDataHash],
    });
    expect(await proveWithdrawal(notes[0]!, merkle, RECIPIENT, { ...TERMS, hasher, prover: v2 })).toMatchObject({
      ok: false,
      error: { kind: "signals", message: expect.stringMatching(/protocol v3/) },
    });
  });
});
