import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { KNOWN_MINTS, UNKNOWN_MINT_STANDARD_FLOOR } from "../../../src-shared/api/admin";
import { toHex } from "../../../src-shared/encoding/bytes";
import { defaultStandardFloor } from "../../../src-shared/privacy/standard-amounts";
import { chainConnection, mintDecimals } from "../../sdk/chain";
import { relayFee } from "../../sdk/fees";
import { poolHistoryOf, relayLeaves, type KnownLeaf, type NoteLookup } from "../../sdk/lookup";
import type { DepositNote } from "../../sdk/note";
import { describePlan, planWithdrawal, withdrawInPieces, type PiecesError, type PiecesResult, type WithdrawalPlan } from "../../sdk/pieces";
import type { WithdrawResult } from "../../sdk/withdraw";
import { Exit, type CliContext, type ExitCode, type JsonValue } from "../context";
import { keypairInput, noteInput, resolvePath, type Input } from "../inputs";
import { str, type CommandSpec, type ParsedValues } from "../spec";
import { ledgerOf, resolveNoteFile } from "./note";
import { noteOption, noteProofFailure } from "./pool";
import {
  artifactOptions,
  artifactsInput,
  baseUnitsFlag,
  describeLookup,
  lookupOptions,
  recipientOption,
  STAGE_TEXT,
  swapAgainstNote,
  swapOptions,
  withdrawalInputs,
  withdrawFailure,
} from "./withdraw";

const hex = (b: Uint8Array): string => `0x${toHex(b)}`;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `--spread 90s`, `5m`, `1h`, `500ms` (a bare number is seconds): the wait between two pieces. */
export function parseDuration(text: string): number | null {
  const m = /^([0-9]{1,7})(ms|s|m|h)?$/.exec(text.trim());
  if (!m) return null;
  return Number(m[1]) * UNITS[m[2] ?? "s"]!;
}

function spreadInput(ctx: CliContext, values: ParsedValues): Input<number | undefined> {
  const text = str(values, "spread");
  if (text === undefined) return { ok: true, value: undefined };
  const ms = parseDuration(text);
  if (ms === null || ms > 7 * 24 * 3_600_000)
    return { ok: false, code: ctx.fail(Exit.Usage, `--spread ${text} must be a duration such as 90s, 10m or 2h (at most a week)`) };
  return { ok: true, value: ms };
}

/** The smallest standard amount: --floor, else the mint's decimals from the chain (--rpc) or the known mints, else 1000. */
async function floorInput(ctx: CliContext, values: ParsedValues, note: DepositNote, rpc: string | null): Promise<Input<bigint>> {
  const given = baseUnitsFlag(ctx, values, "floor", 1n);
  if (!given.ok) return given;
  if (given.value !== undefined) return { ok: true, value: given.value };
  if (rpc) {
    const d = await mintDecimals(chainConnection(rpc), note.mint);
    if (!d.ok) return { ok: false, code: ctx.fail(Exit.Unreachable, `${d.error} (give --floor <base units> instead)`) };
    return { ok: true, value: defaultStandardFloor(d.value) };
  }
  const known = KNOWN_MINTS[note.mint];
  if (known) return { ok: true, value: defaultStandardFloor(known.decimals) };
  ctx.note(`the decimals of ${note.mint} are unknown without --rpc: standard amounts start at ${UNKNOWN_MINT_STANDARD_FLOOR} (--floor sets another)`);
  return { ok: true, value: UNKNOWN_MINT_STANDARD_FLOOR };
}

/** Asks before anything is sent; --yes answers for the user, and no terminal means no. */
async function confirm(ctx: CliContext, yes: boolean): Promise<Input<void>> {
  if (yes) return { ok: true, value: undefined };
  const answer = ctx.io.prompt ? await ctx.io.prompt("send these pieces? [y/N] ") : null;
  if (answer === null) return { ok: false, code: ctx.fail(Exit.Usage, "nothing sent: confirm on a terminal, or pass --yes") };
  if (!/^y(es)?$/i.test(answer.trim())) return { ok: false, code: ctx.fail(Exit.Refused, "nothing sent: not confirmed", { error: "NotConfirmed" }) };
  return { ok: true, value: undefined };
}

function landedJson(r: WithdrawResult): { [k: string]: JsonValue } {
  return {
    signature: r.signature,
    depositSize: r.proof.amount.toString(),
    fee: r.terms.fee.toString(),
    toRecipient: r.terms.toRecipient.toString(),
    nullifierHash: hex(r.proof.nullifierHash),
    root: hex(r.proof.root),
    changeCommitment: hex(r.proof.changeCommitment),
    changeLeafIndex: r.changeLeafIndex,
    provingMs: r.proof.provingMs,
    ...(r.quote ? { swap: { outputMint: r.quote.outputMint, quotedOut: r.quote.outAmount, minOut: r.terms.minOut?.toString() ?? null } } : {}),
  };
}

function planJson(plan: WithdrawalPlan): { [k: string]: JsonValue } {
  return {
    pieces: plan.pieces.map((p) => ({ amount: p.amount.toString(), fee: p.fee.toString(), anonymitySet: p.anonymitySet, standard: p.standard })),
    total: plan.total.toString(),
    fees: plan.fees.toString(),
    unsplit: plan.unsplit.toString(),
    left: plan.left.toString(),
    floor: plan.floor.toString(),
  };
}

export const relay: CommandSpec = {
  name: "relay",
  summary: "withdraw all or part of a note in standard pieces through the relay (/relay, or /relay_swap with --swap-to)",
  details:
    "Withdraws --amount (default: all the note holds) to --recipient. The amount is split into standard amounts\n" +
    "(1, 2 or 5 x 10^k base units from the mint's floor: --floor, or the decimals read with --rpc) and each piece is a\n" +
    "withdrawal spending the previous piece's change; what is below the smallest standard amount stays in the note.\n" +
    "Before sending it shows the pieces, the fees and each piece's anonymity set, and asks (--yes does not ask).\n" +
    "--exact sends the amount as one piece, standard or not (a unique amount can link the withdrawal to its deposit).\n" +
    "--spread <duration> waits that long between pieces (90s, 10m, 2h).\n" +
    "The note file is rewritten in place: before each piece is sent it holds the new change note as `pending` (with\n" +
    "the note it spends), after it landed the change note as `confirmed`. A pending file is resolved first on the\n" +
    "next run (or by `note`), so a crash at any point loses nothing.\n" +
    "Each piece logs in with --keypair (use a fresh one, not the depositor's), checks the note is unspent, reads the\n" +
    "relay's key and fee, checks the Merkle path, proves for exactly those terms and the change, and POSTs /relay.\n" +
    "The spent check and the Merkle path never name the note to the relay alone (docs/privacy.md): with --rpc they\n" +
    "are read from the chain; without it the relay is asked for the note's leaf among --decoys others (default 8)\n" +
    "that could hold the piece, and its nullifier among as many other hashes, the same sets on every retry; a relay\n" +
    "whose answers disagree stops the withdrawal (exit 5). --swap-to <mint> swaps each piece through /relay_swap.",
  options: {
    note: noteOption,
    keypair: { type: "string", value: "file", help: "a wallet keypair to log in with (x-api-auth): a fresh one, not the depositor's", required: true },
    recipient: recipientOption,
    amount: { type: "string", value: "base units", help: "the part to withdraw (default: all that is left)" },
    exact: { type: "boolean", help: "send the amount as one piece even when it is not a standard amount (less private)" },
    floor: { type: "string", value: "base units", help: "the smallest standard amount (default: a thousandth of a token, from the mint's decimals)" },
    spread: { type: "string", value: "duration", help: "wait this long between pieces (e.g. 90s, 10m, 2h)" },
    yes: { type: "boolean", help: "send without asking for confirmation" },
    ...swapOptions,
    ...lookupOptions,
    ...artifactOptions,
  },
  async run(ctx, values) {
    const given = withdrawalInputs(ctx, values, () => ({ ok: true, value: undefined }));
    if (!given.ok) return given.code;
    const { recipient, lookup, swap, amount } = given.value;
    const spread = spreadInput(ctx, values);
    if (!spread.ok) return spread.code;
    const note = await noteInput(ctx, values);
    if (!note.ok) return note.code;
    const file = resolvePath(ctx, str(values, "note")!);
    const kp = keypairInput(ctx, values);
    if (!kp.ok) return kp.code;
    const sameMint = swapAgainstNote(ctx, swap, note.value);
    if (sameMint !== null) return sameMint;
    if (note.value.deposit && note.value.deposit.wallet === kp.value.address) {
      ctx.note(`warning: --keypair is the wallet that made the deposit: the relay sees it log in for this withdrawal (use a fresh one: keygen --out <file>)`);
    }
    describeLookup(ctx, lookup);
    await suggestChainLookup(ctx, lookup, note.value);

    // Where the chain stands: a pending piece resolved, withdrawals made from this note elsewhere followed.
    const hasher = await ctx.hasher();
    ctx.note("checking where the note's chain stands...");
    const resolved = await resolveNoteFile(ctx, file, note.value, ledgerOf(ctx, lookup, hasher), hasher, { write: true });
    if (!resolved.ok) return resolved.code;
    const current = resolved.value.current;
    if (current.amount === 0n) return ctx.fail(Exit.Refused, "the note holds nothing: every part of it was withdrawn", { error: "NothingLeft" });
    if (amount !== undefined && amount > current.amount) return ctx.fail(Exit.Usage, `--amount ${amount} is above what the note holds (${current.amount})`);

    const plan = await planInput(ctx, values, current, lookup, amount);
    if (!plan.ok) return plan.code;
    if (swap?.minOut !== undefined && plan.value.pieces.length > 1)
      return ctx.fail(
        Exit.Usage,
        `--min-out binds one swap, and this withdrawal is ${plan.value.pieces.length} pieces: leave it out (each piece proves its quote's minimum) or give --exact`,
      );
    for (const line of describePlan(plan.value, current.mint, recipient)) ctx.note(line);
    if (spread.value) ctx.note(`the pieces go ${Math.round(spread.value / 1000)} s apart`);
    const ok = await confirm(ctx, values.yes === true);
    if (!ok.ok) return ok.code;

    const n = plan.value.pieces.length;
    const r = await withdrawInPieces(ctx.client, file, current, recipient, plan.value, {
      wallet: kp.value,
      lookup,
      hasher,
      prove: artifactsInput(ctx, values),
      onStage: (s) => ctx.note(`  ${STAGE_TEXT[s]}...`),
      onPiece: (i, p) => ctx.note(`piece ${i} of ${n}: ${p.amount}`),
      onWait: (ms, i) => ctx.note(`waiting ${Math.round(ms / 1000)} s before piece ${i} (--spread)...`),
      onLanded: (i, w) => ctx.note(`piece ${i} landed: ${w.signature}; the file holds the change (${w.change.amount} left, leaf ${w.changeLeafIndex})`),
      ...(spread.value ? { spreadMs: spread.value } : {}),
      ...(swap ? { swapTo: swap.outputMint } : {}),
      ...(swap?.minOut !== undefined ? { minOut: swap.minOut } : {}),
    });
    if (!r.ok) return piecesFailure(ctx, r.error, { file, n, recipient, swap: swap !== null, lookup, hasher });
    return piecesLanded(ctx, r.value, plan.value, { file, recipient, swap: swap !== null });
  },
};

/** GET /networks is public and names no note: whether this network has a chain the wallet could read instead of asking the relay. */
async function suggestChainLookup(ctx: CliContext, lookup: NoteLookup, note: DepositNote): Promise<void> {
  if (lookup.kind !== "decoys") return;
  const networks = await ctx.client.networks();
  const bound = networks.ok ? networks.value.find((n) => n.name === note.network) : undefined;
  if (bound && !bound.sandbox)
    ctx.note(
      `the relay runs ${note.network} on program ${bound.programId}: give --rpc <url> to read the path from the chain and ask the relay nothing about the note`,
    );
}

/** The pieces to send: the relay's fees, the standard floor, and each piece's anonymity set from the pool's leaves. */
async function planInput(
  ctx: CliContext,
  values: ParsedValues,
  current: DepositNote,
  lookup: NoteLookup,
  amount: bigint | undefined,
): Promise<Input<WithdrawalPlan>> {
  const fees = await ctx.client.fees();
  if (!fees.ok) return { ok: false, code: ctx.apiFailure("fees", fees) };
  const rpc = lookup.kind === "chain" && typeof lookup.rpc === "string" ? lookup.rpc : null;
  const floor = await floorInput(ctx, values, current, rpc);
  if (!floor.ok) return floor;
  const leaves = await leavesInput(ctx, lookup, current);
  if (!leaves.ok) return leaves;
  const plan = planWithdrawal({
    value: current.amount,
    ...(amount !== undefined ? { amount } : {}),
    floor: floor.value,
    exact: values.exact === true,
    feeOf: (a) => relayFee(fees.value, current.network, current.mint, a)?.fee ?? null,
    ...leaves.value,
  });
  if (!plan.ok) return { ok: false, code: ctx.fail(Exit.Refused, plan.error, { error: "NothingToSend" }) };
  return { ok: true, value: plan.value };
}

/** The pool's leaves, from the chain with --rpc, else the relay's whole public leaf list (names no note); only a count from a relay without it. */
async function leavesInput(
  ctx: CliContext,
  lookup: NoteLookup,
  current: DepositNote,
): Promise<Input<{ leaves: ReadonlyMap<number, KnownLeaf> | null; leafCount?: number }>> {
  if (lookup.kind === "chain") {
    const h = await poolHistoryOf(typeof lookup.rpc === "string" ? chainConnection(lookup.rpc) : lookup.rpc, lookup.programId!, current.mint);
    if (!h.ok) return { ok: false, code: ctx.apiFailure("chain", h) };
    return { ok: true, value: { leaves: h.value.leaves } };
  }
  const listed = await relayLeaves(ctx.client.withoutSession(), current.mint, current.network);
  if (!listed.ok)
    return { ok: false, code: listed.error.kind === "api" ? ctx.apiFailure("get_leaves", listed.error.failure) : noteProofFailure(ctx, listed.error) };
  const leaves = listed.value.leaves;
  return { ok: true, value: leaves ? { leaves } : { leaves, leafCount: listed.value.nextIndex } };
}

/** A piece failed: the pieces before it landed; a pending file is resolved once more, since the last piece may have landed after all. */
async function piecesFailure(
  ctx: CliContext,
  e: PiecesError,
  o: { file: string; n: number; recipient: string; swap: boolean; lookup: NoteLookup; hasher: FieldHasher },
): Promise<ExitCode> {
  const { file, n } = o;
  if (e.landed.length > 0) ctx.note(`${e.landed.length} of ${n} pieces landed before piece ${e.index} failed`);
  if (e.stage === "update") {
    return ctx.fail(
      Exit.LocalFile,
      `piece ${e.index} landed (${e.result.signature}) but ${file} could not be rewritten: ${e.message}; the file is still pending and \`relay-cli note --note ${file} --update\` finds the change`,
    );
  }
  if (e.note.pending) {
    // The outcome is unknown or the relay said spent: the chain decides, now if it can.
    const again = await resolveNoteFile(ctx, file, e.note, ledgerOf(ctx, o.lookup, o.hasher), o.hasher, { write: true });
    if (again.ok && again.value.pending === "landed" && e.index === n) {
      ctx.note(
        `piece ${e.index} landed although the relay's answer was ${e.error.stage === "relay" ? `${e.error.failure.status} ${e.error.failure.error}` : "lost"}`,
      );
      return ctx.done([`withdrawn to ${o.recipient}: all ${n} pieces landed; the note holds ${again.value.current.amount}`], {
        withdrawn: true,
        signature: null,
        recipient: o.recipient,
        left: again.value.current.amount.toString(),
        note: file,
      });
    }
  }
  return withdrawFailure(ctx, e.error, o.swap);
}

function piecesLanded(ctx: CliContext, result: PiecesResult, plan: WithdrawalPlan, o: { file: string; recipient: string; swap: boolean }): ExitCode {
  const landed = result.landed;
  const n = plan.pieces.length;
  const last = landed[landed.length - 1]!;
  const p = last.proof;
  const lines = landed.map(
    (w, i) =>
      `piece ${i + 1}: ${w.proof.amount} withdrawn, fee ${w.terms.fee} to relayer ${w.terms.relayer}; ` +
      (w.quote && w.terms.minOut !== null
        ? `${w.terms.toRecipient} swapped into ${w.quote.outputMint}: about ${w.quote.outAmount}, at least ${w.terms.minOut}`
        : `the recipient receives ${w.terms.toRecipient}`) +
      `; signature ${w.signature}`,
  );
  lines.unshift(`withdrawn: ${plan.total} of ${p.mint} on ${p.network} to ${o.recipient} in ${n} piece${n === 1 ? "" : "s"}`);
  lines.push(`fees: ${plan.fees}; the recipient receives ${plan.toRecipient}${o.swap ? " (before the swaps)" : ""}`);
  lines.push(`the note now holds ${result.note.amount} (${o.file}, rewritten in place)`);
  if (plan.unsplit > 0n) lines.push(`${plan.unsplit} was below the smallest standard amount (${plan.floor}) and stayed in the note`);
  lines.push(`proving took ${landed.map((w) => w.proof.provingMs).join(" + ")} ms`);
  const json: { [k: string]: JsonValue } = {
    withdrawn: true,
    network: p.network,
    mint: p.mint,
    recipient: o.recipient,
    signature: last.signature,
    depositSize: plan.total.toString(),
    fee: plan.fees.toString(),
    toRecipient: plan.toRecipient.toString(),
    relayer: last.terms.relayer,
    left: result.note.amount.toString(),
    note: o.file,
    plan: planJson(plan),
    pieces: landed.map(landedJson),
    provingMs: landed.reduce((a, w) => a + w.proof.provingMs, 0),
  };
  return ctx.done(lines, json);
}
