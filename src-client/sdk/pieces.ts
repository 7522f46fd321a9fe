/**
 * Withdrawing part of a note in standard pieces (protocol v3, DESIGN §10,
 * docs/privacy.md): the amount asked is split into 1-2-5 × 10^k amounts at or
 * above the mint's floor (src-shared/privacy/standard-amounts.ts) and each
 * piece spends the previous piece's change. A remainder below the smallest
 * standard amount stays in the note. Before anything is sent a wallet shows
 * the plan (pieces, fees, each piece's anonymity set) and asks.
 *
 * The note file is rewritten in place as the chain moves, and never holds a
 * state that loses funds if the process dies between two steps:
 *   1. `confirmed` note N, unspent;
 *   2. after proving piece k and before sending it: `pending` change note C
 *      with `pending.spends` = N (both sets of secrets on disk);
 *   3. after the relay's answer: `confirmed` C at its leaf index, or, when the
 *      relay refused and N is still unspent, `confirmed` N again.
 * A restart finds state 2 and asks the chain (or the relay) whether N is
 * spent: no, N is current; yes, C (or the change of the amount that
 * withdrawal really took) is (follow.ts resolveNote).
 */
import { defaultStandardFloor, splitIntoStandardAmounts, isStandardAmount } from "../../src-shared/privacy/standard-amounts";
import { err, ok, type Result } from "../../src-shared/result";
import type { RelayClient } from "./http";
import { anonymitySet, type KnownLeaf } from "./lookup";
import { noteLeafIndex, saveNote, type DepositNote, type PendingPiece } from "./note";
import { withdraw, type WithdrawError, type WithdrawOptions, type WithdrawResult } from "./withdraw";

export { defaultStandardFloor };

export interface PlannedPiece {
  amount: bigint;
  fee: bigint;
  toRecipient: bigint;
  /** Leaves that could hold a note of at least `amount` (deposits of at least it, and change leaves); null when unknown. */
  anonymitySet: number | null;
  standard: boolean;
}

export interface WithdrawalPlan {
  /** The note's value before the first piece. */
  value: bigint;
  /** What was asked (the whole value when no amount was given). */
  requested: bigint;
  pieces: PlannedPiece[];
  /** The sum of the pieces. */
  total: bigint;
  fees: bigint;
  /** What the recipient receives in all. */
  toRecipient: bigint;
  /** Of `requested`, what no standard piece could take (below the smallest one): it stays in the note. */
  unsplit: bigint;
  /** The note's value after the last piece. */
  left: bigint;
  floor: bigint;
  exact: boolean;
  /** The pool's leaf count when the kinds were unknown (a relay that does not publish them): an upper bound of every anonymity set; null when they were known. */
  leafCount: number | null;
}

export interface PlanInput {
  /** The note's value now. */
  value: bigint;
  /** The part to withdraw; default all of it. */
  amount?: bigint;
  /** The smallest standard amount (defaultStandardFloor of the mint's decimals). */
  floor: bigint;
  /** One piece of exactly `amount`, standard or not. */
  exact?: boolean;
  /** The relay's fee for a piece (GET /fees), null when the piece does not cover it. */
  feeOf: (amount: bigint) => bigint | null;
  /** The pool's leaves with their kinds and deposit amounts (from the chain, or the relay's get_leaves), or null: then `leafCount` bounds the sets. */
  leaves: ReadonlyMap<number, KnownLeaf> | null;
  leafCount?: number;
}

/** The pieces for withdrawing `amount` of a note, their fees and anonymity sets; an error when a piece cannot pay its fee. */
export function planWithdrawal(input: PlanInput): Result<WithdrawalPlan, string> {
  const requested = input.amount ?? input.value;
  if (requested <= 0n) return err("nothing to withdraw: the note holds 0");
  if (requested > input.value) return err(`cannot withdraw ${requested}: the note holds ${input.value}`);
  if (input.floor <= 0n) return err("the standard floor must be positive");
  const split = input.exact ? { pieces: [requested], remainder: 0n } : splitIntoStandardAmounts(requested, input.floor);
  if (split.pieces.length === 0)
    return err(`${requested} is below the smallest standard amount (${input.floor}): it stays in the note (--exact withdraws it as one non-standard piece)`);
  const pieces: PlannedPiece[] = [];
  for (const amount of split.pieces) {
    const fee = input.feeOf(amount);
    if (fee === null || fee >= amount) return err(`a piece of ${amount} does not cover the relay's fee${fee === null ? "" : ` (${fee})`}`);
    pieces.push({
      amount,
      fee,
      toRecipient: amount - fee,
      anonymitySet: input.leaves ? anonymitySet(input.leaves, amount) : null,
      standard: isStandardAmount(amount, input.floor),
    });
  }
  const total = pieces.reduce((a, p) => a + p.amount, 0n);
  const fees = pieces.reduce((a, p) => a + p.fee, 0n);
  return ok({
    value: input.value,
    requested,
    pieces,
    total,
    fees,
    toRecipient: total - fees,
    unsplit: split.remainder,
    left: input.value - total,
    floor: input.floor,
    exact: input.exact === true,
    leafCount: input.leaves ? null : (input.leafCount ?? null),
  });
}

/** The plan as a wallet shows it before asking for confirmation. */
export function describePlan(plan: WithdrawalPlan, mint: string, recipient: string): string[] {
  const leaves = (n: number): string => `${n} lea${n === 1 ? "f" : "ves"}`;
  const set = (p: PlannedPiece): string =>
    p.anonymitySet !== null
      ? `anonymity set ${leaves(p.anonymitySet)}`
      : plan.leafCount !== null
        ? `anonymity set at most ${leaves(plan.leafCount)} (the relay does not list its leaves: give --rpc to count the deposits of at least ${p.amount} and the change leaves)`
        : "anonymity set unknown";
  const lines = [
    `withdrawing ${plan.total} of ${mint} to ${recipient} in ${plan.pieces.length} piece${plan.pieces.length === 1 ? "" : "s"}:`,
    ...plan.pieces.map(
      (p, i) =>
        `  piece ${i + 1}: ${p.amount}${p.standard ? "" : " (NOT a standard amount)"}, fee ${p.fee}, the recipient receives ${p.toRecipient}; ${set(p)}`,
    ),
    `total fees: ${plan.fees}; the recipient receives ${plan.toRecipient} in all`,
  ];
  if (plan.exact && plan.pieces.some((p) => !p.standard))
    lines.push(
      `warning: --exact sends ${plan.total}, which is not a standard amount: an amount few others withdraw can link this withdrawal to its deposit (docs/privacy.md)`,
    );
  if (plan.unsplit > 0n)
    lines.push(`${plan.unsplit} of the ${plan.requested} asked is below the smallest standard amount (${plan.floor}) and stays in the note`);
  lines.push(`the note keeps ${plan.left} after the last piece`);
  return lines;
}

export interface PiecesOptions extends Omit<WithdrawOptions, "amount" | "fee" | "beforeRelay"> {
  /** Wait this long between pieces (`--spread`). */
  spreadMs?: number;
  /** Default setTimeout; tests pass their own. */
  sleep?: (ms: number) => Promise<void>;
  /** How long a piece waits for the relay to index the previous piece's change leaf (default 30 s). */
  indexTimeoutMs?: number;
  /** Told before each piece starts (1-based) and before each wait. */
  onPiece?: (index: number, piece: PlannedPiece) => void;
  onWait?: (ms: number, nextIndex: number) => void;
  /** Told after each piece landed and the file holds its change. */
  onLanded?: (index: number, result: WithdrawResult) => void;
}

export interface PiecesResult {
  /** The note the file holds now. */
  note: DepositNote;
  landed: WithdrawResult[];
}

export type PiecesError = {
  /** The pieces that landed before the failure. */
  landed: WithdrawResult[];
  /** The note the file holds now (pending when the last piece's outcome is unknown). */
  note: DepositNote;
  /** 1-based index of the piece that failed. */
  index: number;
} & (
  | { stage: "withdraw"; error: WithdrawError }
  /** The file could not be rewritten after a piece landed: the pending file still recovers it. */
  | { stage: "update"; message: string; result: WithdrawResult }
);

/**
 * A relay on a chain indexes the change leaf after the withdrawal landed; the
 * next piece proves against the relay's root, so it waits (get_merkle: public,
 * names no note) until the relay holds the leaf, or the time is up (the
 * lookup then says the leaf is not indexed yet).
 */
async function untilIndexed(client: RelayClient, note: DepositNote, sleep: (ms: number) => Promise<void>, timeoutMs: number): Promise<void> {
  const leafIndex = noteLeafIndex(note);
  if (leafIndex === null) return;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const tree = await client.getMerkle(note.mint, note.network);
    if (!tree.ok || tree.value.json.nextIndex > leafIndex || Date.now() > deadline) return;
    await sleep(250);
  }
}

/** The pending change note written before a piece is sent. */
function pendingNote(spends: DepositNote, r: Omit<PendingPiece, "spends" | "since"> & { change: DepositNote }): DepositNote {
  // Only the piece's terms: callers pass whole proofs and results, which the file must not take in.
  const { amount, fee, recipient, relayer, swap, changeCommitment } = r;
  return {
    ...r.change,
    pending: { spends: { ...spends, pending: null }, amount, fee, recipient, relayer, swap, changeCommitment, since: new Date().toISOString() },
  };
}

/**
 * Sends the plan's pieces one after the other, each spending the previous
 * piece's change, rewriting `file` in place around each one (the module's
 * comment gives the states). `note` must be the file's current, unspent,
 * confirmed note. Each piece pays the fee the plan showed: a relay that
 * raised its fee meanwhile refuses it (FeeTooLow) and nothing more is sent.
 */
export async function withdrawInPieces(
  client: RelayClient,
  file: string,
  note: DepositNote,
  recipient: string,
  plan: WithdrawalPlan,
  options: PiecesOptions = {},
): Promise<Result<PiecesResult, PiecesError>> {
  if (note.pending) throw new Error("resolve a pending note (follow.ts resolveNote) before sending more");
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const landed: WithdrawResult[] = [];
  let current = note;
  for (const [i, piece] of plan.pieces.entries()) {
    if (i > 0 && options.spreadMs) {
      options.onWait?.(options.spreadMs, i + 1);
      await sleep(options.spreadMs);
    }
    if (i > 0) await untilIndexed(client, current, sleep, options.indexTimeoutMs ?? 30_000);
    options.onPiece?.(i + 1, piece);
    const spends = current;
    const r = await withdraw(client, spends, recipient, {
      ...options,
      amount: piece.amount,
      fee: piece.fee,
      beforeRelay: (p) => saveNote(file, pendingNote(spends, p), { overwrite: true }),
    });
    if (!r.ok) {
      const e = r.error;
      if (e.stage !== "relay") return err({ stage: "withdraw", error: e, landed, note: current, index: i + 1 });
      // A refusal (no `landed` guess) spent nothing unless the relay says the nullifier is spent; `landed` false is the
      // SDK's own check after an unknown outcome. Anything else may have landed: the pending file stays for resolveNote.
      const notLanded = e.landed === false || (e.landed === undefined && e.failure.error !== "NullifierAlreadySpent");
      if (notLanded) {
        const back = saveNote(file, spends, { overwrite: true });
        if (!back.ok) return err({ stage: "withdraw", error: e, landed, note: pendingNote(spends, e.proof), index: i + 1 });
        return err({ stage: "withdraw", error: e, landed, note: spends, index: i + 1 });
      }
      return err({ stage: "withdraw", error: e, landed, note: pendingNote(spends, e.proof), index: i + 1 });
    }
    landed.push(r.value);
    const saved = saveNote(file, r.value.change, { overwrite: true });
    if (!saved.ok) return err({ stage: "update", message: saved.error, result: r.value, landed, note: pendingNote(spends, r.value.proof), index: i + 1 });
    current = r.value.change;
    options.onLanded?.(i + 1, r.value);
  }
  return ok({ note: current, landed });
}
