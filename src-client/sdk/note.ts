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
 * Protocol v2: the depositor sends Poseidon(nullifier, secret) and
 * the pool computes the leaf. A version 1 note committed to a leaf the
 * depositor chose, Poseidon(nullifier, secret, amount, mint), which no v2 pool
 * holds, so a v1 note is refused with a message that says so.
 */
export const NOTE_VERSION = 2;
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
}

export interface DepositNote {
  version: typeof NOTE_VERSION;
  network: Network;
  mint: string;
  /** The note's value in base units: a deposit's amount, or what a change note holds. */
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
  /** null for a deposit note; a change note's origin. */
  change: NoteChange | null;
  /** Poseidon(nullifier): what a withdrawal reveals and get_nullifier looks up. */
  nullifierHash: Uint8Array;
  createdAt: string;
  /** Null until the deposit was sent; a note is saved before that so a crash cannot lose its secret. */
  deposit: NoteDeposit | null;
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
  });
}

/** The chain's origin: a deposit note's own leaf, or the origin a change note carries. */
export const noteOrigin = (note: DepositNote): Uint8Array => note.change?.origin ?? note.commitment;

/**
 * The change note a withdrawal of `withdrawn` from `note` leaves (protocol v3,
 * docs/zk.md): its secrets follow from the spent note's, so the original note
 * alone recovers every step; its value is what is left (possibly 0).
 */
export function changeNoteOf(hasher: FieldHasher, note: DepositNote, withdrawn: bigint, createdAt: string = new Date().toISOString()): DepositNote {
  if (withdrawn < 0n || withdrawn > note.amount) throw new RangeError(`cannot withdraw ${withdrawn} from a note of ${note.amount}`);
  const mint = parsePublicKey(note.mint);
  if (!mint.ok) throw new Error(`note mint: ${mint.error}`);
  const next = deriveChangeSecrets(hasher, fe(note.secrets.nullifier), fe(note.secrets.secret));
  const nullifier = bytesToBigInt(next.nullifier);
  const secret = bytesToBigInt(next.secret);
  const precommitment = notePrecommitment(hasher, nullifier, secret);
  const origin = noteOrigin(note);
  const remaining = note.amount - withdrawn;
  return {
    version: NOTE_VERSION,
    network: note.network,
    mint: note.mint,
    amount: remaining,
    secrets: new NoteSecrets(nullifier, secret),
    precommitment,
    commitment: computeChangeLeaf(hasher, precommitment, remaining, mint.value, origin),
    nullifierHash: nullifierHashOf(hasher, nullifier),
    change: { origin: origin.slice() },
    createdAt,
    deposit: null,
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

const hex32 = (b: Uint8Array): string => `0x${toHex(b)}`;

/** The note file: JSON with every field element as 0x + 64 hex digits (big-endian). */
export function serializeNote(note: DepositNote): string {
  const file = {
    kind: NOTE_KIND,
    version: note.version,
    warning: "This file holds the secrets of a deposit: whoever has it can withdraw the funds. Keep it offline and backed up.",
    network: note.network,
    mint: note.mint,
    amount: note.amount.toString(),
    nullifier: hex32(fe(note.secrets.nullifier)),
    secret: hex32(fe(note.secrets.secret)),
    precommitment: hex32(note.precommitment),
    commitment: hex32(note.commitment),
    nullifierHash: hex32(note.nullifierHash),
    createdAt: note.createdAt,
    deposit: note.deposit,
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

function parseDeposit(value: unknown): Result<NoteDeposit | null, string> {
  if (value === null || value === undefined) return ok(null);
  if (!isObject(value)) return err("deposit must be an object or null");
  const { signature, status, leafIndex, wallet } = value;
  if (typeof signature !== "string" || typeof wallet !== "string") return err("deposit needs signature and wallet");
  if (status !== "indexed" && status !== "failed") return err("deposit.status must be indexed or failed");
  if (leafIndex !== null && !(typeof leafIndex === "number" && Number.isSafeInteger(leafIndex) && leafIndex >= 0)) {
    return err("deposit.leafIndex must be a non-negative integer or null");
  }
  return ok({ signature, status, leafIndex, wallet });
}

/**
 * Reads a note file and re-derives its commitment and nullifierHash from the
 * secrets: a note whose stored hashes disagree would never withdraw, and it is
 * better to learn that now than after building a proof.
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
      "this note was made for protocol v1 (its leaf was chosen by the depositor); the relay and this SDK speak protocol v2, " +
        "where the pool computes each leaf, so a v1 note cannot be withdrawn here (v1 sandbox pools were archived at the upgrade)",
    );
  }
  if (raw.version !== NOTE_VERSION) return err(`note version ${String(raw.version)} is not supported (this SDK reads version ${NOTE_VERSION}, protocol v2)`);
  if (!isNetwork(raw.network)) return err("network must be mainnet or devnet");
  const mint = parsePublicKey(raw.mint);
  if (!mint.ok) return err(`mint: ${mint.error}`);
  if (typeof raw.amount !== "string" || !/^[0-9]{1,16}$/.test(raw.amount)) return err("amount must be a decimal string of base units");
  const amount = checkAmount(BigInt(raw.amount));
  if (!amount.ok) return amount;
  const fields: Record<"nullifier" | "secret" | "precommitment" | "commitment" | "nullifierHash", bigint> = {
    nullifier: 0n,
    secret: 0n,
    precommitment: 0n,
    commitment: 0n,
    nullifierHash: 0n,
  };
  for (const name of ["nullifier", "secret", "precommitment", "commitment", "nullifierHash"] as const) {
    const f = parseField(raw[name], name);
    if (!f.ok) return f;
    fields[name] = f.value;
  }
  const deposit = parseDeposit(raw.deposit);
  if (!deposit.ok) return deposit;
  if (typeof raw.createdAt !== "string") return err("createdAt must be a timestamp string");

  const h = hasher ?? (await createPoseidonHasher());
  const precommitment = notePrecommitment(h, fields.nullifier, fields.secret);
  if (!bytesEqual(precommitment, fe(fields.precommitment))) return err("precommitment does not match the note's nullifier and secret: the note is corrupted");
  const commitment = computeLeaf(h, precommitment, amount.value, mint.value);
  if (!bytesEqual(commitment, fe(fields.commitment))) return err("commitment does not match the note's secrets, amount and mint: the note is corrupted");
  const nullifierHash = nullifierHashOf(h, fields.nullifier);
  if (!bytesEqual(nullifierHash, fe(fields.nullifierHash))) return err("nullifierHash does not match the note's nullifier: the note is corrupted");

  return ok({
    version: NOTE_VERSION,
    network: raw.network,
    mint: raw.mint as string,
    amount: amount.value,
    secrets: new NoteSecrets(fields.nullifier, fields.secret),
    precommitment,
    commitment,
    nullifierHash,
    change: null,
    createdAt: raw.createdAt,
    deposit: deposit.value,
  });
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
  amount: string;
  precommitment: string;
  commitment: string;
  nullifierHash: string;
  createdAt: string;
  deposit: NoteDeposit | null;
  nullifier?: string;
  secret?: string;
}

/** A printable view: public parts only, unless the caller explicitly asks for the secrets. */
export function describeNote(note: DepositNote, options: { revealSecrets?: boolean } = {}): NoteSummary {
  const summary: NoteSummary = {
    network: note.network,
    mint: note.mint,
    amount: note.amount.toString(),
    precommitment: hex32(note.precommitment),
    commitment: hex32(note.commitment),
    nullifierHash: hex32(note.nullifierHash),
    createdAt: note.createdAt,
    deposit: note.deposit,
  };
  if (options.revealSecrets) {
    summary.nullifier = hex32(fe(note.secrets.nullifier));
    summary.secret = hex32(fe(note.secrets.secret));
  }
  return summary;
}
