/**
 * A deposit on chain: the wallet sends the pool program's `deposit`
 * instruction itself (docs/pool-program.md), with the note's precommitment
 * (protocol v2), then reads the program's DepositEvent (or DepositFailedEvent)
 * from the transaction's logs and checks the leaf the program computed is the
 * note's own. The relay is not involved: it indexes the deposit from the chain.
 */
import { ComputeBudgetProgram, PublicKey, SendTransactionError, Transaction, type Connection } from "@solana/web3.js";
import { Buffer } from "buffer";
import { rmSync } from "node:fs";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { bytesEqual, toHex } from "../../src-shared/encoding/bytes";
import { isZeroBytes } from "../../src-shared/encoding/field";
import {
  DEFAULT_POOL_PROGRAM_ID,
  DEPOSIT_RECEIPT_SIZE,
  TREE_ACCOUNT_OFFSETS,
  TREE_ACCOUNT_SIZE,
  depositInstruction,
  depositReceiptAddress,
  poolTreeAddress,
  type DepositEvent,
  type DepositFailedEvent,
} from "../../src-shared/pool-program";
import { poolEventsOfResponse } from "../../src-shared/pool-program/leaves";
import { err, ok, type Result } from "../../src-shared/result";
import { lamportsOf, tokenBalanceOf, waitForSignature } from "./chain";
import type { WalletSigner } from "./keypair";
import { saveNote, withDeposit, type DepositNote, type NoteDeposit, type RandomSource } from "./note";

/** docs/pool-program.md: a deposit takes under 40k units (about 41k with the classic SPL Token program). */
export const DEPOSIT_COMPUTE_UNIT_LIMIT = 60_000;
/** What one signature costs (the cluster's base fee). */
const SIGNATURE_FEE = 5_000n;

export type ChainDepositStage = "check" | "send" | "confirm" | "event";

export interface ChainDepositOptions {
  /** Poseidon, to name the leaf's marker account; made when not given. */
  hasher?: FieldHasher;
  /** The pool program; default DEFAULT_POOL_PROGRAM_ID. */
  programId?: string;
  /** The receipt's nonce; default a random u64 whose receipt does not exist yet. */
  nonce?: bigint;
  /** Compute-unit limit to request; default {@link DEPOSIT_COMPUTE_UNIT_LIMIT}, 0 requests none (the cluster's default). */
  computeUnitLimit?: number;
  /** How long to wait for confirmation; default 60 s. */
  timeoutMs?: number;
  pollMs?: number;
  random?: RandomSource;
  onStage?(stage: ChainDepositStage): void;
}

/** What the program did with the deposit, read from its event. */
export interface ChainDepositAnswer {
  signature: string;
  status: "indexed" | "failed";
  /** The leaf index when inserted, null when the deposit failed. */
  leafIndex: number | null;
  /** The leaf the program computed; null when the precommitment made none. */
  commitment: Uint8Array | null;
  /** What the vault received. */
  amount: bigint;
  nonce: bigint;
  /** The deposit receipt account (its status is what a revert changes). */
  receipt: string;
  slot: number;
  /** DepositFailedEvent's reason, when failed. */
  reason?: DepositFailedEvent["reason"];
}

export type ChainDepositFailure =
  /** Nothing was sent: the note is not a fresh one, or the program id is not a key. */
  | { kind: "input"; message: string }
  /** Nothing was sent: the program has no pool for this mint at this RPC. */
  | { kind: "pool"; message: string }
  /** Nothing was sent: the wallet lacks the tokens or the SOL for fee and rent. */
  | { kind: "funds"; message: string }
  /** The RPC could not be reached before anything was sent. */
  | { kind: "rpc"; message: string }
  /** The RPC refused the transaction (preflight simulation or send error): nothing was sent. */
  | { kind: "refused"; message: string; logs: string[] }
  /** It landed with an error: nothing moved but the fee. */
  | { kind: "failed"; message: string; signature: string; err: unknown }
  /** Its blockhash expired with no trace of it: it never landed. */
  | { kind: "expired"; message: string; signature: string }
  /** No confirmation within the time limit: it may still land. */
  | { kind: "unknown"; message: string; signature: string }
  /** It landed but its logs hold no deposit event of this wallet and nonce (a program that is not the pool?). */
  | { kind: "event"; message: string; signature: string }
  /** The program inserted (or named) a leaf that is not the note's: the note cannot withdraw it. */
  | { kind: "leaf"; message: string; signature: string; answer: ChainDepositAnswer; expected: Uint8Array };

/** True when the failure proves no funds left the wallet, so an unused note may go. */
export const movedNothing = (f: ChainDepositFailure): boolean => ["input", "pool", "funds", "rpc", "refused", "failed"].includes(f.kind);

function randomU64(random: RandomSource): bigint {
  const b = new Uint8Array(8);
  random(b);
  return new DataView(b.buffer).getBigUint64(0, true);
}

const defaultRandom: RandomSource = (buf) => void globalThis.crypto.getRandomValues(buf);

async function freshNonce(connection: Connection, programId: string, mint: string, depositor: string, random: RandomSource): Promise<bigint> {
  for (let i = 0; i < 8; i++) {
    const nonce = randomU64(random);
    const receipt = depositReceiptAddress(programId, mint, depositor, nonce);
    if (!(await connection.getAccountInfo(new PublicKey(receipt), "confirmed"))) return nonce;
  }
  throw new Error("eight random nonces in a row already have receipts: the random source is broken");
}

/** A tree account's minimum deposit (issue 25's layout), or null for a tree without one (an older program, a short account). */
function treeMinDeposit(data: Uint8Array): bigint | null {
  const at = TREE_ACCOUNT_OFFSETS.minDeposit;
  if (data.length < TREE_ACCOUNT_SIZE) return null;
  return new DataView(data.buffer, data.byteOffset + at, 8).getBigUint64(0, true);
}

/** Reads a landed deposit's event back: the RPC may index the transaction a moment after its status. */
async function depositEventOf(
  connection: Connection,
  signature: string,
  programId: string,
  depositor: Uint8Array,
  nonce: bigint,
  pollMs: number,
): Promise<DepositEvent | DepositFailedEvent | null> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const tx = await connection.getTransaction(signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
    if (tx) {
      // The program's event CPIs (no log limit can drop them), or the logs of an older transaction.
      const events = poolEventsOfResponse(tx, programId);
      const mine = events.find(
        (e): e is DepositEvent | DepositFailedEvent =>
          (e.name === "DepositEvent" || e.name === "DepositFailedEvent") && e.nonce === nonce && bytesEqual(e.depositor, depositor),
      );
      return mine ?? null;
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return null;
}

/**
 * Before signing: the program has a pool for the mint, the note meets its
 * minimum deposit, and the wallet holds the tokens and the lamports for the
 * fee and rent. Answers the nonce to deposit with.
 */
async function checkDeposit(
  connection: Connection,
  program: { id: string; key: PublicKey },
  note: DepositNote,
  depositor: string,
  options: ChainDepositOptions,
): Promise<Result<bigint, ChainDepositFailure>> {
  const { id: programId, key: programKey } = program;
  const { mint, amount } = note;
  try {
    const tree = await connection.getAccountInfo(new PublicKey(poolTreeAddress(programId, mint)), "confirmed");
    if (!tree || !tree.owner.equals(programKey)) {
      return err({
        kind: "pool",
        message: `program ${programId} has no pool for ${mint} on this cluster (no tree account); check the program id (--program) and the mint`,
      });
    }
    // The pool's minimum deposit (issue 25): below it the program refuses the deposit (DepositBelowMinimum), so say so first.
    const minDeposit = treeMinDeposit(tree.data);
    if (minDeposit !== null && amount < minDeposit) {
      return err({
        kind: "input",
        message: `this pool's minimum deposit is ${minDeposit} base units of ${mint} and the note holds ${amount}: make a note of at least ${minDeposit}`,
      });
    }
    const tokens = await tokenBalanceOf(connection, depositor, mint);
    if (tokens < amount) return err({ kind: "funds", message: `${depositor} holds ${tokens} of ${mint}; the deposit needs ${amount}` });
    const rent =
      BigInt(await connection.getMinimumBalanceForRentExemption(DEPOSIT_RECEIPT_SIZE)) + BigInt(await connection.getMinimumBalanceForRentExemption(0));
    const needed = SIGNATURE_FEE + rent;
    const lamports = await lamportsOf(connection, depositor);
    if (lamports < needed) {
      return err({
        kind: "funds",
        message: `${depositor} has ${lamports} lamports; the deposit needs about ${needed} (the fee and the rent of its receipt and leaf marker)`,
      });
    }
    return ok(options.nonce ?? (await freshNonce(connection, programId, mint, depositor, options.random ?? defaultRandom)));
  } catch (e) {
    return err({ kind: "rpc", message: `the RPC at ${connection.rpcEndpoint} did not answer: ${(e as Error).message}` });
  }
}

/**
 * Deposits a fresh note on chain: the pool program's `deposit` with the
 * note's precommitment, the note's amount and a fresh nonce, signed and paid
 * by `wallet` (its associated token account of the note's mint pays the
 * tokens). Waits for confirmation by polling signature statuses, decodes the
 * program's event and answers the note with the deposit recorded (`indexed`
 * with its leaf index, or `failed`: revertable through the relay). A leaf
 * other than the note's is a `leaf` failure and the note is not marked.
 */
export async function chainDeposit(
  connection: Connection,
  wallet: WalletSigner,
  note: DepositNote,
  options: ChainDepositOptions,
): Promise<Result<{ note: DepositNote; answer: ChainDepositAnswer }, ChainDepositFailure>> {
  const programId = options.programId ?? DEFAULT_POOL_PROGRAM_ID;
  const pollMs = options.pollMs ?? 250;
  const stage = (s: ChainDepositStage) => options.onStage?.(s);
  if (note.deposit) return err({ kind: "input", message: `this note was already deposited (${note.deposit.status}, signature ${note.deposit.signature})` });
  let programKey: PublicKey;
  try {
    programKey = new PublicKey(programId);
  } catch {
    return err({ kind: "input", message: `${programId} is not a program id (base58 public key)` });
  }
  const { mint, amount } = note;
  const depositor = wallet.address;

  stage("check");
  const checked = await checkDeposit(connection, { id: programId, key: programKey }, note, depositor, options);
  if (!checked.ok) return checked;
  const nonce = checked.value;

  stage("send");
  let blockhash: string;
  let lastValidBlockHeight: number;
  try {
    ({ blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash("confirmed"));
  } catch (e) {
    return err({ kind: "rpc", message: `the RPC at ${connection.rpcEndpoint} did not answer getLatestBlockhash: ${(e as Error).message}` });
  }
  const payer = new PublicKey(depositor);
  const tx = new Transaction({ feePayer: payer, blockhash, lastValidBlockHeight });
  const units = options.computeUnitLimit ?? DEPOSIT_COMPUTE_UNIT_LIMIT;
  if (units > 0) tx.add(ComputeBudgetProgram.setComputeUnitLimit({ units }));
  const hasher = options.hasher ?? (await createPoseidonHasher());
  tx.add(depositInstruction({ programId, depositor, mint, precommitment: note.precommitment, amount, nonce, hasher }));
  const sig = wallet.sign(tx.serializeMessage());
  tx.addSignature(payer, Buffer.from(sig));
  const signature = encodeBase58(sig);
  try {
    await connection.sendRawTransaction(tx.serialize(), { preflightCommitment: "confirmed" });
  } catch (e) {
    // The RPC answered with an error (preflight simulation, a bad blockhash): it did not take the transaction.
    if (e instanceof SendTransactionError) return err({ kind: "refused", message: e.transactionError.message, logs: e.logs ?? [] });
    // No answer: it may have been delivered, so its status decides.
  }

  stage("confirm");
  const outcome = await waitForSignature(connection, signature, { lastValidBlockHeight, timeoutMs: options.timeoutMs ?? 60_000, pollMs });
  if (outcome.state === "failed")
    return err({ kind: "failed", message: `deposit ${signature} failed on chain: ${JSON.stringify(outcome.err)}`, signature, err: outcome.err });
  if (outcome.state === "expired") return err({ kind: "expired", message: `deposit ${signature} never landed (its blockhash expired)`, signature });
  if (outcome.state === "unknown")
    return err({ kind: "unknown", message: `deposit ${signature} was not confirmed in time (${outcome.message}); it may still land`, signature });

  stage("event");
  let event: DepositEvent | DepositFailedEvent | null;
  try {
    event = await depositEventOf(connection, signature, programId, wallet.publicKey, nonce, pollMs);
  } catch (e) {
    return err({ kind: "event", message: `deposit ${signature} landed but getTransaction failed: ${(e as Error).message}`, signature });
  }
  if (!event)
    return err({
      kind: "event",
      message: `deposit ${signature} landed but its logs hold no deposit event of program ${programId} for this wallet and nonce`,
      signature,
    });

  const receipt = depositReceiptAddress(programId, mint, depositor, nonce);
  const answer: ChainDepositAnswer =
    event.name === "DepositEvent"
      ? { signature, status: "indexed", leafIndex: event.leafIndex, commitment: event.commitment, amount: event.amount, nonce, receipt, slot: outcome.slot }
      : {
          signature,
          status: "failed",
          leafIndex: null,
          commitment: isZeroBytes(event.commitment) ? null : event.commitment,
          amount: event.amount,
          nonce,
          receipt,
          slot: outcome.slot,
          reason: event.reason,
        };
  // A failed deposit may name no leaf (a precommitment that makes none); any leaf it names must be the note's.
  if (answer.commitment !== null && !bytesEqual(answer.commitment, note.commitment)) {
    return err({
      kind: "leaf",
      message:
        `deposit ${signature} (${answer.status}${answer.leafIndex === null ? "" : ` at leaf ${answer.leafIndex}`}): the program computed leaf 0x${toHex(answer.commitment)}, ` +
        `not Poseidon(precommitment, amount, mint) = 0x${toHex(note.commitment)}; this note cannot withdraw it`,
      signature,
      answer,
      expected: note.commitment.slice(),
    });
  }
  const deposit: NoteDeposit = { signature, status: answer.status, leafIndex: answer.leafIndex, wallet: depositor };
  return ok({ note: withDeposit(note, deposit), answer });
}

export type ChainDepositError =
  /** The note could not be written; nothing was sent. */
  | { stage: "save"; message: string }
  /**
   * The deposit did not happen, or its outcome is unknown. `noteFile` is null
   * when nothing can have moved and the unused note was removed; otherwise the
   * note stays, since it holds the secrets if the funds moved.
   */
  | { stage: "deposit"; failure: ChainDepositFailure; noteFile: string | null }
  /** The program's leaf is not the note's; the note keeps its secrets but no deposit record. */
  | { stage: "leaf"; failure: Extract<ChainDepositFailure, { kind: "leaf" }>; noteFile: string }
  /** The deposit landed but the final note could not be written; `note` must be shown to the user. */
  | { stage: "update"; message: string; note: DepositNote; answer: ChainDepositAnswer; noteFile: string };

/**
 * {@link chainDeposit} with the note saved first, as `depositAndSaveNote`
 * does on the sandbox: the note is on disk before the transaction is signed,
 * removed again only when nothing can have moved, and rewritten with the
 * deposit's signature, status and leaf index once the event is read.
 */
export async function chainDepositAndSaveNote(
  connection: Connection,
  wallet: WalletSigner,
  note: DepositNote,
  noteFile: string,
  options: ChainDepositOptions,
): Promise<Result<{ note: DepositNote; answer: ChainDepositAnswer }, ChainDepositError>> {
  const saved = saveNote(noteFile, note);
  if (!saved.ok) return err({ stage: "save", message: saved.error });
  const r = await chainDeposit(connection, wallet, note, options);
  if (!r.ok) {
    if (r.error.kind === "leaf") return err({ stage: "leaf", failure: r.error, noteFile });
    const unused = movedNothing(r.error);
    if (unused) rmSync(noteFile, { force: true });
    return err({ stage: "deposit", failure: r.error, noteFile: unused ? null : noteFile });
  }
  const updated = saveNote(noteFile, r.value.note, { overwrite: true });
  if (!updated.ok) return err({ stage: "update", message: updated.error, note: r.value.note, answer: r.value.answer, noteFile });
  return ok(r.value);
}
