import { toHex } from "../../../src-shared/encoding/bytes";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { chainLedger, relayLedger, resolveNote, type FollowError, type FollowedPiece, type NoteLedger, type ResolvedNote } from "../../sdk/follow";
import type { NoteLookup } from "../../sdk/lookup";
import { describeNote, saveNote, type DepositNote } from "../../sdk/note";
import { Exit, type CliContext, type ExitCode, type JsonValue } from "../context";
import { noteInput, programInput, resolvePath, rpcInput, type Input } from "../inputs";
import { str, type CommandSpec } from "../spec";
import { noteOption } from "./pool";

const hex = (b: Uint8Array): string => `0x${toHex(b)}`;

/** The ledger a lookup implies: the chain with --rpc, else the relay (among the same decoys a withdrawal asks). */
export function ledgerOf(ctx: CliContext, lookup: NoteLookup, hasher: FieldHasher): NoteLedger {
  if (lookup.kind === "chain") return chainLedger(lookup.rpc, lookup.programId);
  // --relay-links-deposit: the user lets the relay see the note's own lookups, so no decoys are spent on them.
  if (lookup.kind === "relay-links-deposit") return relayLedger(ctx.client, hasher, { decoys: 0, client: ctx.client });
  return relayLedger(ctx.client, hasher, lookup.decoys !== undefined ? { decoys: lookup.decoys } : {});
}

export function pieceJson(p: FollowedPiece): { [k: string]: JsonValue } {
  return {
    piece: p.piece,
    nullifierHash: hex(p.nullifierHash),
    amount: p.amount.toString(),
    remaining: p.remaining.toString(),
    changeCommitment: hex(p.changeCommitment),
    changeLeafIndex: p.changeLeafIndex,
    signature: p.signature,
    fee: p.fee === null ? null : p.fee.toString(),
    recipient: p.recipient,
  };
}

export const pieceLine = (p: FollowedPiece): string =>
  `  piece ${p.piece + 1}: ${p.amount} withdrawn${p.recipient ? ` to ${p.recipient}` : ""}; ${p.remaining} left in change leaf ${p.changeLeafIndex}` +
  (p.signature ? ` (${p.signature})` : "");

/** How a chain that cannot be followed ends a command. */
export function followFailure(ctx: CliContext, e: FollowError): ExitCode {
  if (e.kind === "api") return ctx.apiFailure(e.failure.status === 0 && e.failure.error === "RpcError" ? "chain" : "relay", e.failure);
  for (const p of e.pieces) ctx.note(pieceLine(p));
  return ctx.fail(Exit.Refused, e.message, { error: e.kind === "foreign" ? "ForeignChange" : "ChangeNotFound" });
}

/**
 * Where the note file stands now (follow.ts resolveNote), and the file
 * rewritten when that moved it: a pending withdrawal that landed (or did
 * not), or withdrawals made from this file's note elsewhere (a backup, the
 * original deposit note). Says on stderr what it found.
 */
export async function resolveNoteFile(
  ctx: CliContext,
  file: string,
  note: DepositNote,
  ledger: NoteLedger,
  hasher: FieldHasher,
  options: { write: boolean },
): Promise<Input<ResolvedNote & { written: boolean }>> {
  const resolved = await resolveNote(hasher, note, ledger);
  if (!resolved.ok) return { ok: false, code: followFailure(ctx, resolved.error) };
  const r = resolved.value;
  if (r.pending === "not-landed")
    ctx.note(`the file's pending withdrawal of ${note.pending!.amount} did not land (its note is unspent): the file goes back to that note`);
  if (r.pending === "landed") ctx.note(`the file's pending withdrawal of ${note.pending!.amount} landed`);
  if (r.pieces.length > 0 && !note.pending) ctx.note(`this note was spent: followed ${r.pieces.length} withdrawal${r.pieces.length === 1 ? "" : "s"} from it`);
  for (const p of r.pieces) ctx.note(pieceLine(p));
  const moved = r.pending !== null || r.pieces.length > 0;
  if (moved && options.write) {
    const saved = saveNote(file, r.current, { overwrite: true });
    if (!saved.ok) return { ok: false, code: ctx.fail(Exit.LocalFile, `the note moved on but ${file} could not be rewritten: ${saved.error}`) };
    ctx.note(`${file} now holds the chain's current note (${r.current.amount} left)`);
  }
  return { ok: true, value: { ...r, written: moved && options.write } };
}

export const noteCommand: CommandSpec = {
  name: "note",
  summary: "what a note holds now: follows its chain of withdrawals (relay or --rpc) and shows the current note",
  details:
    "Reads the note file, then follows its chain: is its nullifierHash spent? then which withdrawal spent it (the\n" +
    "part it took, its change leaf), recomputes that change note by the chain rule (docs/zk.md) and checks it is the\n" +
    "leaf the pool inserted; and so on until a note is unspent. Given the original deposit note of a chain it finds\n" +
    "every piece withdrawn since. A pending file (a withdrawal sent but not seen landing) is resolved the same way.\n" +
    "With --rpc the chain's history is read (exact for any amount); without it the relay is asked: get_nullifier\n" +
    "among decoys, and the leaves after the spent one for the change leaf of a standard amount, the whole value or\n" +
    "the amount the file recorded. --update rewrites the file to the current note. --local shows the file only.\n" +
    "--json prints { value, mint, network, leafIndex, spent, pieces, ... }: value and leafIndex of the current note,\n" +
    "spent = the file's note was spent, pieces = the withdrawals followed.",
  options: {
    note: noteOption,
    rpc: { type: "string", value: "url", help: "follow the chain from this Solana JSON-RPC endpoint (solana networks)" },
    program: { type: "string", value: "id", help: "with --rpc: the pool program id (default FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ)" },
    update: { type: "boolean", help: "rewrite the note file to the chain's current note" },
    local: { type: "boolean", help: "show the file as it is, asking nobody" },
    "reveal-secrets": { type: "boolean", help: "also print the nullifier and secret (anyone who sees them can withdraw)" },
  },
  async run(ctx, values) {
    const rpc = rpcInput(ctx, values);
    if (!rpc.ok) return rpc.code;
    if (!rpc.value && str(values, "program") !== undefined) return ctx.fail(Exit.Usage, "--program goes with --rpc");
    const program = programInput(ctx, values);
    if (!program.ok) return program.code;
    const local = values.local === true;
    if (local && (rpc.value || values.update === true)) return ctx.fail(Exit.Usage, "--local asks nobody: leave out --rpc and --update");
    const note = await noteInput(ctx, values);
    if (!note.ok) return note.code;
    const file = resolvePath(ctx, str(values, "note")!);
    const reveal = values["reveal-secrets"] === true;

    let current = note.value;
    let pieces: FollowedPiece[] = [];
    let spent: boolean | null = null;
    if (!local) {
      const hasher = await ctx.hasher();
      const lookup: NoteLookup = rpc.value ? { kind: "chain", rpc: rpc.value, programId: program.value } : { kind: "decoys" };
      const r = await resolveNoteFile(ctx, file, note.value, ledgerOf(ctx, lookup, hasher), hasher, { write: values.update === true });
      if (!r.ok) return r.code;
      current = r.value.current;
      pieces = r.value.pieces;
      // The file's spendable note: a pending file's `spends`, else the note itself.
      spent = pieces.length > 0;
    }
    const s = describeNote(current, { revealSecrets: reveal });
    const d = s.deposit;
    const lines = [
      `network: ${s.network}`,
      `mint: ${s.mint}`,
      `value: ${s.value}${local ? " (as the file says; the chain was not asked)" : " (now)"}`,
      s.isChange ? `change note of piece ${s.piece} (origin ${s.origin}), leaf ${s.leafIndex ?? "unknown"}` : `deposit note, leaf ${s.leafIndex ?? "none"}`,
      ...(s.state === "pending"
        ? [`state: pending (a withdrawal of ${s.pending!.amount} to ${s.pending!.recipient} was sent or about to be; run without --local)`]
        : []),
      `original deposit: ${s.originalAmount}`,
      `precommitment: ${s.precommitment}`,
      `commitment: ${s.commitment}`,
      `nullifierHash: ${s.nullifierHash}`,
      `created: ${s.createdAt}`,
      d ? `deposit: ${d.status}${d.leafIndex === null ? "" : ` at leaf ${d.leafIndex}`} by ${d.wallet}, signature ${d.signature}` : "deposit: not sent",
      ...(spent === null ? [] : [spent ? `the file's note was spent; ${pieces.length} withdrawal(s) followed` : "the file's note is unspent"]),
    ];
    if (s.nullifier && s.secret) lines.push(`nullifier: ${s.nullifier}`, `secret: ${s.secret}`);
    // s carries value, mint, network and leafIndex of the current note.
    const json: Record<string, JsonValue> = {
      ...s,
      spent,
      pieces: pieces.map(pieceJson),
      deposit: d ? { ...d } : null,
      pending: s.pending ? { ...s.pending } : null,
    };
    return ctx.done(lines, json);
  },
};
