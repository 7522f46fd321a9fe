import { rmSync } from "node:fs";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { sandboxDepositMessage } from "../../src-shared/messages";
import { err, ok, type Result } from "../../src-shared/result";
import type { ApiFailure, ApiResult, RelayClient } from "./http";
import type { WalletSigner } from "./keypair";
import { saveNote, withDeposit, type DepositNote } from "./note";

/**
 * Sends a note's commitment to the sandbox pool (DESIGN §6), signed by the
 * depositing wallet, and answers the note with the deposit's signature,
 * status and leaf index. A `failed` deposit is an answer, not an error: its
 * funds are in the vault and the note is what a revert needs.
 */
export async function sandboxDeposit(client: RelayClient, wallet: WalletSigner, note: DepositNote): Promise<ApiResult<DepositNote>> {
  const message = sandboxDepositMessage(note.network, note.mint, note.amount, note.commitment);
  const r = await client.sandboxDeposit({
    network: note.network,
    mint: note.mint,
    amount: note.amount,
    commitment: note.commitment,
    wallet: wallet.address,
    signature: encodeBase58(wallet.sign(message)),
  });
  if (!r.ok) return r;
  return { ...r, value: withDeposit(note, { ...r.value, wallet: wallet.address }) };
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
  /** The deposit went through but the final note could not be written; `note` must be shown to the user. */
  | { stage: "update"; message: string; note: DepositNote; noteFile: string };

/**
 * Saves the note before any funds move, deposits, then rewrites the note with
 * the relay's answer. A crash between the two writes leaves a note that still
 * holds the secrets, which is all a withdrawal or revert needs.
 */
export async function depositAndSaveNote(client: RelayClient, wallet: WalletSigner, note: DepositNote, noteFile: string): Promise<Result<DepositNote, DepositError>> {
  const saved = saveNote(noteFile, note);
  if (!saved.ok) return err({ stage: "save", message: saved.error });

  const r = await sandboxDeposit(client, wallet, note);
  if (!r.ok) {
    const refused = r.status >= 400 && r.status < 500;
    if (refused) rmSync(noteFile, { force: true });
    return err({ stage: "deposit", failure: r, noteFile: refused ? null : noteFile });
  }

  const updated = saveNote(noteFile, r.value, { overwrite: true });
  if (!updated.ok) return err({ stage: "update", message: updated.error, note: r.value, noteFile });
  return ok(r.value);
}
