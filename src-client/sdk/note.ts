import { readFileSync } from "node:fs";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { computeChangeLeaf, computeLeaf, computePrecommitment, deriveChangeSecrets } from "../../src-shared/crypto/protocol";
import { pubkeyToField } from "../../src-shared/crypto/pubkey-field";
import { parsePublicKey } from "../../src-shared/encoding/base58";
import { bytesEqual, fromHex, toHex } from "../../src-shared/encoding/bytes";
import { FIELD_MODULUS, bigIntToBytes32, bytesToBigInt } from "../../src-shared/encoding/field";
import { isNetwork, type Network } from "../../src-shared/networks";
import { err, ok, type Result } from "../../src-shared/result";
import { writeSecretFile } from "./secret-file";

/**
 * Note files, version 3 (protocol v3, docs/sdk.md "The note"): a note holds a
 * private value, and what a withdrawal leaves of it is a change note whose
 * secrets follow from the spent note's. Version 2 files (protocol v2, whole
 * withdrawals) still load, as deposit notes whose value is their amount. A
 * version 1 note committed to a leaf the depositor chose, which no pool
 * holds, so it is refused with a message that says so.
 */
export const NOTE_VERSION = 3;
export const NOTE_KIND = "private-withdrawal-relay/deposit-note";
/** The largest amount a JSON number carries exactly; the relay refuses more (docs/decisions.md, Amounts). */
export const MAX_AMOUNT = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The note's two secrets. Anyone holding them can withdraw the deposit, so
 * they are kept out of JSON.stringify and console.log: only serializeNote
 * (the note file) and describeNote with revealSecrets write them out.
 */
export class NoteSecrets {
  readonly #nullifier: bigint;
  readonly #secret: bigint;

  constructor(nullifier: bigint, secret: bigint) {
    this.#nullifier = nullifier;
    this.#secret = secret;
  }

  get nullifier(): bigint {
    return this.#nullifier;
  }

  get secret(): bigint {
    return this.#secret;
  }

  toJSON(): string {
    return "[redacted note secrets]";
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return this.toJSON();
  }
}

/** What the relay answered to the deposit, kept so the note alone can find its leaf or revert. */
export interface NoteDeposit {
  signature: string;
  status: "indexed" | "failed";
  leafIndex: number | null;
  wallet: string;
}

/**
 * A change note's place (protocol v3): what a withdrawal left of a note is a
 * new leaf Poseidon(changePrecommitment, remaining, mintField, origin).
 */
export interface NoteChange {
  /** The deposit leaf the chain of notes started from (32 bytes). */
  origin: Uint8Array;
  /** How many withdrawals of the chain came before this note: 1 for the first change note. */
  piece: number;
  /** Where the change leaf is in the tree; null until a relay answer or the chain told. */
  leafIndex: number | null;
}

/**
 * The deposit note a chain started from, kept in each of its change notes: the
 * file alone then recovers the whole chain (every change secret follows from
 * these), even after it was rewritten in place piece by piece.
 */
export interface NoteOriginal {
  amount: bigint;
  secrets: NoteSecrets;
  commitment: Uint8Array;
  nullifierHash: Uint8Array;
  createdAt: string;
}

/**
 * A withdrawal written down before it is sent: the note it spends (whose
 * secrets the file must keep until the withdrawal is seen landed) and its
 * terms. A note file holding one is in the `pending` state; a restart asks
 * whether `spends` is spent before trusting either note (note-state.ts).
 */
export interface PendingPiece {
  /** The note the withdrawal spends; its own `pending` is null. */
  spends: DepositNote;
  /** The part withdrawn (/relay's depositSize). */
  amount: bigint;
  fee: bigint;
  recipient: string;
  relayer: string;
  swap: { outputMint: string; minOut: bigint } | null;
  /** The change leaf the withdrawal inserts: this note's commitment. */
  changeCommitment: Uint8Array;
  /** When the file was written, before the request went out. */
  since: string;
}

export interface DepositNote {
  version: typeof NOTE_VERSION;
  network: Network;
  mint: string;
  /** The note's value in base units: a deposit's amount, or what a change note holds (possibly 0). */
  amount: bigint;
  secrets: NoteSecrets;
  /** Poseidon(nullifier, secret): what the deposit sends to the pool. */
  precommitment: Uint8Array;
  /**
   * The note's leaf: Poseidon(precommitment, amount, mintField) for a deposit
   * note (the pool computes it), Poseidon(precommitment, amount, mintField,
   * origin) for a change note.
   */
  commitment: Uint8Array;
  /** null for a deposit note; a change note's origin and place in the chain. */
  change: NoteChange | null;
  /** Poseidon(nullifier): what a withdrawal reveals and get_nullifier looks up. */
  nullifierHash: Uint8Array;
  createdAt: string;
  /**
   * The deposit's transaction: null until it was sent (a note is saved before
   * that, so a crash cannot lose its secret). A change note carries its
   * chain's original deposit here.
   */
  deposit: NoteDeposit | null;
  /** A change note's original deposit note; null for a deposit note (it is its own). */
  original: NoteOriginal | null;
  /** Non-null while the withdrawal that made this change note is not known to have landed. */
  pending: PendingPiece | null;
}

/** The note's leaf index: a deposit's, or a change leaf's; null while unknown. */
export const noteLeafIndex = (note: DepositNote): number | null => (note.change ? note.change.leafIndex : (note.deposit?.leafIndex ?? null));

/** 0 for a deposit note, k for the change note the k-th withdrawal of a chain left. */
export const notePiece = (note: DepositNote): number => note.change?.piece ?? 0;

/** The original deposit of the note's chain (the note itself for a deposit note). */
export function noteOriginal(note: DepositNote): NoteOriginal {
  return (
    note.original ?? {
      amount: note.amount,
      secrets: note.secrets,
      commitment: note.commitment,
      nullifierHash: note.nullifierHash,
      createdAt: note.createdAt,
    }
  );
}

/** Fills a buffer with cryptographically strong random bytes. */
export type RandomSource = (buf: Uint8Array) => void;

const defaultRandom: RandomSource = (buf) => void globalThis.crypto.getRandomValues(buf);

/**
 * A uniform field element in [1, p): 32 random bytes with the top two bits
 * cleared (p < 2^254) are rejection-sampled, so about 3 in 4 draws are kept
 * and no value is likelier than another, unlike reducing mod p.
 */
export function randomFieldElement(random: RandomSource = defaultRandom): bigint {
  const buf = new Uint8Array(32);
  for (let attempt = 0; attempt < 1000; attempt++) {
    random(buf);
    buf[0] = buf[0]! & 0x3f;
    const x = bytesToBigInt(buf);
    if (x > 0n && x < FIELD_MODULUS) return x;
  }
  // 1000 rejections in a row has probability ~0.25^1000: the source is broken, not unlucky.
  throw new Error("random source keeps producing values outside the field");
}

const fe = (x: bigint): Uint8Array => bigIntToBytes32(x);

/** A public key enters the circuit as Poseidon(hi, lo) of its big-endian 16-byte halves (docs/zk.md). */
export function publicKeyField(hasher: FieldHasher, publicKey: Uint8Array): Uint8Array {
  return pubkeyToField(hasher, publicKey);
}

export interface CommitmentInputs {
  nullifier: bigint;
  secret: bigint;
  amount: bigint;
  /** The mint's 32 public-key bytes. */
  mint: Uint8Array;
}

/** Protocol v2: precommitment = Poseidon(nullifier, secret), what a deposit sends. */
export function notePrecommitment(hasher: FieldHasher, nullifier: bigint, secret: bigint): Uint8Array {
  return computePrecommitment(hasher, fe(nullifier), fe(secret));
}

/**
 * Protocol v2: the leaf the pool computes for this deposit,
 * Poseidon(Poseidon(nullifier, secret), amount, mintField).
 */
export function noteCommitment(hasher: FieldHasher, inputs: CommitmentInputs): Uint8Array {
  return computeLeaf(hasher, notePrecommitment(hasher, inputs.nullifier, inputs.secret), inputs.amount, inputs.mint);
}

/** nullifierHash = Poseidon(nullifier), the circuit's second public input. */
export function nullifierHashOf(hasher: FieldHasher, nullifier: bigint): Uint8Array {
  return hasher.hash([fe(nullifier)]);
}

export interface CreateNoteOptions {
  network: Network;
  mint: string;
  amount: bigint | number;
  hasher?: FieldHasher;
  random?: RandomSource;
  now?: () => Date;
}

/** A fresh note with new secrets. Nothing is sent anywhere. */
export async function createNote(options: CreateNoteOptions): Promise<Result<DepositNote, string>> {
  if (!isNetwork(options.network)) return err("network must be mainnet or devnet");
  const mint = parsePublicKey(options.mint);
  if (!mint.ok) return err(`mint: ${mint.error}`);
  const amount = checkAmount(options.amount);
  if (!amount.ok) return amount;
  const hasher = options.hasher ?? (await createPoseidonHasher());
  const random = options.random ?? defaultRandom;
  const nullifier = randomFieldElement(random);
  const secret = randomFieldElement(random);
  const precommitment = notePrecommitment(hasher, nullifier, secret);
  return ok({
    version: NOTE_VERSION,
    network: options.network,
    mint: options.mint,
    amount: amount.value,
    secrets: new NoteSecrets(nullifier, secret),
    precommitment,
    commitment: computeLeaf(hasher, precommitment, amount.value, mint.value),
    nullifierHash: nullifierHashOf(hasher, nullifier),
    change: null,
    createdAt: (options.now?.() ?? new Date()).toISOString(),
    deposit: null,
    original: null,
    pending: null,
  });
}

/** The chain's origin: a deposit note's own leaf, or the origin a change note carries. */
export const noteOrigin = (note: DepositNote): Uint8Array => note.change?.origin ?? note.commitment;

/** The next secrets of a chain: DESIGN §10, changeNullifier = Poseidon(n, s, 1), changeSecret = Poseidon(n, s, 2). */
export function nextSecrets(hasher: FieldHasher, secrets: NoteSecrets): NoteSecrets {
  const next = deriveChangeSecrets(hasher, fe(secrets.nullifier), fe(secrets.secret));
  return new NoteSecrets(bytesToBigInt(next.nullifier), bytesToBigInt(next.secret));
}

/**
 * The change note a withdrawal of `withdrawn` from `note` leaves (protocol v3,
 * docs/zk.md): its secrets follow from the spent note's, so the original note
 * alone recovers every step; its value is what is left (possibly 0). Its leaf
 * index is unknown until the withdrawal lands.
 */
export function changeNoteOf(hasher: FieldHasher, note: DepositNote, withdrawn: bigint, createdAt: string = new Date().toISOString()): DepositNote {
  if (withdrawn < 0n || withdrawn > note.amount) throw new RangeError(`cannot withdraw ${withdrawn} from a note of ${note.amount}`);
  const mint = parsePublicKey(note.mint);
  if (!mint.ok) throw new Error(`note mint: ${mint.error}`);
  const secrets = nextSecrets(hasher, note.secrets);
  const precommitment = notePrecommitment(hasher, secrets.nullifier, secrets.secret);
  const origin = noteOrigin(note);
  const remaining = note.amount - withdrawn;
  return {
    version: NOTE_VERSION,
    network: note.network,
    mint: note.mint,
    amount: remaining,
    secrets,
    precommitment,
    commitment: computeChangeLeaf(hasher, precommitment, remaining, mint.value, origin),
    nullifierHash: nullifierHashOf(hasher, secrets.nullifier),
    change: { origin: origin.slice(), piece: notePiece(note) + 1, leafIndex: null },
    createdAt,
    deposit: note.deposit ? { ...note.deposit } : null,
    original: noteOriginal(note),
    pending: null,
  };
}

function checkAmount(value: bigint | number): Result<bigint, string> {
  if (typeof value === "number" && !Number.isSafeInteger(value)) return err("amount must be an integer number of base units below 2^53");
  const a = BigInt(value);
  if (a <= 0n) return err("amount must be positive");
  if (a > MAX_AMOUNT) return err("amount must be at most 2^53 - 1 base units");
  return ok(a);
}

export const withDeposit = (note: DepositNote, deposit: NoteDeposit): DepositNote => ({ ...note, deposit: { ...deposit } });

/** The same note with its change leaf's index, once known. */
export function withLeafIndex(note: DepositNote, leafIndex: number): DepositNote {
  if (note.change) return { ...note, change: { ...note.change, leafIndex } };
  if (!note.deposit) throw new RangeError("a deposit note gets its leaf index with its deposit (withDeposit)");
  return withDeposit(note, { ...note.deposit, leafIndex });
}

const hex32 = (b: Uint8Array): string => `0x${toHex(b)}`;
const WARNING = "This file holds the secrets of a deposit: whoever has it can withdraw the funds. Keep it offline and backed up.";

/** A note's own fields in the file (also a pending withdrawal's `spends`). */
function noteFields(note: DepositNote): Record<string, unknown> {
  return {
    value: note.amount.toString(),
    isChange: note.change !== null,
    origin: hex32(noteOrigin(note)),
    piece: notePiece(note),
    leafIndex: noteLeafIndex(note),
    nullifier: hex32(fe(note.secrets.nullifier)),
    secret: hex32(fe(note.secrets.secret)),
    precommitment: hex32(note.precommitment),
    commitment: hex32(note.commitment),
    nullifierHash: hex32(note.nullifierHash),
    createdAt: note.createdAt,
  };
}

/**
 * The note file (version 3): JSON with every field element as 0x + 64 hex
 * digits (big-endian) and amounts as decimal strings. `state` is `pending`
 * while `pending` names a withdrawal sent (or about to be) whose landing was
 * not seen yet, `confirmed` otherwise.
 */
export function serializeNote(note: DepositNote): string {
  const original = note.original;
  const pending = note.pending;
  const file = {
    kind: NOTE_KIND,
    version: note.version,
    warning: WARNING,
    network: note.network,
    mint: note.mint,
    state: pending ? "pending" : "confirmed",
    ...noteFields(note),
    deposit: note.deposit,
    original: original
      ? {
          amount: original.amount.toString(),
          nullifier: hex32(fe(original.secrets.nullifier)),
          secret: hex32(fe(original.secrets.secret)),
          commitment: hex32(original.commitment),
          nullifierHash: hex32(original.nullifierHash),
          createdAt: original.createdAt,
        }
      : null,
    pending: pending
      ? {
          spends: noteFields(pending.spends),
          amount: pending.amount.toString(),
          fee: pending.fee.toString(),
          recipient: pending.recipient,
          relayer: pending.relayer,
          swap: pending.swap ? { outputMint: pending.swap.outputMint, minOut: pending.swap.minOut.toString() } : null,
          changeCommitment: hex32(pending.changeCommitment),
          since: pending.since,
        }
      : null,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function parseField(value: unknown, name: string): Result<bigint, string> {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(value)) return err(`${name} must be 0x followed by 64 hex digits`);
  const x = bytesToBigInt(fromHex(value)!);
  return x < FIELD_MODULUS ? ok(x) : err(`${name} is not below the field modulus`);
}

function parseUnits(value: unknown, name: string, min: bigint): Result<bigint, string> {
  if (typeof value !== "string" || !/^[0-9]{1,16}$/.test(value)) return err(`${name} must be a decimal string of base units`);
  const x = BigInt(value);
  if (x < min || x > MAX_AMOUNT) return err(`${name} must be from ${min} to 2^53 - 1 base units`);
  return ok(x);
}

const isIndex = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

function parseDeposit(value: unknown): Result<NoteDeposit | null, string> {
  if (value === null || value === undefined) return ok(null);
  if (!isObject(value)) return err("deposit must be an object or null");
  const { signature, status, leafIndex, wallet } = value;
  if (typeof signature !== "string" || typeof wallet !== "string") return err("deposit needs signature and wallet");
  if (status !== "indexed" && status !== "failed") return err("deposit.status must be indexed or failed");
  if (leafIndex !== null && !isIndex(leafIndex)) return err("deposit.leafIndex must be a non-negative integer or null");
  return ok({ signature, status, leafIndex, wallet });
}

function parseSecrets(raw: Obj, where: string): Result<NoteSecrets, string> {
  const n = parseField(raw.nullifier, `${where}nullifier`);
  if (!n.ok) return n;
  const s = parseField(raw.secret, `${where}secret`);
  if (!s.ok) return s;
  return ok(new NoteSecrets(n.value, s.value));
}

/** A stored hash must equal the one recomputed from the secrets: a corrupted note is caught before anyone proves with it. */
function checkStored(raw: Obj, name: string, computed: Uint8Array, what: string, where: string): Result<void, string> {
  const f = parseField(raw[name], `${where}${name}`);
  if (!f.ok) return f;
  return bytesEqual(fe(f.value), computed) ? ok(undefined) : err(`${where}${name} does not match ${what}: the note is corrupted`);
}

interface NoteCore {
  amount: bigint;
  secrets: NoteSecrets;
  precommitment: Uint8Array;
  commitment: Uint8Array;
  nullifierHash: Uint8Array;
}

/** Secrets, precommitment, leaf and nullifierHash of one note, each recomputed and compared. */
function parseCore(h: FieldHasher, raw: Obj, value: bigint, mint: Uint8Array, origin: Uint8Array | null, where: string): Result<NoteCore, string> {
  const secrets = parseSecrets(raw, where);
  if (!secrets.ok) return secrets;
  const precommitment = notePrecommitment(h, secrets.value.nullifier, secrets.value.secret);
  const p = checkStored(raw, "precommitment", precommitment, "the note's nullifier and secret", where);
  if (!p.ok) return p;
  const commitment = origin ? computeChangeLeaf(h, precommitment, value, mint, origin) : computeLeaf(h, precommitment, value, mint);
  const c = checkStored(raw, "commitment", commitment, origin ? "the note's secrets, value, mint and origin" : "the note's secrets, amount and mint", where);
  if (!c.ok) return c;
  const nullifierHash = nullifierHashOf(h, secrets.value.nullifier);
  const nh = checkStored(raw, "nullifierHash", nullifierHash, "the note's nullifier", where);
  if (!nh.ok) return nh;
  return ok({ amount: value, secrets: secrets.value, precommitment, commitment, nullifierHash });
}

interface Header {
  network: Network;
  mint: string;
  mintBytes: Uint8Array;
  deposit: NoteDeposit | null;
}

/** One note's v3 fields (`raw` is the file or a pending withdrawal's `spends`), checked against its original. */
function parseV3Note(h: FieldHasher, raw: Obj, header: Header, original: NoteOriginal | null, where: string): Result<DepositNote, string> {
  if (typeof raw.isChange !== "boolean") return err(`${where}isChange must be true or false`);
  if (!isIndex(raw.piece)) return err(`${where}piece must be a non-negative integer`);
  if (raw.leafIndex !== null && !isIndex(raw.leafIndex)) return err(`${where}leafIndex must be a non-negative integer or null`);
  if (typeof raw.createdAt !== "string") return err(`${where}createdAt must be a timestamp string`);
  const value = parseUnits(raw.value, `${where}value`, raw.isChange ? 0n : 1n);
  if (!value.ok) return value;
  const piece = raw.piece;
  const leafIndex = raw.leafIndex as number | null;
  if (!raw.isChange) {
    if (piece !== 0) return err(`${where}piece of a deposit note must be 0`);
    const core = parseCore(h, raw, value.value, header.mintBytes, null, where);
    if (!core.ok) return core;
    const o = checkStored(raw, "origin", core.value.commitment, "a deposit note's own leaf (its origin)", where);
    if (!o.ok) return o;
    if (leafIndex !== (header.deposit?.leafIndex ?? null)) return err(`${where}leafIndex must be the deposit's leaf index`);
    return ok({ ...baseNote(header, raw.createdAt), ...core.value, change: null, original: null });
  }
  if (piece < 1) return err(`${where}piece of a change note must be at least 1`);
  if (!original) return err(`${where}a change note needs its original deposit (original)`);
  const originField = parseField(raw.origin, `${where}origin`);
  if (!originField.ok) return originField;
  const origin = fe(originField.value);
  if (!bytesEqual(origin, original.commitment)) return err(`${where}origin is not the original deposit's leaf: the note is corrupted`);
  const core = parseCore(h, raw, value.value, header.mintBytes, origin, where);
  if (!core.ok) return core;
  // The secrets must be the original's, stepped `piece` times by the chain rule: else the file mixes two chains.
  let secrets = original.secrets;
  for (let i = 0; i < piece; i++) secrets = nextSecrets(h, secrets);
  if (secrets.nullifier !== core.value.secrets.nullifier || secrets.secret !== core.value.secrets.secret)
    return err(`${where}secrets are not piece ${piece} of the original deposit's chain: the note is corrupted`);
  if (value.value > original.amount) return err(`${where}value is above the original deposit's amount`);
  return ok({ ...baseNote(header, raw.createdAt), ...core.value, change: { origin, piece, leafIndex }, original });
}

const baseNote = (header: Header, createdAt: string) => ({
  version: NOTE_VERSION as typeof NOTE_VERSION,
  network: header.network,
  mint: header.mint,
  createdAt,
  deposit: header.deposit,
  pending: null as PendingPiece | null,
});

function parseOriginal(h: FieldHasher, raw: unknown, mint: Uint8Array): Result<NoteOriginal | null, string> {
  if (raw === null || raw === undefined) return ok(null);
  if (!isObject(raw)) return err("original must be an object or null");
  const amount = parseUnits(raw.amount, "original.amount", 1n);
  if (!amount.ok) return amount;
  if (typeof raw.createdAt !== "string") return err("original.createdAt must be a timestamp string");
  const secrets = parseSecrets(raw, "original.");
  if (!secrets.ok) return secrets;
  const precommitment = notePrecommitment(h, secrets.value.nullifier, secrets.value.secret);
  const commitment = computeLeaf(h, precommitment, amount.value, mint);
  const c = checkStored(raw, "commitment", commitment, "the original deposit's secrets, amount and mint", "original.");
  if (!c.ok) return c;
  const nullifierHash = nullifierHashOf(h, secrets.value.nullifier);
  const nh = checkStored(raw, "nullifierHash", nullifierHash, "the original deposit's nullifier", "original.");
  if (!nh.ok) return nh;
  return ok({ amount: amount.value, secrets: secrets.value, commitment, nullifierHash, createdAt: raw.createdAt });
}

function parsePending(h: FieldHasher, raw: unknown, note: DepositNote, header: Header): Result<PendingPiece | null, string> {
  if (raw === null || raw === undefined) return ok(null);
  if (!isObject(raw) || !isObject(raw.spends)) return err("pending must be null or an object with spends");
  if (!note.change) return err("pending: only a change note can be waiting for the withdrawal that made it");
  const spends = parseV3Note(h, raw.spends, header, note.original, "pending.spends.");
  if (!spends.ok) return spends;
  const amount = parseUnits(raw.amount, "pending.amount", 1n);
  if (!amount.ok) return amount;
  const fee = parseUnits(raw.fee, "pending.fee", 0n);
  if (!fee.ok) return fee;
  if (typeof raw.recipient !== "string" || !parsePublicKey(raw.recipient).ok) return err("pending.recipient must be a base58 public key");
  if (typeof raw.relayer !== "string" || !parsePublicKey(raw.relayer).ok) return err("pending.relayer must be a base58 public key");
  if (typeof raw.since !== "string") return err("pending.since must be a timestamp string");
  let swap: PendingPiece["swap"] = null;
  if (raw.swap !== null && raw.swap !== undefined) {
    if (!isObject(raw.swap) || typeof raw.swap.outputMint !== "string" || typeof raw.swap.minOut !== "string" || !/^[0-9]{1,20}$/.test(raw.swap.minOut))
      return err("pending.swap must be null or { outputMint, minOut }");
    swap = { outputMint: raw.swap.outputMint, minOut: BigInt(raw.swap.minOut) };
  }
  const cc = checkStored(raw, "changeCommitment", note.commitment, "the note's commitment", "pending.");
  if (!cc.ok) return cc;
  // The file's note must be exactly what this withdrawal leaves of `spends`.
  const expected = changeNoteOf(h, spends.value, amount.value > spends.value.amount ? 0n : amount.value, note.createdAt);
  if (amount.value > spends.value.amount || !bytesEqual(expected.commitment, note.commitment) || notePiece(spends.value) + 1 !== note.change.piece)
    return err("pending: the note is not the change of withdrawing pending.amount from pending.spends: the note is corrupted");
  return ok({
    spends: spends.value,
    amount: amount.value,
    fee: fee.value,
    recipient: raw.recipient,
    relayer: raw.relayer,
    swap,
    changeCommitment: note.commitment,
    since: raw.since,
  });
}

/** A version 2 file: a deposit note whose value is its amount. */
async function parseV2(raw: Obj, header: Header, h: FieldHasher): Promise<Result<DepositNote, string>> {
  const amount = parseUnits(raw.amount, "amount", 1n);
  if (!amount.ok) return amount;
  if (typeof raw.createdAt !== "string") return err("createdAt must be a timestamp string");
  const core = parseCore(h, raw, amount.value, header.mintBytes, null, "");
  if (!core.ok) return core;
  return ok({ ...baseNote(header, raw.createdAt), ...core.value, change: null, original: null });
}

/**
 * Reads a note file (version 3, or 2 as a deposit note) and re-derives every
 * stored hash from the secrets: its leaf and nullifierHash, a change note's
 * place in its original deposit's chain, and a pending withdrawal's note. A
 * note whose stored values disagree would never withdraw, and it is better to
 * learn that now than after building a proof.
 */
export async function parseNote(text: string, hasher?: FieldHasher): Promise<Result<DepositNote, string>> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return err("not a JSON note");
  }
  if (!isObject(raw)) return err("not a JSON note");
  if (raw.kind !== NOTE_KIND) return err(`not a deposit note (kind must be ${NOTE_KIND})`);
  if (raw.version === 1) {
    return err(
      "this note was made for protocol v1 (its leaf was chosen by the depositor); the relay and this SDK speak protocol v3, " +
        "where the pool computes each leaf, so a v1 note cannot be withdrawn here (v1 sandbox pools were archived at the upgrade)",
    );
  }
  if (raw.version !== 2 && raw.version !== NOTE_VERSION)
    return err(`note version ${String(raw.version)} is not supported (this SDK reads versions 2 and ${NOTE_VERSION}, protocol v3)`);
  if (!isNetwork(raw.network)) return err("network must be mainnet or devnet");
  const mint = parsePublicKey(raw.mint);
  if (!mint.ok) return err(`mint: ${mint.error}`);
  const deposit = parseDeposit(raw.deposit);
  if (!deposit.ok) return deposit;
  const header: Header = { network: raw.network, mint: raw.mint as string, mintBytes: mint.value, deposit: deposit.value };
  const h = hasher ?? (await createPoseidonHasher());
  if (raw.version === 2) return parseV2(raw, header, h);

  if (raw.state !== "confirmed" && raw.state !== "pending") return err("state must be confirmed or pending");
  const original = parseOriginal(h, raw.original, mint.value);
  if (!original.ok) return original;
  if (raw.isChange === false && original.value !== null) return err("original: a deposit note is its own original (null)");
  const note = parseV3Note(h, raw, header, original.value, "");
  if (!note.ok) return note;
  const pending = parsePending(h, raw.pending, note.value, header);
  if (!pending.ok) return pending;
  if ((raw.state === "pending") !== (pending.value !== null)) return err("state must be pending exactly when pending names a withdrawal");
  return ok({ ...note.value, pending: pending.value });
}

/** Saves with owner-only permissions; refuses to replace a file unless asked, since a note is money. */
export function saveNote(file: string, note: DepositNote, options: { overwrite?: boolean } = {}): Result<void, string> {
  return writeSecretFile(file, serializeNote(note), options);
}

export async function loadNote(file: string, hasher?: FieldHasher): Promise<Result<DepositNote, string>> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    return err(`cannot read note ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const note = await parseNote(text, hasher);
  return note.ok ? note : err(`note ${file}: ${note.error}`);
}

export interface NoteSummary {
  network: Network;
  mint: string;
  /** The note's value (a deposit's amount, or what a change note holds). */
  amount: string;
  value: string;
  isChange: boolean;
  origin: string;
  piece: number;
  leafIndex: number | null;
  state: "confirmed" | "pending";
  precommitment: string;
  commitment: string;
  nullifierHash: string;
  createdAt: string;
  deposit: NoteDeposit | null;
  /** The original deposit's amount (the note's own for a deposit note). */
  originalAmount: string;
  pending: { amount: string; fee: string; recipient: string; spendsNullifierHash: string; since: string } | null;
  nullifier?: string;
  secret?: string;
}

/** A printable view: public parts only, unless the caller explicitly asks for the secrets. */
export function describeNote(note: DepositNote, options: { revealSecrets?: boolean } = {}): NoteSummary {
  const p = note.pending;
  const summary: NoteSummary = {
    network: note.network,
    mint: note.mint,
    amount: note.amount.toString(),
    value: note.amount.toString(),
    isChange: note.change !== null,
    origin: hex32(noteOrigin(note)),
    piece: notePiece(note),
    leafIndex: noteLeafIndex(note),
    state: p ? "pending" : "confirmed",
    precommitment: hex32(note.precommitment),
    commitment: hex32(note.commitment),
    nullifierHash: hex32(note.nullifierHash),
    createdAt: note.createdAt,
    deposit: note.deposit,
    originalAmount: noteOriginal(note).amount.toString(),
    pending: p
      ? { amount: p.amount.toString(), fee: p.fee.toString(), recipient: p.recipient, spendsNullifierHash: hex32(p.spends.nullifierHash), since: p.since }
      : null,
  };
  if (options.revealSecrets) {
    summary.nullifier = hex32(fe(note.secrets.nullifier));
    summary.secret = hex32(fe(note.secrets.secret));
  }
  return summary;
}
