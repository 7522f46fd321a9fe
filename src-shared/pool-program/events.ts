/**
 * The pool program's events (docs/pool-program.md "Events"): discriminator ‖
 * Borsh fields, emitted as the data of a self-CPI (Anchor's `emit_cpi!`:
 * EVENT_IX_TAG ‖ event bytes, signed by the event authority PDA) that no log
 * limit can drop. Transactions from before issue 25 carried them as Anchor's
 * `Program data: <base64(…)>` log lines, which are still read.
 * Public keys are 32 raw bytes, field elements 32 bytes big-endian.
 */
import { ByteReader, ByteWriter, startsWith } from "./borsh";
import { decodeBase64, encodeBase64 } from "./base64";
import { EVENT_IX_TAG } from "./constants";
import { EVENT_DISCRIMINATORS, POOL_EVENT_NAMES, type PoolEventName } from "./discriminators";

export interface DepositEvent {
  name: "DepositEvent";
  leafIndex: number;
  /** The leaf the program computed and inserted: Poseidon(precommitment, amount, mintField). */
  commitment: Uint8Array;
  depositor: Uint8Array;
  amount: bigint;
  slot: bigint;
  nonce: bigint;
}

/** Why a deposit's leaf was not inserted: the precommitment is zero or not a field element, or the leaf is already in the tree. */
export const DEPOSIT_FAILED_REASONS = { zero: 1, notAFieldElement: 2, duplicate: 3 } as const;
export type DepositFailedReason = keyof typeof DEPOSIT_FAILED_REASONS;

export interface DepositFailedEvent {
  name: "DepositFailedEvent";
  /** What the depositor sent. */
  precommitment: Uint8Array;
  /** The leaf the program computed (a duplicate); 32 zero bytes when the precommitment could not make one. */
  commitment: Uint8Array;
  depositor: Uint8Array;
  amount: bigint;
  slot: bigint;
  nonce: bigint;
  reason: DepositFailedReason;
}

export interface WithdrawEvent {
  name: "WithdrawEvent";
  nullifierHash: Uint8Array;
  recipient: Uint8Array;
  amount: bigint;
  fee: bigint;
  relayer: Uint8Array;
  /** Protocol v3: the change leaf inserted by this withdrawal (the instruction's argument). */
  changeCommitment: Uint8Array;
  /** Its leaf index (the tree's nextIndex before the insert). */
  changeLeafIndex: number;
}

export interface RevertEvent {
  name: "RevertEvent";
  depositor: Uint8Array;
  amount: bigint;
  nonce: bigint;
  revertNullifier: Uint8Array;
}

export type PoolEvent = DepositEvent | DepositFailedEvent | WithdrawEvent | RevertEvent;

/** Encoded size of each event, discriminator included. */
export const EVENT_DATA_SIZES: Record<PoolEventName, number> = {
  DepositEvent: 8 + 4 + 32 + 32 + 8 + 8 + 8,
  DepositFailedEvent: 8 + 32 + 32 + 32 + 8 + 8 + 8 + 1,
  WithdrawEvent: 8 + 32 + 32 + 8 + 8 + 32 + 32 + 4,
  RevertEvent: 8 + 32 + 8 + 8 + 32,
};

export const PROGRAM_DATA_PREFIX = "Program data: ";

/** discriminator ‖ Borsh fields. */
export function encodePoolEvent(e: PoolEvent): Uint8Array {
  const w = new ByteWriter(EVENT_DATA_SIZES[e.name]).raw(EVENT_DISCRIMINATORS[e.name], 8, "discriminator");
  switch (e.name) {
    case "DepositEvent":
      w.u32(e.leafIndex, "leafIndex").raw(e.commitment, 32, "commitment").raw(e.depositor, 32, "depositor");
      w.u64(e.amount, "amount").u64(e.slot, "slot").u64(e.nonce, "nonce");
      break;
    case "DepositFailedEvent":
      w.raw(e.precommitment, 32, "precommitment").raw(e.commitment, 32, "commitment").raw(e.depositor, 32, "depositor");
      w.u64(e.amount, "amount").u64(e.slot, "slot").u64(e.nonce, "nonce").u8(DEPOSIT_FAILED_REASONS[e.reason], "reason");
      break;
    case "WithdrawEvent":
      w.raw(e.nullifierHash, 32, "nullifierHash").raw(e.recipient, 32, "recipient").u64(e.amount, "amount").u64(e.fee, "fee");
      w.raw(e.relayer, 32, "relayer").raw(e.changeCommitment, 32, "changeCommitment").u32(e.changeLeafIndex, "changeLeafIndex");
      break;
    case "RevertEvent":
      w.raw(e.depositor, 32, "depositor").u64(e.amount, "amount").u64(e.nonce, "nonce").raw(e.revertNullifier, 32, "revertNullifier");
      break;
  }
  return w.finish();
}

/** The full log line: `Program data: <base64>`. */
export function encodePoolEventLog(e: PoolEvent): string {
  return PROGRAM_DATA_PREFIX + encodeBase64(encodePoolEvent(e));
}

const REASON_BY_CODE = new Map<number, DepositFailedReason>(
  (Object.entries(DEPOSIT_FAILED_REASONS) as [DepositFailedReason, number][]).map(([k, v]) => [v, k]),
);

/** One event's bytes; null when they are not exactly one of our events. */
export function decodePoolEvent(data: Uint8Array): PoolEvent | null {
  const name = POOL_EVENT_NAMES.find((n) => startsWith(data, EVENT_DISCRIMINATORS[n]));
  if (!name || data.length !== EVENT_DATA_SIZES[name]) return null;
  const r = new ByteReader(data, 8);
  switch (name) {
    case "DepositEvent":
      return { name, leafIndex: r.u32(), commitment: r.raw(32), depositor: r.raw(32), amount: r.u64(), slot: r.u64(), nonce: r.u64() };
    case "DepositFailedEvent": {
      const fields = { precommitment: r.raw(32), commitment: r.raw(32), depositor: r.raw(32), amount: r.u64(), slot: r.u64(), nonce: r.u64() };
      const reason = REASON_BY_CODE.get(r.u8());
      return reason ? { name, ...fields, reason } : null;
    }
    case "WithdrawEvent":
      return {
        name,
        nullifierHash: r.raw(32),
        recipient: r.raw(32),
        amount: r.u64(),
        fee: r.u64(),
        relayer: r.raw(32),
        changeCommitment: r.raw(32),
        changeLeafIndex: r.u32(),
      };
    case "RevertEvent":
      return { name, depositor: r.raw(32), amount: r.u64(), nonce: r.u64(), revertNullifier: r.raw(32) };
  }
}

/** An event CPI's instruction data: EVENT_IX_TAG ‖ discriminator ‖ Borsh fields. */
export function encodePoolEventInstruction(e: PoolEvent): Uint8Array {
  const event = encodePoolEvent(e);
  const out = new Uint8Array(EVENT_IX_TAG.length + event.length);
  out.set(EVENT_IX_TAG);
  out.set(event, EVENT_IX_TAG.length);
  return out;
}

/**
 * The event in an event CPI's instruction data (an inner instruction of the
 * pool program whose accounts[0] is the event authority); null when the data
 * is not an event CPI or not exactly one of our events. The caller checks the
 * program id and the event authority account.
 */
export function decodePoolEventInstruction(data: Uint8Array): PoolEvent | null {
  if (!(data instanceof Uint8Array) || !startsWith(data, EVENT_IX_TAG)) return null;
  return decodePoolEvent(data.subarray(EVENT_IX_TAG.length));
}

const INVOKE = /^Program (\S+) invoke \[\d+\]$/;
const EXIT = /^Program (\S+) (?:success$|failed)/;

/**
 * The pool events in a transaction's log messages, in order. Lines that are
 * not our events are skipped; nothing here throws. With `programId`, a
 * `Program data:` line counts only while that program is the innermost
 * invoked program (tracked from `Program <id> invoke [n]` and
 * `Program <id> success|failed…` frames), so another program's look-alike
 * line is ignored.
 */
export function decodePoolEventLogs(logMessages: readonly string[] | null | undefined, programId?: string): PoolEvent[] {
  const events: PoolEvent[] = [];
  if (!Array.isArray(logMessages)) return events;
  const stack: string[] = [];
  for (const line of logMessages as readonly unknown[]) {
    if (typeof line !== "string") continue;
    if (programId !== undefined) {
      const invoke = INVOKE.exec(line);
      if (invoke) {
        stack.push(invoke[1]!);
        continue;
      }
      const exit = EXIT.exec(line);
      if (exit) {
        const at = stack.lastIndexOf(exit[1]!);
        if (at >= 0) stack.length = at;
        continue;
      }
    }
    if (!line.startsWith(PROGRAM_DATA_PREFIX)) continue;
    if (programId !== undefined && stack[stack.length - 1] !== programId) continue;
    const data = decodeBase64(line.slice(PROGRAM_DATA_PREFIX.length).trim());
    if (!data) continue;
    const event = decodePoolEvent(data);
    if (event) events.push(event);
  }
  return events;
}
