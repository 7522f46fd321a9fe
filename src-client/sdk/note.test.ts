import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { inspect } from "node:util";
import { buildPoseidon, type Poseidon } from "circomlibjs";
import bs58 from "bs58";
import { beforeAll, describe, expect, it } from "vitest";
import { createNoteOrThrow, tempDirAround } from "./test-support";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { computeLeaf } from "../../src-shared/crypto/protocol";
import { FIELD_MODULUS, bytesToBigInt } from "../../src-shared/encoding/field";
import {
  createNote,
  describeNote,
  loadNote,
  noteCommitment,
  parseNote,
  publicKeyField,
  randomFieldElement,
  saveNote,
  serializeNote,
  withDeposit,
  changeNoteOf,
  noteLeafIndex,
  noteOrigin,
  withLeafIndex,
  type DepositNote,
} from "./note";
import { deriveChangeSecrets, computeChangeLeaf } from "../../src-shared/crypto/protocol";
import { bigIntToBytes32 } from "../../src-shared/encoding/field";

const WSOL = "So11111111111111111111111111111111111111112";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

/** A reproducible byte stream, so a failing case can be replayed. */
function seededRandom(seed: number): (buf: Uint8Array) => void {
  let s = seed >>> 0;
  return (buf) => {
    for (let i = 0; i < buf.length; i++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      buf[i] = s >>> 24;
    }
  };
}

let hasher: FieldHasher;
let poseidon: Poseidon;
/** circomlibjs's own Poseidon on bigints: an oracle independent of the SDK's wasm wrapper and byte handling. */
const H = (xs: bigint[]): bigint => poseidon.F.toObject(poseidon(xs));
const be = (b: Uint8Array): bigint => BigInt(`0x${Buffer.from(b).toString("hex")}`);

beforeAll(async () => {
  hasher = await createPoseidonHasher();
  poseidon = await buildPoseidon();
});

const newNote = (mint = WSOL, amount: bigint | number = 1_000_000n, seed = 1): Promise<DepositNote> =>
  createNoteOrThrow({ network: "mainnet", mint, amount, hasher, random: seededRandom(seed), now: () => new Date("2025-01-02T03:04:05Z") });

describe("commitment derivation (protocol v2, docs/zk.md)", () => {
  it("matches circomlibjs: precommitment Poseidon(nullifier, secret), leaf Poseidon(precommitment, amount, Poseidon(hi, lo))", async () => {
    for (const [mint, amount, seed] of [
      [WSOL, 1_000_000n, 1],
      [USDC, 1n, 2],
      [USDC, BigInt(Number.MAX_SAFE_INTEGER), 3],
    ] as const) {
      const note = await newNote(mint, amount, seed);
      const mintBytes = bs58.decode(mint);
      const mintField = H([be(mintBytes.subarray(0, 16)), be(mintBytes.subarray(16, 32))]);
      const { nullifier, secret } = note.secrets;
      const precommitment = H([nullifier, secret]);
      expect(bytesToBigInt(note.precommitment)).toBe(precommitment);
      expect(bytesToBigInt(note.commitment)).toBe(H([precommitment, amount, mintField]));
      // Not the v1 leaf, which the depositor chose.
      expect(bytesToBigInt(note.commitment)).not.toBe(H([nullifier, secret, amount, mintField]));
      expect(bytesToBigInt(note.nullifierHash)).toBe(H([nullifier]));
      expect(noteCommitment(hasher, { nullifier, secret, amount, mint: mintBytes })).toEqual(note.commitment);
      expect(note.commitment).toEqual(computeLeaf(hasher, note.precommitment, amount, mintBytes));
    }
  });

  it("binds all 256 bits of the mint: keys differing only in the low half give different fields", () => {
    const a = new Uint8Array(32).fill(0xab);
    const b = a.slice();
    b[31] = 0xac;
    expect(bytesToBigInt(publicKeyField(hasher, a))).toBe(H([be(a.subarray(0, 16)), be(a.subarray(16))]));
    expect(publicKeyField(hasher, a)).not.toEqual(publicKeyField(hasher, b));
  });

  it("agrees with the circomlib Poseidon([1,2]) test vector", () => {
    expect(H([1n, 2n]).toString(16)).toBe("115cc0f5e7d690413df64c6b9662e9cf2a3617f2743245519e19607a4417189a");
  });
});

describe("randomFieldElement", () => {
  it("rejects values at or above the modulus and zero instead of reducing them", () => {
    const draws = [new Uint8Array(32).fill(0xff), new Uint8Array(32), Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 7 : 0))];
    let n = 0;
    const x = randomFieldElement((buf) => buf.set(draws[n++]!));
    expect(n).toBe(3);
    expect(x).toBe(7n);
  });

  it("draws distinct values below the modulus from the platform's CSPRNG", () => {
    const seen = new Set<bigint>();
    for (let i = 0; i < 200; i++) {
      const x = randomFieldElement();
      expect(x > 0n && x < FIELD_MODULUS).toBe(true);
      seen.add(x);
    }
    expect(seen.size).toBe(200);
  });

  it("gives up loudly on a broken source", () => {
    expect(() => randomFieldElement((buf) => buf.fill(0))).toThrow(/random source/);
  });
});

describe("createNote", () => {
  it("refuses bad mints and amounts", async () => {
    expect(await createNote({ network: "mainnet", mint: "not-a-key", amount: 1, hasher })).toMatchObject({ ok: false });
    expect(await createNote({ network: "mainnet", mint: WSOL, amount: 0, hasher })).toMatchObject({ ok: false, error: "amount must be positive" });
    expect(await createNote({ network: "mainnet", mint: WSOL, amount: 2 ** 53, hasher })).toMatchObject({ ok: false });
    expect(await createNote({ network: "testnet" as "mainnet", mint: WSOL, amount: 1, hasher })).toMatchObject({ ok: false });
  });
});

describe("note file", () => {
  const dir = tempDirAround("sdk-note-");

  it("round-trips through serializeNote/parseNote (version 3), deposit info included", async () => {
    const note = withDeposit(await newNote(), { signature: "5sig", status: "indexed", leafIndex: 4, wallet: "Wallet111" });
    const text = serializeNote(note);
    const file = JSON.parse(text) as Record<string, unknown>;
    expect(file).toMatchObject({
      kind: "private-withdrawal-relay/deposit-note",
      version: 3,
      network: "mainnet",
      mint: WSOL,
      state: "confirmed",
      value: "1000000",
      isChange: false,
      origin: file.commitment,
      piece: 0,
      leafIndex: 4,
      original: null,
      pending: null,
    });
    expect(Object.keys(file)).toEqual([
      "kind",
      "version",
      "warning",
      "network",
      "mint",
      "state",
      "value",
      "isChange",
      "origin",
      "piece",
      "leafIndex",
      "nullifier",
      "secret",
      "precommitment",
      "commitment",
      "nullifierHash",
      "createdAt",
      "deposit",
      "original",
      "pending",
    ]);
    for (const k of ["nullifier", "secret", "precommitment", "commitment", "nullifierHash"]) expect(file[k]).toMatch(/^0x[0-9a-f]{64}$/);
    const back = await parseNote(text, hasher);
    if (!back.ok) throw new Error(back.error);
    expect(back.value.secrets.nullifier).toBe(note.secrets.nullifier);
    expect(back.value.secrets.secret).toBe(note.secrets.secret);
    expect(back.value.precommitment).toEqual(note.precommitment);
    expect(back.value.commitment).toEqual(note.commitment);
    expect(back.value.nullifierHash).toEqual(note.nullifierHash);
    expect(back.value.deposit).toEqual(note.deposit);
    expect(noteLeafIndex(back.value)).toBe(4);
    expect(serializeNote(back.value)).toBe(text);
  });

  it("loads a version 2 file as a deposit note whose value is its amount", async () => {
    const note = withDeposit(await newNote(USDC, 3_000_000n), { signature: "5sig", status: "indexed", leafIndex: 2, wallet: "Wallet111" });
    // Exactly the file the v2 SDK wrote.
    const v2 = {
      kind: "private-withdrawal-relay/deposit-note",
      version: 2,
      warning: "This file holds the secrets of a deposit: whoever has it can withdraw the funds. Keep it offline and backed up.",
      network: "mainnet",
      mint: USDC,
      amount: "3000000",
      nullifier: `0x${note.secrets.nullifier.toString(16).padStart(64, "0")}`,
      secret: `0x${note.secrets.secret.toString(16).padStart(64, "0")}`,
      precommitment: `0x${Buffer.from(note.precommitment).toString("hex")}`,
      commitment: `0x${Buffer.from(note.commitment).toString("hex")}`,
      nullifierHash: `0x${Buffer.from(note.nullifierHash).toString("hex")}`,
      createdAt: note.createdAt,
      deposit: note.deposit,
    };
    const r = await parseNote(JSON.stringify(v2), hasher);
    if (!r.ok) throw new Error(r.error);
    expect(r.value).toMatchObject({ version: 3, amount: 3_000_000n, change: null, original: null, pending: null });
    expect(noteLeafIndex(r.value)).toBe(2);
    expect(r.value.commitment).toEqual(note.commitment);
    // Saved again it is a version 3 file of the same note.
    expect(serializeNote(r.value)).toBe(serializeNote(note));
    expect(await parseNote(JSON.stringify({ ...v2, amount: "2999999" }), hasher)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/commitment does not match/),
    });
  });

  it("refuses a note whose stored hashes disagree with its secrets", async () => {
    const file = JSON.parse(serializeNote(await newNote())) as Record<string, string>;
    const tamper = (k: string, v: unknown) => parseNote(JSON.stringify({ ...file, [k]: v }), hasher);
    expect(await tamper("value", "999")).toMatchObject({ ok: false, error: expect.stringMatching(/commitment does not match/) });
    expect(await tamper("mint", USDC)).toMatchObject({ ok: false, error: expect.stringMatching(/commitment does not match/) });
    expect(await tamper("nullifierHash", `0x${"00".repeat(32)}`)).toMatchObject({ ok: false, error: expect.stringMatching(/nullifierHash/) });
    expect(await tamper("precommitment", file.commitment!)).toMatchObject({ ok: false, error: expect.stringMatching(/precommitment does not match/) });
    expect(await tamper("secret", `0x${"ff".repeat(32)}`)).toMatchObject({ ok: false, error: expect.stringMatching(/modulus/) });
    expect(await tamper("origin", file.nullifierHash!)).toMatchObject({ ok: false, error: expect.stringMatching(/origin/) });
    expect(await tamper("state", "pending")).toMatchObject({ ok: false, error: expect.stringMatching(/state must be pending exactly when/) });
    expect(await tamper("piece", 1)).toMatchObject({ ok: false, error: expect.stringMatching(/piece/) });
    expect(await parseNote(JSON.stringify({ ...file, version: 4 }), hasher)).toMatchObject({ ok: false, error: expect.stringMatching(/version 4/) });
    expect(await parseNote("{", hasher)).toMatchObject({ ok: false });
  });

  it("refuses a v1 note, saying it was made for protocol v1", async () => {
    // A v1 note file as the previous SDK wrote it: no precommitment, the leaf Poseidon(nullifier, secret, amount, mint).
    const note = await newNote();
    const { nullifier, secret } = note.secrets;
    const mintBytes = bs58.decode(WSOL);
    const v1Leaf = H([nullifier, secret, 1_000_000n, H([be(mintBytes.subarray(0, 16)), be(mintBytes.subarray(16, 32))])]);
    const file = JSON.parse(serializeNote(note)) as Record<string, unknown>;
    delete file.precommitment;
    const v1 = { ...file, version: 1, commitment: `0x${v1Leaf.toString(16).padStart(64, "0")}` };
    const r = await parseNote(JSON.stringify(v1), hasher);
    expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/made for protocol v1/) });
    expect(!r.ok && r.error).toMatch(/cannot be withdrawn/);
    const f = path.join(dir(), "v1-note.json");
    writeFileSync(f, JSON.stringify(v1));
    expect(await loadNote(f, hasher)).toMatchObject({ ok: false, error: expect.stringMatching(/v1-note\.json: this note was made for protocol v1/) });
  });

  it("is saved owner-only and never silently replaced", async () => {
    const note = await newNote();
    const file = path.join(dir(), "sub", "note.json");
    expect(saveNote(file, note)).toEqual({ ok: true, value: undefined });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(saveNote(file, note)).toMatchObject({ ok: false, error: expect.stringMatching(/already exists/) });
    const loaded = await loadNote(file, hasher);
    expect(loaded.ok && loaded.value.secrets.secret).toBe(note.secrets.secret);
    expect(await loadNote(path.join(dir(), "missing.json"), hasher)).toMatchObject({ ok: false, error: expect.stringMatching(/ENOENT/) });
  });
});

describe("change notes (protocol v3, DESIGN §10)", () => {
  it("follow the chain rule: changeNullifier = Poseidon(n, s, 1), changeSecret = Poseidon(n, s, 2), leaf Poseidon(pre, remaining, mint, origin)", async () => {
    const deposit = withDeposit(await newNote(USDC, 3_000_000n, 7), { signature: "dep", status: "indexed", leafIndex: 0, wallet: "W" });
    const c1 = changeNoteOf(hasher, deposit, 1_000_000n);
    const { nullifier: n, secret: s } = deposit.secrets;
    // circomlibjs's Poseidon on bigints as the oracle.
    expect(c1.secrets.nullifier).toBe(H([n, s, 1n]));
    expect(c1.secrets.secret).toBe(H([n, s, 2n]));
    const mintBytes = bs58.decode(USDC);
    const mintField = H([be(mintBytes.subarray(0, 16)), be(mintBytes.subarray(16, 32))]);
    const pre = H([c1.secrets.nullifier, c1.secrets.secret]);
    expect(be(c1.commitment)).toBe(H([pre, 2_000_000n, mintField, be(deposit.commitment)]));
    expect(be(c1.nullifierHash)).toBe(H([c1.secrets.nullifier]));
    expect(c1).toMatchObject({
      amount: 2_000_000n,
      change: { origin: deposit.commitment, piece: 1, leafIndex: null },
      deposit: deposit.deposit,
      pending: null,
    });
    expect(c1.original).toMatchObject({ amount: 3_000_000n, commitment: deposit.commitment });
    // The shared protocol function gives the same secrets.
    const shared = deriveChangeSecrets(hasher, bigIntToBytes32(n), bigIntToBytes32(s));
    expect(be(shared.nullifier)).toBe(c1.secrets.nullifier);
    // The second piece keeps the origin, steps the secrets again, and whole withdrawals leave a change leaf of 0.
    const c2 = changeNoteOf(hasher, withLeafIndex(c1, 5), 500_000n);
    expect(c2.secrets.nullifier).toBe(H([c1.secrets.nullifier, c1.secrets.secret, 1n]));
    expect(c2).toMatchObject({ amount: 1_500_000n, change: { origin: deposit.commitment, piece: 2 } });
    expect(noteOrigin(c2)).toEqual(deposit.commitment);
    const c3 = changeNoteOf(hasher, c2, 1_500_000n);
    expect(c3.amount).toBe(0n);
    expect(c3.commitment).toEqual(computeChangeLeaf(hasher, c3.precommitment, 0n, mintBytes, deposit.commitment));
    // A change leaf can never equal a deposit leaf of the same secrets and value: four inputs against three.
    expect(c1.commitment).not.toEqual(computeLeaf(hasher, c1.precommitment, 2_000_000n, mintBytes));
    expect(() => changeNoteOf(hasher, c2, 1_500_001n)).toThrow(RangeError);
  });

  it("a change note's file round-trips and holds the original deposit; a file mixing chains or values is refused", async () => {
    const deposit = withDeposit(await newNote(USDC, 3_000_000n, 8), { signature: "dep", status: "indexed", leafIndex: 3, wallet: "W" });
    const c2 = withLeafIndex(changeNoteOf(hasher, withLeafIndex(changeNoteOf(hasher, deposit, 1_000_000n), 4), 500_000n), 9);
    const text = serializeNote(c2);
    const file = JSON.parse(text) as Record<string, unknown>;
    expect(file).toMatchObject({ version: 3, state: "confirmed", value: "1500000", isChange: true, piece: 2, leafIndex: 9, deposit: deposit.deposit });
    expect(file.origin).toBe(`0x${Buffer.from(deposit.commitment).toString("hex")}`);
    expect(file.original).toMatchObject({ amount: "3000000", commitment: file.origin });
    const back = await parseNote(text, hasher);
    if (!back.ok) throw new Error(back.error);
    expect(back.value).toMatchObject({ amount: 1_500_000n, change: { piece: 2, leafIndex: 9 }, original: { amount: 3_000_000n } });
    expect(back.value.original!.secrets.secret).toBe(deposit.secrets.secret);
    expect(serializeNote(back.value)).toBe(text);

    const tamper = (patch: Record<string, unknown>) => parseNote(JSON.stringify({ ...file, ...patch }), hasher);
    expect(await tamper({ value: "1500001" })).toMatchObject({ ok: false, error: expect.stringMatching(/commitment does not match/) });
    // Piece 1's secrets claimed as piece 2: not the original's chain stepped twice.
    expect(await tamper({ piece: 1 })).toMatchObject({ ok: false, error: expect.stringMatching(/not piece 1 of the original deposit's chain/) });
    const other = await newNote(USDC, 3_000_000n, 9);
    const otherOriginal = JSON.parse(serializeNote(changeNoteOf(hasher, other, 1n))) as Record<string, unknown>;
    expect(await tamper({ original: otherOriginal.original })).toMatchObject({ ok: false, error: expect.stringMatching(/origin is not the original/) });
    expect(await tamper({ original: null })).toMatchObject({ ok: false, error: expect.stringMatching(/needs its original/) });
  });
});

describe("crash-safe note file states", () => {
  const dir = tempDirAround("sdk-note-state-");

  it("pending: the change note and the note it spends are both on disk, and the file says which withdrawal it waits for", async () => {
    const deposit = withDeposit(await newNote(USDC, 3_000_000n, 10), { signature: "dep", status: "indexed", leafIndex: 0, wallet: "W" });
    const change = changeNoteOf(hasher, deposit, 1_000_000n);
    const recipient = "9Uk1q4P21VNYeSt6pxPRpQh8WJDrXoQTBL7DyU6UpE7m";
    const pending: DepositNote = {
      ...change,
      pending: {
        spends: deposit,
        amount: 1_000_000n,
        fee: 2500n,
        recipient,
        relayer: WSOL,
        swap: null,
        changeCommitment: change.commitment,
        since: "2026-11-28T09:00:00.000Z",
      },
    };
    const f = path.join(dir(), "pending.json");
    expect(saveNote(f, pending)).toEqual({ ok: true, value: undefined });
    const file = JSON.parse(readFileSync(f, "utf8")) as { pending: { spends: { secret: string } } };
    expect(file).toMatchObject({
      state: "pending",
      value: "2000000",
      pending: { amount: "1000000", fee: "2500", recipient, spends: { value: "3000000", isChange: false, leafIndex: 0 } },
    });
    // The spent note's secrets are in the file: if the withdrawal never lands, nothing is lost.
    expect(BigInt(file.pending.spends.secret)).toBe(deposit.secrets.secret);
    const back = await loadNote(f, hasher);
    if (!back.ok) throw new Error(back.error);
    expect(back.value.pending).toMatchObject({ amount: 1_000_000n, fee: 2500n, recipient });
    expect(back.value.pending!.spends.secrets.secret).toBe(deposit.secrets.secret);
    expect(back.value.pending!.spends.commitment).toEqual(deposit.commitment);
    expect(serializeNote(back.value)).toBe(readFileSync(f, "utf8"));
    // Confirmed after landing: the same change note with its leaf index, nothing pending.
    const confirmed = withLeafIndex({ ...back.value, pending: null }, 7);
    expect(saveNote(f, confirmed, { overwrite: true })).toEqual({ ok: true, value: undefined });
    expect(JSON.parse(readFileSync(f, "utf8"))).toMatchObject({ state: "confirmed", leafIndex: 7, pending: null, value: "2000000" });

    // A pending record whose amount is not what separates the two notes is a corrupted file.
    const bad = JSON.parse(serializeNote(pending)) as Record<string, Record<string, unknown>>;
    expect(await parseNote(JSON.stringify({ ...bad, pending: { ...bad.pending, amount: "999999" } }), hasher)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not the change of withdrawing/),
    });
    expect(await parseNote(JSON.stringify({ ...bad, state: "confirmed" }), hasher)).toMatchObject({ ok: false, error: expect.stringMatching(/state/) });
  });

  it("an in-place rewrite leaves the old file or the new one, never a mix or a readable temp file", async () => {
    const deposit = await newNote(USDC, 3_000_000n, 11);
    const f = path.join(dir(), "inplace.json");
    expect(saveNote(f, deposit)).toMatchObject({ ok: true });
    const change = changeNoteOf(hasher, deposit, 1n);
    expect(saveNote(f, change, { overwrite: true })).toMatchObject({ ok: true });
    expect(statSync(f).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir()).filter((n) => n.includes("inplace"))).toEqual(["inplace.json"]);
    const back = await loadNote(f, hasher);
    expect(back.ok && back.value.amount).toBe(2_999_999n);
  });
});

describe("secrets stay out of logs", () => {
  it("JSON.stringify, inspect and describeNote hide them unless asked", async () => {
    const note = await newNote();
    const nullifierHex = note.secrets.nullifier.toString(16);
    const secretHex = note.secrets.secret.toString(16);
    const secretDec = note.secrets.secret.toString();
    for (const text of [
      JSON.stringify(note, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)),
      inspect(note, { depth: 10 }),
      JSON.stringify(describeNote(note)),
    ]) {
      expect(text).not.toContain(secretHex);
      expect(text).not.toContain(secretDec);
      expect(text).not.toContain(nullifierHex);
    }
    const revealed = describeNote(note, { revealSecrets: true });
    expect(BigInt(revealed.secret!)).toBe(note.secrets.secret);
    expect(BigInt(revealed.nullifier!)).toBe(note.secrets.nullifier);
  });
});
