import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import {
  computeChangeLeaf,
  PROTOCOL_VERSION,
  PUBLIC_SIGNAL_NAMES,
  U64_MAX,
  withdrawalPublicSignals as protocolPublicSignals,
  type RelayTerms,
} from "../../src-shared/crypto/protocol";
import { parsePublicKey } from "../../src-shared/encoding/base58";
import { bytesEqual, toHex } from "../../src-shared/encoding/bytes";
import { bigIntToBytes32, bytesToBigInt, isCanonicalField } from "../../src-shared/encoding/field";
import type { Network } from "../../src-shared/networks";
import { err, ok, type Result } from "../../src-shared/result";
import { decodeProof, encodeProof, fromSnarkjs, toSnarkjs, type SnarkjsProof } from "../../src-shared/zk/proof-codec";
import { TREE_DEPTH } from "./requests";
import { changeNoteOf, noteCommitment, noteOrigin, notePrecommitment, nullifierHashOf, type DepositNote } from "./note";
import { FastProver } from "./fast-prover";
import { loadSnarkjs, withSingleThreadedCurve } from "./snarkjs";
import { rootFromPath } from "./tree";

const zkFile = (name: string): string => fileURLToPath(new URL(`../../resources/zk/${name}`, import.meta.url));

/** The withdraw circuit's committed artifacts (resources/zk, docs/zk.md), resolved from this repository. */
export const DEFAULT_ARTIFACTS = {
  wasmPath: zkFile("withdraw.wasm"),
  zkeyPath: zkFile("withdraw.zkey"),
  vkeyPath: zkFile("verification_key.json"),
} as const;

/** A leaf's authentication path and the root it rebuilds: what `getNoteProof` answers after checking it. */
export interface MerklePathInput {
  root: Uint8Array;
  /** TREE_DEPTH siblings, leaf level first. */
  path: readonly Uint8Array[];
  /** 0 when the node at that level is a LEFT child. */
  indices: readonly number[];
}

/**
 * The withdraw circuit's input object exactly as snarkjs takes it (signal
 * names and order of docs/zk.md, protocol v3), every value a decimal field element.
 */
export interface WithdrawWitnessInput {
  root: string;
  nullifierHash: string;
  /** Poseidon(hi, lo) of the recipient's 32 bytes. */
  recipient: string;
  /** The part withdrawn. */
  amount: string;
  /** Poseidon(hi, lo) of the mint's 32 bytes. */
  mint: string;
  /** Poseidon(relayerField, fee, outputMintField, minOut): the relay's terms the proof binds. */
  extDataHash: string;
  /** The change leaf the withdrawal inserts for value − amount. */
  changeCommitment: string;
  /** The note's value (private). */
  value: string;
  nullifier: string;
  secret: string;
  /** "0": the spent leaf is a deposit leaf; "1": a change leaf. */
  isChange: string;
  /** The deposit leaf the chain started from (a deposit note's own leaf). */
  origin: string;
  pathElements: string[];
  pathIndices: string[];
  changeNullifier: string;
  changeSecret: string;
}

/**
 * The relay's terms a proof is bound to (protocol v2): who signs the withdrawal
 * and receives the fee, the fee, and for /relay_swap the output mint and the
 * least the recipient must receive of it. A proof for other terms is refused
 * by the relay (InvalidProof) and by the pool program.
 */
export interface WithdrawalTerms {
  /** base58: GET /fees `relayers[network]` of the relay that will submit it. */
  relayer: string;
  /** Base units of the note's mint; at most the note's amount. */
  fee: bigint | number;
  /** For /relay_swap; absent or null for /relay (outputMint 0, minOut 0). */
  swap?: { outputMint: string; minOut: bigint | number } | null;
}

/** What a withdrawal states publicly; the relay rebuilds the circuit's public signals from exactly these. */
export interface WithdrawalStatement extends WithdrawalTerms {
  root: Uint8Array;
  nullifierHash: Uint8Array;
  /** base58 */
  recipient: string;
  /** The part withdrawn (/relay's depositSize). */
  amount: bigint;
  /** base58 */
  mint: string;
  /** The change leaf the withdrawal inserts (/relay's changeCommitment). */
  changeCommitment: Uint8Array;
}

export type ProveError =
  /** The recipient is not a base58 public key. */
  | { kind: "recipient"; message: string }
  /** The relayer, fee, output mint or minOut cannot be proved (not a key, not a u64, a fee above the amount). */
  | { kind: "terms"; message: string }
  /** The note's stored hashes do not follow from its secrets: no proof can exist. */
  | { kind: "note"; message: string }
  /** The amount to withdraw is not a positive u64 within the note's value. */
  | { kind: "amount"; message: string }
  /** The path is malformed or does not rebuild the root from the note's leaf. */
  | { kind: "path"; message: string }
  /** The circuit's wasm or zkey cannot be read. */
  | { kind: "artifacts"; message: string }
  /** The prover failed (a witness assertion, an out-of-memory, a corrupt zkey). */
  | { kind: "prover"; message: string }
  /** The proof's public signals are not what the relay will recompute: the relay would refuse it. */
  | { kind: "signals"; message: string };

const dec = (b: Uint8Array): string => bytesToBigInt(b).toString();

const toU64 = (value: bigint | number, what: string): Result<bigint, ProveError> => {
  const v = typeof value === "number" ? (Number.isSafeInteger(value) ? BigInt(value) : null) : value;
  return v !== null && v >= 0n && v <= U64_MAX
    ? ok(v)
    : err({ kind: "terms", message: `${what} ${String(value)} is not a whole number of base units from 0 to 2^64 - 1` });
};

/** The terms in protocol form: keys parsed, amounts checked as u64, the fee within the amount. */
function relayTerms(t: WithdrawalTerms, amount: bigint): Result<RelayTerms, ProveError> {
  const relayer = parsePublicKey(t.relayer);
  if (!relayer.ok) return err({ kind: "terms", message: `relayer ${String(t.relayer)}: ${relayer.error} (a base58 public key)` });
  const fee = toU64(t.fee, "fee");
  if (!fee.ok) return fee;
  if (fee.value > amount) return err({ kind: "terms", message: `fee ${fee.value} is above the amount withdrawn (${amount})` });
  if (!t.swap) return ok({ relayer: relayer.value, fee: fee.value, swap: null });
  const outputMint = parsePublicKey(t.swap.outputMint);
  if (!outputMint.ok) return err({ kind: "terms", message: `output mint ${String(t.swap.outputMint)}: ${outputMint.error} (a base58 public key)` });
  const minOut = toU64(t.swap.minOut, "minOut");
  if (!minOut.ok) return minOut;
  return ok({ relayer: relayer.value, fee: fee.value, swap: { outputMint: outputMint.value, minOut: minOut.value } });
}

/**
 * The circuit's public signals in its order `root, nullifierHash, recipient,
 * amount, mint, extDataHash, changeCommitment`, computed the way the relay computes them from a
 * /relay or /relay_swap request and its own key (the relay never trusts a
 * client's public inputs), as decimal strings.
 */
export function withdrawalPublicSignals(hasher: FieldHasher, s: WithdrawalStatement): Result<string[], ProveError> {
  const recipient = parsePublicKey(s.recipient);
  if (!recipient.ok) return err({ kind: "recipient", message: `recipient ${s.recipient}: ${recipient.error} (a base58 public key)` });
  const mint = parsePublicKey(s.mint);
  if (!mint.ok) return err({ kind: "note", message: `mint ${s.mint}: ${mint.error}` });
  const terms = relayTerms(s, s.amount);
  if (!terms.ok) return terms;
  const signals = protocolPublicSignals(hasher, {
    root: s.root,
    nullifierHash: s.nullifierHash,
    recipient: recipient.value,
    amount: s.amount,
    mint: mint.value,
    terms: terms.value,
    changeCommitment: s.changeCommitment,
  });
  return ok(signals.map(dec));
}

/**
 * The witness input for withdrawing `amount` (default: the note's whole value)
 * of `note` to `recipient` along `merkle` on `terms`, and the public signals
 * the proof must come out with. The change leaf of what is left (0 included)
 * follows from the note's secrets (docs/zk.md). Everything the circuit asserts
 * is checked here first, so a bad note or path is reported plainly instead of
 * as a witness assertion deep inside snarkjs.
 */
export function buildWithdrawalInput(
  hasher: FieldHasher,
  note: DepositNote,
  merkle: MerklePathInput,
  recipient: string,
  terms: WithdrawalTerms,
  amount: bigint = note.amount,
): Result<{ input: WithdrawWitnessInput; publicSignals: string[]; change: DepositNote }, ProveError> {
  if (amount <= 0n || amount > U64_MAX) return err({ kind: "amount", message: `amount ${amount} is not a positive whole number of base units below 2^64` });
  if (amount > note.amount) return err({ kind: "amount", message: `amount ${amount} is above the note's value ${note.amount}` });
  const { nullifier, secret } = note.secrets;
  const mint = parsePublicKey(note.mint);
  if (!mint.ok) return err({ kind: "note", message: `mint: ${mint.error}` });
  const precommitment = notePrecommitment(hasher, nullifier, secret);
  if (!bytesEqual(precommitment, note.precommitment))
    return err({ kind: "note", message: "the note's precommitment does not follow from its nullifier and secret" });
  const origin = noteOrigin(note);
  const leaf = note.change
    ? computeChangeLeaf(hasher, precommitment, note.amount, mint.value, origin)
    : noteCommitment(hasher, { nullifier, secret, amount: note.amount, mint: mint.value });
  if (!bytesEqual(leaf, note.commitment))
    return err({ kind: "note", message: "the note's commitment does not follow from its secrets, value, mint and origin" });
  if (!bytesEqual(nullifierHashOf(hasher, nullifier), note.nullifierHash))
    return err({ kind: "note", message: "the note's nullifierHash does not follow from its nullifier" });
  const change = changeNoteOf(hasher, note, amount, note.createdAt);

  const signals = withdrawalPublicSignals(hasher, {
    root: merkle.root,
    nullifierHash: note.nullifierHash,
    recipient,
    amount,
    mint: note.mint,
    relayer: terms.relayer,
    fee: terms.fee,
    swap: terms.swap ?? null,
    changeCommitment: change.commitment,
  });
  if (!signals.ok) return signals;

  const { path, indices, root } = merkle;
  if (path.length !== TREE_DEPTH || indices.length !== TREE_DEPTH) {
    return err({ kind: "path", message: `a depth-${TREE_DEPTH} path needs ${TREE_DEPTH} siblings and indices, got ${path.length} and ${indices.length}` });
  }
  if (indices.some((b) => b !== 0 && b !== 1)) return err({ kind: "path", message: "path indices must be 0 or 1" });
  if (![root, ...path].every(isCanonicalField)) return err({ kind: "path", message: "the root and every sibling must be 32-byte field elements" });
  const rebuilt = rootFromPath(hasher, leaf, path, indices);
  if (!bytesEqual(rebuilt, root)) {
    return err({ kind: "path", message: `the path rebuilds 0x${toHex(rebuilt)} from the note's leaf, not the root 0x${toHex(root)}` });
  }

  const [rootS, nullifierHashS, recipientS, amountS, mintS, extDataHashS, changeCommitmentS] = signals.value as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const input: WithdrawWitnessInput = {
    root: rootS,
    nullifierHash: nullifierHashS,
    recipient: recipientS,
    amount: amountS,
    mint: mintS,
    extDataHash: extDataHashS,
    changeCommitment: changeCommitmentS,
    value: note.amount.toString(),
    nullifier: nullifier.toString(),
    secret: secret.toString(),
    isChange: note.change ? "1" : "0",
    origin: dec(origin),
    pathElements: path.map(dec),
    pathIndices: indices.map(String),
    changeNullifier: change.secrets.nullifier.toString(),
    changeSecret: change.secrets.secret.toString(),
  };
  return ok({ input, publicSignals: signals.value, change });
}

/** Turns a witness input into a Groth16 proof; swappable so tests can cache real proofs by input. */
export type Prover = (input: WithdrawWitnessInput, wasmPath: string, zkeyPath: string) => Promise<{ proof: SnarkjsProof; publicSignals: string[] }>;

/** snarkjs's fullProve on one thread: no worker pool to start, none left behind to keep a process alive. */
export const snarkjsProver: Prover = async (input, wasmPath, zkeyPath) => {
  const groth16 = await loadSnarkjs();
  // snarkjs mutates nothing it is given, but a copy keeps the caller's object out of its reach.
  return groth16.fullProve({ ...input }, wasmPath, zkeyPath, undefined, undefined, { singleThread: true });
};

let sharedFastProver: FastProver | null = null;

/**
 * The SDK's default prover (src-client/sdk/fast-prover.ts): the same proof as
 * {@link snarkjsProver}, with the engine, zkey and witness calculator kept
 * between proofs, and its MSMs shared with a worker thread where there is a
 * second core (`new FastProver({ threads: false })` proves on the calling
 * thread alone).
 */
export const fastProver: Prover = async (input, wasmPath, zkeyPath) => {
  sharedFastProver ??= new FastProver();
  const { proof, publicSignals } = await sharedFastProver.prove({ ...input }, wasmPath, zkeyPath);
  return { proof, publicSignals };
};

export interface ProveOptions {
  /** Default: resources/zk/withdraw.wasm of this repository. */
  wasmPath?: string;
  /** Default: resources/zk/withdraw.zkey of this repository. */
  zkeyPath?: string;
  hasher?: FieldHasher;
  /** Default {@link fastProver}; {@link snarkjsProver} is snarkjs's fullProve on one thread. */
  prover?: Prover;
}

/** proveWithdrawal's last argument: the terms the proof binds, the part withdrawn, and how to prove. */
export type ProveWithdrawalOptions = WithdrawalTerms &
  ProveOptions & {
    /** The part of the note to withdraw (/relay's depositSize); default: its whole value. */
    amount?: bigint;
  };

export interface WithdrawalProof {
  /** The 256-byte wire proof (src-shared/zk/proof-codec.ts): what /relay takes as `proof`. */
  proof: Uint8Array;
  /** Decimal strings in circuit order: root, nullifierHash, recipient, amount, mint, extDataHash, changeCommitment. */
  publicSignals: string[];
  root: Uint8Array;
  nullifierHash: Uint8Array;
  recipient: string;
  mint: string;
  /** The part withdrawn: /relay's depositSize. */
  amount: bigint;
  /** The change leaf the withdrawal inserts: /relay's changeCommitment (32 bytes). */
  changeCommitment: Uint8Array;
  /** The change note that leaf holds (what is left of the note, possibly 0): save it before relaying. */
  change: DepositNote;
  network: Network;
  /** The relayer key the proof is bound to: /relay's `relayer`. */
  relayer: string;
  /** The fee the proof is bound to: /relay's `fee`. */
  fee: bigint;
  /** For /relay_swap: its `output_mint` and `minOut`; null for /relay. */
  swap: { outputMint: string; minOut: bigint } | null;
  /** Poseidon(relayerField, fee, outputMintField, minOut), the sixth public signal, 32 bytes. */
  extDataHash: Uint8Array;
  /** Wall-clock time of the prover call. */
  provingMs: number;
}

/**
 * Proves that the caller knows the secrets of a leaf under `merkle.root`,
 * bound to `recipient` and to the relay's terms (`relayer`, `fee`, and for a
 * swap `swap.outputMint` and `swap.minOut`), then checks that the proof's
 * public signals are exactly what the relay will rebuild from the request and
 * its own key, and encodes the proof in the 256-byte wire form.
 */
export async function proveWithdrawal(
  note: DepositNote,
  merkle: MerklePathInput,
  recipient: string,
  options: ProveWithdrawalOptions,
): Promise<Result<WithdrawalProof, ProveError>> {
  const hasher = options.hasher ?? (await createPoseidonHasher());
  const terms: WithdrawalTerms = { relayer: options.relayer, fee: options.fee, swap: options.swap ?? null };
  const built = buildWithdrawalInput(hasher, note, merkle, recipient, terms, options.amount ?? note.amount);
  if (!built.ok) return built;

  const wasmPath = options.wasmPath ?? DEFAULT_ARTIFACTS.wasmPath;
  const zkeyPath = options.zkeyPath ?? DEFAULT_ARTIFACTS.zkeyPath;
  for (const file of [wasmPath, zkeyPath]) {
    if (!existsSync(file)) return err({ kind: "artifacts", message: `circuit artifact not found: ${file}` });
  }

  const prover = options.prover ?? fastProver;
  const t0 = performance.now();
  let out: { proof: SnarkjsProof; publicSignals: string[] };
  try {
    out = await prover(built.value.input, wasmPath, zkeyPath);
  } catch (e) {
    return err({ kind: "prover", message: e instanceof Error ? e.message : String(e) });
  }
  const provingMs = Math.round(performance.now() - t0);

  const expected = built.value.publicSignals;
  const got = out.publicSignals.map(String);
  if (got.length !== expected.length || got.some((s, i) => s !== expected[i])) {
    const hint =
      got.length !== expected.length
        ? ` (${got.length} signals, not the ${PUBLIC_SIGNAL_NAMES.length} of protocol v${PROTOCOL_VERSION}: are resources/zk/ the v${PROTOCOL_VERSION} artifacts?)`
        : "";
    return err({ kind: "signals", message: `the proof's public signals [${got.join(", ")}] are not the relay's [${expected.join(", ")}]${hint}` });
  }

  let proof: Uint8Array;
  try {
    proof = encodeProof(fromSnarkjs(out.proof));
  } catch (e) {
    return err({ kind: "prover", message: `the prover answered a proof that cannot be encoded: ${(e as Error).message}` });
  }
  // The relay decodes with the same codec; a coordinate at or above the base field would be refused there.
  if (!decodeProof(proof).ok) return err({ kind: "prover", message: "the prover answered a proof with a coordinate outside the base field" });

  const swap = terms.swap ? { outputMint: terms.swap.outputMint, minOut: BigInt(terms.swap.minOut) } : null;
  return ok({
    proof,
    publicSignals: expected,
    root: merkle.root.slice(),
    nullifierHash: note.nullifierHash.slice(),
    recipient,
    mint: note.mint,
    amount: BigInt(built.value.input.amount),
    changeCommitment: built.value.change.commitment.slice(),
    change: built.value.change,
    network: note.network,
    relayer: terms.relayer,
    fee: BigInt(terms.fee),
    swap,
    extDataHash: bigIntToBytes32(BigInt(built.value.input.extDataHash)),
    provingMs,
  });
}

/**
 * Checks a wire proof against the verification key with snarkjs, as a
 * Groth16 verifier would: for inspecting a proof before relaying it.
 * Answers false for a well-formed proof that does not verify.
 */
export async function verifyWithdrawalProof(
  proof: Uint8Array,
  publicSignals: readonly string[],
  vkeyPath: string = DEFAULT_ARTIFACTS.vkeyPath,
): Promise<Result<boolean, string>> {
  const decoded = decodeProof(proof);
  if (!decoded.ok) return err(`proof: ${decoded.error}`);
  let vkey: object;
  try {
    vkey = JSON.parse(readFileSync(vkeyPath, "utf8")) as object;
  } catch (e) {
    return err(`cannot read verification key ${vkeyPath}: ${(e as Error).message}`);
  }
  const groth16 = await loadSnarkjs();
  try {
    return ok(await withSingleThreadedCurve(() => groth16.verify(vkey, [...publicSignals], toSnarkjs(decoded.value))));
  } catch (e) {
    return err(`snarkjs could not check the proof: ${(e as Error).message}`);
  }
}
