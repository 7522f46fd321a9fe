import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { inspect } from "node:util";
import { buildPoseidon, type Poseidon } from "circomlibjs";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
  type DepositNote,
} from "./note";

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

async function newNote(mint = WSOL, amount: bigint | number = 1_000_000n, seed = 1): Promise<DepositNote> {
  const r = await createNote({ network: "mainnet", mint, amount, hasher, random: seededRandom(seed), now: () => new Date("2025-01-02T03:04:05Z") });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

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
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "sdk-note-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("round-trips through serializeNote/parseNote, deposit info included", async () => {
    const note = withDeposit(await newNote(), { signature: "5sig", status: "indexed", leafIndex: 4, wallet: "Wallet111" });
    const text = serializeNote(note);
    const file = JSON.parse(text) as Record<string, unknown>;
    expect(file).toMatchObject({ kind: "private-withdrawal-relay/deposit-note", version: 2, network: "mainnet", mint: WSOL, amount: "1000000" });
    expect(Object.keys(file)).toEqual([
      "kind",
      "version",
      "warning",
      "network",
      "mint",
      "amount",
      "nullifier",
      "secret",
      "precommitment",
      "commitment",
      "nullifierHash",
      "createdAt",
      "deposit",
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
    expect(serializeNote(back.value)).toBe(text);
  });

  it("refuses a note whose stored hashes disagree with its secrets", async () => {
    const file = JSON.parse(serializeNote(await newNote())) as Record<string, string>;
    const tamper = (k: string, v: string) => parseNote(JSON.stringify({ ...file, [k]: v }), hasher);
    expect(await tamper("amount", "999")).toMatchObject({ ok: false, error: expect.stringMatching(/commitment does not match/) });
    expect(await tamper("mint", USDC)).toMatchObject({ ok: false, error: expect.stringMatching(/commitment does not match/) });
    expect(await tamper("nullifierHash", `0x${"00".repeat(32)}`)).toMatchObject({ ok: false, error: expect.stringMatching(/nullifierHash/) });
    expect(await tamper("precommitment", file.commitment!)).toMatchObject({ ok: false, error: expect.stringMatching(/precommitment does not match/) });
    expect(await tamper("secret", `0x${"ff".repeat(32)}`)).toMatchObject({ ok: false, error: expect.stringMatching(/modulus/) });
    expect(await parseNote(JSON.stringify({ ...file, version: 3 }), hasher)).toMatchObject({ ok: false, error: expect.stringMatching(/version 3/) });
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
    const f = path.join(dir, "v1-note.json");
    writeFileSync(f, JSON.stringify(v1));
    expect(await loadNote(f, hasher)).toMatchObject({ ok: false, error: expect.stringMatching(/v1-note\.json: this note was made for protocol v1/) });
  });

  it("is saved owner-only and never silently replaced", async () => {
    const note = await newNote();
    const file = path.join(dir, "sub", "note.json");
    expect(saveNote(file, note)).toEqual({ ok: true, value: undefined });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(saveNote(file, note)).toMatchObject({ ok: false, error: expect.stringMatching(/already exists/) });
    const loaded = await loadNote(file, hasher);
    expect(loaded.ok && loaded.value.secrets.secret).toBe(note.secrets.secret);
    expect(await loadNote(path.join(dir, "missing.json"), hasher)).toMatchObject({ ok: false, error: expect.stringMatching(/ENOENT/) });
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
