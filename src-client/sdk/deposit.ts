import { rmSync } from "node:fs";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { bytesEqual, toHex } from "../../src-shared/encoding/bytes";
import { sandboxDepositMessage } from "../../src-shared/messages";
import { err, ok, type Result } from "../../src-shared/result";
import { ClientError, type ApiFailure, type ApiResult } from "./api-result";
import type { RelayClient } from "./http";
import type { WalletSigner } from "./keypair";
import { saveNote, withDeposit, type DepositNote, type NoteDeposit } from "./note";
import type { SandboxDepositAnswer } from "../../src-shared/api/public";

/**
 * The pool answered a leaf that is not Poseidon(precommitment, amount,
 * mintField): the note's secrets cannot open what was inserted. Funds may
 * have moved (`answer` says what the relay claims); the note is not marked
 * deposited.
 */
export interface LeafMismatchFailure extends ApiFailure {
  error: typeof ClientError.LeafMismatch;
  answer: SandboxDepositAnswer;
  /** The leaf the note's secrets, amount and mint give. */
  expected: Uint8Array;
}

export const isLeafMismatch = (f: ApiFailure): f is LeafMismatchFailure => f.error === ClientError.LeafMismatch && "answer" in f;

/**
 * Sends a note's precommitment Poseidon(nullifier, secret) to the sandbox pool
 * (POST /sandbox/deposit, protocol v2), signed by the depositing wallet, and answers the
 * note with the deposit's signature, status and leaf index. The pool computes
 * the leaf itself from the amount it received; the answer's `commitment` must
 * be the note's own leaf, Poseidon(precommitment, amount, mintField), or the
 * answer is a {@link LeafMismatchFailure} and the note is not marked deposited.
 * A `failed` deposit is an answer, not an error: its funds are in the vault and
 * the note is what a revert needs.
 */
export async function sandboxDeposit(client: RelayClient, wallet: WalletSigner, note: DepositNote): Promise<ApiResult<DepositNote>> {
  const message = sandboxDepositMessage(note.network, note.mint, note.amount, note.precommitment);
  const r = await client.sandboxDeposit({
    network: note.network,
    mint: note.mint,
    amount: note.amount,
    precommitment: note.precommitment,
    wallet: wallet.address,
    signature: encodeBase58(wallet.sign(message)),
  });
  if (!r.ok) return r;
  const answer = r.value;
  // A failed deposit may carry no leaf (a precommitment the pool refused); any leaf it names must be ours.
  if (answer.commitment !== null && !bytesEqual(answer.commitment, note.commitment)) {
    const mismatch: LeafMismatchFailure = {
      ok: false,
      status: r.status,
      error: ClientError.LeafMismatch,
      message:
        `deposit ${answer.signature} (${answer.status}${answer.leafIndex === null ? "" : ` at leaf ${answer.leafIndex}`}): the pool answered leaf 0x${toHex(answer.commitment)}, ` +
        `not Poseidon(precommitment, amount, mint) = 0x${toHex(note.commitment)}; this note cannot withdraw it`,
      answer,
      expected: note.commitment.slice(),
    };
    return mismatch;
  }
  const deposit: NoteDeposit = { signature: answer.signature, status: answer.status, leafIndex: answer.leafIndex, wallet: wallet.address };
  return { ...r, value: withDeposit(note, deposit) };
}

export type DepositError =
  /** The note could not be written; nothing was sent. */
  | { stage: "save"; message: string }
  /**
   * The relay refused or could not be reached. `noteFile` is null when the
   * relay's answer proves no funds moved (a 4xx) and the unused note was removed;
   * otherwise the note stays, since the deposit may have landed.
   */
  | { stage: "deposit"; failure: ApiFailure; noteFile: string | null }
  /**
   * The pool answered a leaf that is not the note's (see {@link LeafMismatchFailure}).
   * The note file keeps the secrets but no deposit record: the relay's claim is in `failure.answer`.
   */
  | { stage: "leaf"; failure: LeafMismatchFailure; noteFile: string }
  /** The deposit went through but the final note could not be written; `note` must be shown to the user. */
  | { stage: "update"; message: string; note: DepositNote; noteFile: string };

/**
 * Saves the note before any funds move, deposits, then rewrites the note with
 * the relay's answer. A crash between the two writes leaves a note that still
 * holds the secrets, which is all a withdrawal or revert needs.
 */
export async function depositAndSaveNote(
  client: RelayClient,
  wallet: WalletSigner,
  note: DepositNote,
  noteFile: string,
): Promise<Result<DepositNote, DepositError>> {
  const saved = saveNote(noteFile, note);
  if (!saved.ok) return err({ stage: "save", message: saved.error });

  const r = await sandboxDeposit(client, wallet, note);
  if (!r.ok) {
    if (isLeafMismatch(r)) return err({ stage: "leaf", failure: r, noteFile });
    const refused = r.status >= 400 && r.status < 500;
    if (refused) rmSync(noteFile, { force: true });
    return err({ stage: "deposit", failure: r, noteFile: refused ? null : noteFile });
  }

  const updated = saveNote(noteFile, r.value, { overwrite: true });
  if (!updated.ok) return err({ stage: "update", message: updated.error, note: r.value, noteFile });
  return ok(r.value);
}
