import { readFileSync } from "node:fs";
import { buildBn128, type Bn128Curve } from "ffjavascript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { bytesToBigInt } from "../../src-shared/encoding/field";
import { decodeProof, encodeProof, toSnarkjs, type SnarkjsProof } from "../../src-shared/zk/proof-codec";
import { NoteSecrets, createNote, publicKeyField, type DepositNote } from "./note";
import { DEFAULT_ARTIFACTS, buildWithdrawalInput, proveWithdrawal, snarkjsProver, verifyWithdrawalProof, type MerklePathInput, type Prover } from "./prove";
import { loadSnarkjs } from "./snarkjs";
import { leafIndexBits, rootFromPath } from "./tree";

const WSOL = "So11111111111111111111111111111111111111112";
const RECIPIENT = encodeBase58(Uint8Array.from({ length: 32 }, (_, i) => 0xff - 3 * i)); // high bytes in both halves
const OTHER = encodeBase58(new Uint8Array(32).fill(9));
const DEPTH = 32;
const vkey = JSON.parse(readFileSync(DEFAULT_ARTIFACTS.vkeyPath, "utf8")) as object;

/** Root and path of leaves[index] in a depth-32 tree whose other leaves are empty (0), built level by level. */
function localTree(hasher: FieldHasher, leaves: Uint8Array[], index: number): MerklePathInput {
  const zeros: Uint8Array[] = [new Uint8Array(32)];
  for (let i = 0; i < DEPTH; i++) zeros.push(hasher.hash([zeros[i]!, zeros[i]!]));
  const path: Uint8Array[] = [];
  let level = leaves.slice();
  let idx = index;
  for (let i = 0; i < DEPTH; i++) {
    path.push(level[idx ^ 1] ?? zeros[i]!);
    const next: Uint8Array[] = [];
    for (let j = 0; j < level.length; j += 2) next.push(hasher.hash([level[j]!, level[j + 1] ?? zeros[i]!]));
    level = next;
    idx >>= 1;
  }
  return { root: level[0]!, path, indices: leafIndexBits(index) };
}

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

  it("builds the circuit's input: public signals in order, recipient and mint as Poseidon(hi, lo)", () => {
    const merkle = localTree(hasher, notes.map((n) => n.commitment), 1);
    const built = buildWithdrawalInput(hasher, notes[1]!, merkle, RECIPIENT);
    if (!built.ok) throw new Error(built.error.message);
    const { input, publicSignals } = built.value;
    expect(Object.keys(input)).toEqual(["root", "nullifierHash", "recipient", "amount", "mint", "nullifier", "secret", "pathElements", "pathIndices"]);
    expect(publicSignals).toEqual([input.root, input.nullifierHash, input.recipient, input.amount, input.mint]);
    expect(input.amount).toBe("1000001");
    expect(input.root).toBe(bytesToBigInt(merkle.root).toString());
    expect(input.recipient).toBe(bytesToBigInt(publicKeyField(hasher, Uint8Array.from({ length: 32 }, (_, i) => 0xff - 3 * i))).toString());
    // Leaf 1 is a right child at level 0 and a left child above.
    expect(input.pathIndices.slice(0, 3)).toEqual(["1", "0", "0"]);
    expect(input.pathElements[0]).toBe(bytesToBigInt(notes[0]!.commitment).toString());
    expect(input.pathElements).toHaveLength(32);
  });

  it("a proof for a locally built tree verifies with snarkjs; the wire form round-trips to the same verdicts", async () => {
    const merkle = localTree(hasher, notes.map((n) => n.commitment), 2);
    expect(rootFromPath(hasher, notes[2]!.commitment, merkle.path, merkle.indices)).toEqual(merkle.root);
    let original: SnarkjsProof | undefined;
    const capture: Prover = async (input, wasm, zkey) => {
      const out = await snarkjsProver(input, wasm, zkey);
      original = out.proof;
      return out;
    };
    const r = await proveWithdrawal(notes[2]!, merkle, RECIPIENT, { hasher, prover: capture });
    if (!r.ok) throw new Error(`${r.error.kind}: ${r.error.message}`);
    const { proof, publicSignals } = r.value;
    console.log(`proving time (single-threaded snarkjs, witness + prove): ${r.value.provingMs} ms`);
    expect(proof).toBeInstanceOf(Uint8Array);
    expect(proof).toHaveLength(256);
    expect(r.value).toMatchObject({ root: merkle.root, nullifierHash: notes[2]!.nullifierHash, recipient: RECIPIENT, mint: WSOL, amount: 1_000_002n, network: "mainnet" });

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

    // The same proof for another recipient, or another amount, is refused by both forms alike.
    const other = buildWithdrawalInput(hasher, notes[2]!, merkle, OTHER);
    if (!other.ok) throw new Error(other.error.message);
    const tampered = [other.value.publicSignals, publicSignals.map((s, i) => (i === 3 ? "1" : s))];
    for (const signals of tampered) {
      expect(await groth16.verify(vkey, signals, original!)).toBe(false);
      expect(await groth16.verify(vkey, signals, fromWire)).toBe(false);
    }
    // A flipped bit in C: still 256 valid bytes, no longer a proof.
    const bent = proof.slice();
    bent[255] = bent[255]! ^ 1;
    expect(await verifyWithdrawalProof(bent, publicSignals)).toEqual({ ok: true, value: false });
  });

  it("refuses what cannot be proved before running the prover", async () => {
    const merkle = localTree(hasher, notes.map((n) => n.commitment), 0);
    const never: Prover = () => Promise.reject(new Error("the prover must not run"));
    const prove = (note: DepositNote, m: MerklePathInput, recipient = RECIPIENT, extra = {}) => proveWithdrawal(note, m, recipient, { hasher, prover: never, ...extra });

    expect(await prove(notes[0]!, merkle, "not-base58!")).toMatchObject({ ok: false, error: { kind: "recipient" } });
    expect(await prove(notes[1]!, merkle)).toMatchObject({ ok: false, error: { kind: "path", message: expect.stringMatching(/rebuilds/) } });
    expect(await prove(notes[0]!, { ...merkle, path: merkle.path.slice(1) })).toMatchObject({ ok: false, error: { kind: "path" } });
    expect(await prove(notes[0]!, { ...merkle, indices: [2, ...merkle.indices.slice(1)] })).toMatchObject({ ok: false, error: { kind: "path" } });
    const forged: DepositNote = { ...notes[0]!, secrets: new NoteSecrets(notes[0]!.secrets.nullifier, notes[0]!.secrets.secret + 1n) };
    expect(await prove(forged, merkle)).toMatchObject({ ok: false, error: { kind: "note" } });
    expect(await prove(notes[0]!, merkle, RECIPIENT, { zkeyPath: "/nonexistent/withdraw.zkey" })).toMatchObject({ ok: false, error: { kind: "artifacts" } });
    expect(await prove(notes[0]!, merkle)).toMatchObject({ ok: false, error: { kind: "prover", message: "the prover must not run" } });
  });

  it("refuses a proof whose public signals are not what the relay recomputes", async () => {
    const merkle = localTree(hasher, notes.map((n) => n.commitment), 0);
    const fake: SnarkjsProof = { pi_a: ["1", "2", "1"], pi_b: [["1", "2"], ["3", "4"], ["1", "0"]], pi_c: ["1", "2", "1"] };
    const wrongRecipient: Prover = async (input) => ({ proof: fake, publicSignals: [input.root, input.nullifierHash, "5", input.amount, input.mint] });
    expect(await proveWithdrawal(notes[0]!, merkle, RECIPIENT, { hasher, prover: wrongRecipient })).toMatchObject({ ok: false, error: { kind: "signals" } });
  });
});
