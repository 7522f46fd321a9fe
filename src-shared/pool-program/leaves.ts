/**
 * The pool program's events and the leaves it inserted in one landed
 * transaction (protocol v3, docs/pool-program.md "Events").
 *
 * Events: the program emits each one as a self-CPI (Anchor's `emit_cpi!`): an
 * inner instruction of the pool program whose data is EVENT_IX_TAG ‖ event
 * bytes and whose accounts[0] is the event authority PDA (only the program can
 * sign for it, so nobody else can make one that succeeds). Instruction data is
 * not subject to the runtime's 10 kB log limit, so no log trick can hide an
 * event. Each event belongs to the nearest preceding pool instruction (not
 * itself an event CPI) in execution order. Transactions from before that
 * change carry their events as `Program data:` log lines instead; those are
 * still read (the k-th deposit event of the program's frames belongs to its
 * k-th deposit instruction, and so on), and a cut log loses a suffix.
 * poolEvents() is the one reader of both: nobody reads logs alone.
 *
 * Leaves: deposit leaves from their DepositEvent (the program computes a
 * deposit's leaf; a refused one emits DepositFailedEvent and inserts nothing)
 * or, when the event is missing, from the deposit's receipt account (its
 * commitment and leafIndex) if the caller read it; the change leaf of every
 * `withdraw` / `withdraw_swap` of this program, top-level or inner, from the
 * instruction's data (changeCommitment @376 in both): its WithdrawEvent only
 * gives its leaf index and is checked against the data.
 *
 * Pure and free of any server or RPC client code: the indexer's chain reader
 * and the SDK's own chain reader both use it.
 */
import bs58 from "bs58";
import type { DepositReceiptData } from "./accounts";
import { eventAuthorityAddress } from "./addresses";
import { startsWith } from "./borsh";
import { EVENT_IX_TAG, PROOF_SIZE } from "./constants";
import { INSTRUCTION_DISCRIMINATORS } from "./discriminators";
import { decodePoolEventInstruction, decodePoolEventLogs, type PoolEvent, type WithdrawEvent } from "./events";
import { INSTRUCTION_DATA_SIZES, WITHDRAW_CHANGE_COMMITMENT_OFFSET } from "./instructions";

const CHANGE_COMMITMENT_OFFSET = WITHDRAW_CHANGE_COMMITMENT_OFFSET;
const WITHDRAW_DATA_SIZE = INSTRUCTION_DATA_SIZES.withdraw;
const WITHDRAW_SWAP_DATA_SIZE = INSTRUCTION_DATA_SIZES.withdraw_swap;
const DEPOSIT_DATA_SIZE = INSTRUCTION_DATA_SIZES.deposit;
/** proof [u8;256] @8, root @264, nullifierHash @296 (withdraw and withdraw_swap alike). */
const NULLIFIER_HASH_OFFSET = 8 + PROOF_SIZE + 32;
/** deposit { precommitment @8, amount @40, nonce @48 }. */
const DEPOSIT_NONCE_OFFSET = 8 + 32 + 8;
/** deposit, withdraw and withdraw_swap all name the tree third (relayer|depositor, mint, tree, …). */
const TREE_ACCOUNT_INDEX = 2;
const MINT_ACCOUNT_INDEX = 1;
/** deposit's accounts: depositor @0 … receipt @5 (docs/pool-program.md). */
const DEPOSITOR_ACCOUNT_INDEX = 0;
const RECEIPT_ACCOUNT_INDEX = 5;

/**
 * An account key: base58, or its 32 bytes (a reader keeps the bytes and
 * encodes only the keys a leaf names: base58 of every key of every
 * transaction was most of a backfill's CPU).
 */
export type LeafKey = string | Uint8Array;

/** An instruction as the message compiles it: indexes into the transaction's account keys. */
export interface CompiledLeafInstruction {
  programIdIndex: number;
  accounts: ArrayLike<number>;
  /** Its data, or the base58 text of it as the RPC gives inner instructions (decoded only for the pool's). */
  data: Uint8Array | string;
}

/** What is read of a landed transaction. */
export interface LeafTransaction {
  /** Every account key, in the message's order: static keys, then loaded writable, then loaded readonly. */
  accountKeys: readonly LeafKey[];
  /** Top-level instructions, in order. */
  instructions: readonly CompiledLeafInstruction[];
  /** meta.innerInstructions: each top-level instruction's CPIs, in execution order (null when the RPC gave none). */
  innerInstructions: readonly { index: number; instructions: readonly CompiledLeafInstruction[] }[] | null;
  logMessages: readonly string[] | null;
  /** meta.err: a failed transaction inserted nothing. */
  err: unknown;
}

interface LeafBase {
  /** The tree account the leaf went into (PDA ["merkle_tree", mint]). */
  tree: string;
  mint: string;
  commitment: Uint8Array;
  /** Position of the inserting instruction in execution order (top-level and inner together). */
  instruction: number;
  /** Whether it was a CPI. */
  inner: boolean;
}

export interface DepositLeaf extends LeafBase {
  kind: "deposit";
  leafIndex: number;
  depositor: Uint8Array;
  amount: bigint;
  /** Whether it came from its DepositEvent; false: from its receipt account (the event was missing). */
  evented: boolean;
}

export interface ChangeLeaf extends LeafBase {
  kind: "change";
  /**
   * From the WithdrawEvent, or from a neighbouring leaf of the same tree in
   * this transaction; null when neither is there (the event is missing and no
   * other leaf of the transaction fixes it): the leaf then takes the next
   * index of its tree in transaction order.
   */
  leafIndex: number | null;
  nullifierHash: Uint8Array;
  /** Whether its WithdrawEvent was there (and agreed with the instruction's data). */
  evented: boolean;
}

export type InsertedLeaf = DepositLeaf | ChangeLeaf;

/** A deposit of this program whose Deposit(Failed)Event is missing: what is needed to read its receipt. */
export interface UnknownDeposit {
  tree: string;
  mint: string;
  instruction: number;
  /** The receipt account the instruction names (accounts[5]); "" when it names none. */
  receipt: string;
  depositor: string;
  nonce: bigint;
}

export interface TransactionLeaves {
  /** In insertion order (per tree, leaf indexes ascend). */
  leaves: InsertedLeaf[];
  /**
   * Deposits of this program whose DepositEvent / DepositFailedEvent is missing
   * (logs cut, or an RPC that gives no inner instructions) and whose receipt
   * was not given: whether each inserted a leaf is unknown, so this
   * transaction's leaves of that tree are incomplete from that deposit on.
   */
  unknownDeposits: UnknownDeposit[];
  /**
   * Disagreements between the events and the instructions (an event whose
   * fields are not its instruction's, more events than instructions, a receipt
   * that is not the deposit's): the program did not report what it did, or the
   * transaction was misread. A reader should not index such a transaction.
   */
  problems: string[];
}

export interface ExecutedInstruction {
  programId: string;
  accounts: string[];
  data: Uint8Array;
  inner: boolean;
}

const keyText = (k: LeafKey | undefined): string => (k === undefined ? "" : typeof k === "string" ? k : bs58.encode(k));
const keyBytes = (k: LeafKey | undefined): Uint8Array => (k === undefined ? new Uint8Array(0) : typeof k === "string" ? bs58.decode(k) : k);
const dataBytes = (d: Uint8Array | string): Uint8Array => (typeof d === "string" ? bs58.decode(d) : d);

/** Calls `fn` on the top-level instructions, each followed by its inner ones: the order the runtime executed them. */
function walk(tx: LeafTransaction, fn: (ix: CompiledLeafInstruction, inner: boolean, position: number) => void): void {
  const inner = new Map<number, CompiledLeafInstruction[]>();
  for (const set of tx.innerInstructions ?? []) inner.set(set.index, [...(inner.get(set.index) ?? []), ...set.instructions]);
  let position = 0;
  tx.instructions.forEach((ix, i) => {
    fn(ix, false, position++);
    for (const cpi of inner.get(i) ?? []) fn(cpi, true, position++);
  });
}

/** Top-level instructions, each followed by its inner ones (the order the runtime executed them), every key in base58. */
export function executionOrder(tx: LeafTransaction): ExecutedInstruction[] {
  const out: ExecutedInstruction[] = [];
  walk(tx, (ix, inner) =>
    out.push({
      programId: keyText(tx.accountKeys[ix.programIdIndex]),
      accounts: Array.from(ix.accounts, (a) => keyText(tx.accountKeys[a])),
      data: dataBytes(ix.data),
      inner,
    }),
  );
  return out;
}

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);
const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

type Kind = "deposit" | "withdraw" | "revert";

function kindOf(d: Uint8Array): Kind | null {
  if (startsWith(d, INSTRUCTION_DISCRIMINATORS.deposit)) return "deposit";
  if (startsWith(d, INSTRUCTION_DISCRIMINATORS.withdraw) && d.length === WITHDRAW_DATA_SIZE) return "withdraw";
  if (startsWith(d, INSTRUCTION_DISCRIMINATORS.withdraw_swap) && d.length === WITHDRAW_SWAP_DATA_SIZE) return "withdraw";
  if (startsWith(d, INSTRUCTION_DISCRIMINATORS.revert)) return "revert";
  return null;
}

/** Which kind of instruction each event belongs to. */
const EVENT_KIND: Record<PoolEvent["name"], Kind> = {
  DepositEvent: "deposit",
  DepositFailedEvent: "deposit",
  WithdrawEvent: "withdraw",
  RevertEvent: "revert",
};

/** Which account keys are `key`, asked once per index. */
function keyMatcher(tx: LeafTransaction, key: string): (index: number | undefined) => boolean {
  const bytes = bs58.decode(key);
  const known = new Map<number, boolean>();
  return (index) => {
    if (index === undefined) return false;
    let is = known.get(index);
    if (is === undefined) {
      const k = tx.accountKeys[index];
      is = k === undefined ? false : typeof k === "string" ? k === key : equal(k, bytes);
      known.set(index, is);
    }
    return is;
  };
}

/** The event authority of each program id (a PDA search costs ~0.1 ms; a backfill asks once per transaction). */
const authorities = new Map<string, string>();
function eventAuthorityOf(programId: string): string {
  let a = authorities.get(programId);
  if (a === undefined) authorities.set(programId, (a = eventAuthorityAddress(programId)));
  return a;
}

/** One instruction of the pool program (not an event CPI), in execution order, with the events it emitted. */
interface PoolCall {
  position: number;
  inner: boolean;
  kind: Kind | null;
  compiled: CompiledLeafInstruction;
  data: Uint8Array;
  events: PoolEvent[];
}

interface ReadEvents {
  calls: PoolCall[];
  /** Where the events came from: event CPIs (one was seen), else the `Program data:` logs. */
  source: "cpi" | "log";
  /** Every event, in execution order, with the call it belongs to (null: none of its kind is left for it). */
  events: { event: PoolEvent; call: PoolCall | null }[];
  problems: string[];
}

/**
 * The pool's instructions and their events. With event CPIs, each event goes
 * to the nearest preceding pool instruction; without any (a transaction from
 * before them, or an RPC that gave no inner instructions), the program's
 * `Program data:` log lines, the k-th event of a kind to the k-th instruction
 * of that kind.
 */
function readEvents(tx: LeafTransaction, programId: string): ReadEvents {
  const isProgram = keyMatcher(tx, programId);
  const isAuthority = keyMatcher(tx, eventAuthorityOf(programId));
  const calls: PoolCall[] = [];
  const events: ReadEvents["events"] = [];
  const problems: string[] = [];
  let sawEventCpi = false;
  walk(tx, (compiled, inner, position) => {
    if (!isProgram(compiled.programIdIndex)) return;
    const data = dataBytes(compiled.data);
    // Only an inner instruction can be an event: a top-level one would have to be signed by the PDA, which nobody can.
    if (inner && startsWith(data, EVENT_IX_TAG) && isAuthority(compiled.accounts[0])) {
      sawEventCpi = true;
      const event = decodePoolEventInstruction(data);
      if (!event) return; // an event this reader does not know: it names no leaf
      const call = calls[calls.length - 1] ?? null;
      if (!call) problems.push(`instruction ${position}: a ${event.name} before any instruction of the program`);
      else call.events.push(event);
      events.push({ event, call });
      return;
    }
    calls.push({ position, inner, kind: kindOf(data), compiled, data, events: [] });
  });
  if (sawEventCpi) return { calls, source: "cpi", events, problems };

  const next: Record<Kind, number> = { deposit: 0, withdraw: 0, revert: 0 };
  const byKind: Record<Kind, PoolCall[]> = { deposit: [], withdraw: [], revert: [] };
  for (const c of calls) if (c.kind) byKind[c.kind].push(c);
  const counts: Record<Kind, number> = { deposit: 0, withdraw: 0, revert: 0 };
  for (const event of decodePoolEventLogs(tx.logMessages, programId)) {
    const kind = EVENT_KIND[event.name];
    counts[kind]++;
    const call = byKind[kind][next[kind]++] ?? null;
    if (call) call.events.push(event);
    events.push({ event, call });
  }
  if (counts.deposit > byKind.deposit.length) problems.push(`${counts.deposit} deposit events for ${byKind.deposit.length} deposit instructions`);
  if (counts.withdraw > byKind.withdraw.length) problems.push(`${counts.withdraw} WithdrawEvents for ${byKind.withdraw.length} withdraw instructions`);
  return { calls, source: "log", events, problems };
}

/** A pool event of a transaction, with the instruction it belongs to. */
export interface TransactionEvent {
  event: PoolEvent;
  /** Position in execution order of the pool instruction that emitted it; null when no instruction is left for it. */
  instruction: number | null;
  /** An event CPI (inner instruction data), or a `Program data:` log line (a transaction from before event CPIs). */
  source: "cpi" | "log";
}

/**
 * Every event `programId` emitted in `tx`, in execution order: from its event
 * CPIs, or (a transaction from before them) from its `Program data:` log
 * lines. The one way to read the pool's events: a failed transaction emitted
 * none (its CPIs are not reported; its logs may name events that were undone).
 */
export function poolEvents(tx: LeafTransaction, programId: string): TransactionEvent[] {
  if (tx.err !== null && tx.err !== undefined) return [];
  const read = readEvents(tx, programId);
  return read.events.map((e) => ({ event: e.event, instruction: e.call ? e.call.position : null, source: read.source }));
}

/** poolEvents() of a web3.js `getTransaction(…, { maxSupportedTransactionVersion: 0 })` answer: what wallets and tests read. */
export function poolEventsOfResponse(response: Parameters<typeof leafTransactionOfResponse>[0], programId: string): PoolEvent[] {
  return poolEvents(leafTransactionOfResponse(response), programId).map((e) => e.event);
}

/**
 * The leaves `programId` inserted in `tx`, in insertion order. A failed
 * transaction inserted none. Events as poolEvents() reads them; a deposit's
 * event must name its instruction's depositor and nonce, a WithdrawEvent its
 * instruction's nullifierHash and change commitment.
 *
 * `receipts`: receipt accounts the caller read (by address, owner checked),
 * for deposits whose event is missing: a receipt gives the deposit's leaf
 * (commitment and leafIndex) or says it inserted none (failed, reverted).
 */
export function insertedLeaves(tx: LeafTransaction, programId: string, receipts?: ReadonlyMap<string, DepositReceiptData>): TransactionLeaves {
  const result: TransactionLeaves = { leaves: [], unknownDeposits: [], problems: [] };
  if (tx.err !== null && tx.err !== undefined) return result;

  const read = readEvents(tx, programId);
  result.problems.push(...read.problems);
  const texts = new Map<number, string>();
  const textAt = (index: number | undefined): string => {
    if (index === undefined) return "";
    let t = texts.get(index);
    if (t === undefined) texts.set(index, (t = keyText(tx.accountKeys[index])));
    return t;
  };
  for (const call of read.calls) {
    const { compiled, data, position, inner, kind } = call;
    if (kind !== "deposit" && kind !== "withdraw") {
      for (const e of call.events)
        if (EVENT_KIND[e.name] !== kind) result.problems.push(`instruction ${position}: a ${e.name} from an instruction that is not a ${EVENT_KIND[e.name]}`);
      continue;
    }
    const tree = textAt(compiled.accounts[TREE_ACCOUNT_INDEX]);
    const mint = textAt(compiled.accounts[MINT_ACCOUNT_INDEX]);
    if (!tree || !mint) {
      result.problems.push(`instruction ${position}: a ${kind} with ${compiled.accounts.length} accounts`);
      continue;
    }
    const own = call.events.filter((e) => EVENT_KIND[e.name] === kind);
    if (own.length !== call.events.length || own.length > 1) {
      result.problems.push(`instruction ${position}: a ${kind} that emitted ${call.events.map((e) => e.name).join(", ")}`);
      continue;
    }
    const ev = own[0];
    if (kind === "deposit") {
      if (data.length !== DEPOSIT_DATA_SIZE) {
        result.problems.push(`instruction ${position}: a deposit with ${data.length} bytes of data`);
        continue;
      }
      const nonce = new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(DEPOSIT_NONCE_OFFSET, true);
      const depositorKey = tx.accountKeys[compiled.accounts[DEPOSITOR_ACCOUNT_INDEX] ?? -1];
      if (ev && (ev.name === "DepositEvent" || ev.name === "DepositFailedEvent")) {
        if (ev.nonce !== nonce || !equal(ev.depositor, keyBytes(depositorKey))) {
          result.problems.push(
            `instruction ${position}: ${ev.name} (depositor ${bs58.encode(ev.depositor)}, nonce ${ev.nonce}) is not the instruction's (depositor ${keyText(depositorKey)}, nonce ${nonce})`,
          );
        } else if (ev.name === "DepositEvent")
          result.leaves.push({
            kind: "deposit",
            tree,
            mint,
            instruction: position,
            inner,
            leafIndex: ev.leafIndex,
            commitment: ev.commitment,
            depositor: ev.depositor,
            amount: ev.amount,
            evented: true,
          });
        continue;
      }
      const unknown: UnknownDeposit = {
        tree,
        mint,
        instruction: position,
        receipt: textAt(compiled.accounts[RECEIPT_ACCOUNT_INDEX]),
        depositor: keyText(depositorKey),
        nonce,
      };
      const receipt = unknown.receipt ? receipts?.get(unknown.receipt) : undefined;
      if (!receipt) result.unknownDeposits.push(unknown);
      else fromReceipt(result, unknown, receipt, inner);
      continue;
    }
    const commitment = data.slice(CHANGE_COMMITMENT_OFFSET, CHANGE_COMMITMENT_OFFSET + 32);
    const nullifierHash = data.slice(NULLIFIER_HASH_OFFSET, NULLIFIER_HASH_OFFSET + 32);
    let leafIndex: number | null = null;
    if (ev) {
      const w = ev as WithdrawEvent;
      if (!equal(w.nullifierHash, nullifierHash) || !equal(w.changeCommitment, commitment)) {
        result.problems.push(
          `instruction ${position}: WithdrawEvent (nullifierHash ${hex(w.nullifierHash)}, change ${hex(w.changeCommitment)}) is not the instruction's (nullifierHash ${hex(nullifierHash)}, change ${hex(commitment)})`,
        );
      } else leafIndex = w.changeLeafIndex;
    }
    result.leaves.push({ kind: "change", tree, mint, instruction: position, inner, leafIndex, commitment, nullifierHash, evented: leafIndex !== null });
  }
  placeChangeLeaves(result);
  return result;
}

/** A deposit's leaf (or none) from its receipt, once the receipt is shown to be this deposit's. */
function fromReceipt(result: TransactionLeaves, u: UnknownDeposit, r: DepositReceiptData, inner: boolean): void {
  const mine = equal(r.mint, bs58.decode(u.mint)) && equal(r.depositor, bs58.decode(u.depositor)) && r.nonce === u.nonce;
  if (!mine) {
    result.problems.push(`instruction ${u.instruction}: receipt ${u.receipt} is not this deposit's (depositor ${u.depositor}, nonce ${u.nonce})`);
    return;
  }
  // A failed deposit inserted nothing (leafIndex none); a reverted one was a failed one first.
  if (r.leafIndex === null) return;
  result.leaves.push({
    kind: "deposit",
    tree: u.tree,
    mint: u.mint,
    instruction: u.instruction,
    inner,
    leafIndex: r.leafIndex,
    commitment: r.commitment,
    depositor: r.depositor,
    amount: r.amount,
    evented: false,
  });
}

/**
 * A change leaf without its event sits right after (or before) the leaf of
 * the same tree next to it in the transaction, unless a deposit whose event is
 * missing lies between (it may or may not have inserted one).
 */
function placeChangeLeaves(result: TransactionLeaves): void {
  const trees = new Set(result.leaves.map((l) => l.tree));
  for (const tree of trees) {
    const unknown = result.unknownDeposits.filter((u) => u.tree === tree).map((u) => u.instruction);
    const between = (a: number, b: number) => unknown.some((u) => u > a && u < b);
    const leaves = result.leaves.filter((l) => l.tree === tree);
    for (let i = 1; i < leaves.length; i++) {
      const prev = leaves[i - 1]!;
      const cur = leaves[i]!;
      if (cur.leafIndex === null && prev.leafIndex !== null && !between(prev.instruction, cur.instruction)) cur.leafIndex = prev.leafIndex + 1;
    }
    for (let i = leaves.length - 2; i >= 0; i--) {
      const cur = leaves[i]!;
      const next = leaves[i + 1]!;
      if (cur.leafIndex === null && next.leafIndex !== null && !between(cur.instruction, next.instruction)) cur.leafIndex = next.leafIndex - 1;
    }
    for (let i = 1; i < leaves.length; i++) {
      const a = leaves[i - 1]!.leafIndex;
      const b = leaves[i]!.leafIndex;
      if (a !== null && b !== null && b <= a) result.problems.push(`tree ${tree}: leaf ${b} follows leaf ${a} in the same transaction`);
    }
  }
}

// ------------------------------------------------------- reading RPC answers

/** An inner instruction as getTransaction gives it (data base58; web3.js and the JSON-RPC alike). */
interface RpcInnerInstruction {
  programIdIndex: number;
  accounts: readonly number[];
  data: string;
}

/** A key as web3.js gives it (PublicKey) or as the JSON-RPC does (base58). */
type Key = string | { toBytes(): Uint8Array };
const keyOf = (k: Key): LeafKey => (typeof k === "string" ? k : k.toBytes());

/**
 * A web3.js `getTransaction(…, { maxSupportedTransactionVersion: 0 })` answer
 * (VersionedTransactionResponse), or a legacy one, as a LeafTransaction.
 * Only the fields read here are required of it.
 */
export function leafTransactionOfResponse(response: {
  transaction: {
    message: {
      staticAccountKeys?: readonly Key[];
      accountKeys?: readonly Key[];
      compiledInstructions?: readonly { programIdIndex: number; accountKeyIndexes: readonly number[]; data: Uint8Array }[];
      instructions?: readonly { programIdIndex: number; accounts: readonly number[]; data: string }[];
    };
  };
  meta: {
    err: unknown;
    logMessages?: readonly string[] | null;
    innerInstructions?: readonly { index: number; instructions: readonly RpcInnerInstruction[] }[] | null;
    loadedAddresses?: { writable: readonly Key[]; readonly: readonly Key[] } | null;
  } | null;
}): LeafTransaction {
  const m = response.transaction.message;
  const staticKeys = (m.staticAccountKeys ?? m.accountKeys ?? []).map(keyOf);
  const loaded = response.meta?.loadedAddresses;
  const accountKeys = [...staticKeys, ...(loaded?.writable ?? []).map(keyOf), ...(loaded?.readonly ?? []).map(keyOf)];
  const instructions: CompiledLeafInstruction[] = m.compiledInstructions
    ? m.compiledInstructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: ix.accountKeyIndexes, data: ix.data }))
    : (m.instructions ?? []).map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: ix.data }));
  return {
    accountKeys,
    instructions,
    innerInstructions: innerOf(response.meta?.innerInstructions),
    logMessages: response.meta?.logMessages ?? null,
    err: response.meta ? response.meta.err : null,
  };
}

function innerOf(sets: readonly { index: number; instructions: readonly RpcInnerInstruction[] }[] | null | undefined): LeafTransaction["innerInstructions"] {
  if (!sets) return null;
  return sets.map((s) => ({
    index: s.index,
    instructions: s.instructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: ix.data })),
  }));
}

/**
 * A raw JSON-RPC `getTransaction` answer with `encoding: "base64"`: the
 * transaction's wire bytes (`transaction[0]`, decoded) and its meta. The
 * message is read from the bytes here (keys stay bytes, data stays a view);
 * loaded addresses come from the meta. Throws on anything malformed.
 */
export function leafTransactionOfWire(
  wire: Uint8Array,
  meta: { err: unknown; logMessages: readonly string[] | null; innerInstructions: unknown; loadedAddresses: unknown },
): LeafTransaction {
  const message = parseWireMessage(wire);
  const loaded = meta.loadedAddresses as { writable?: unknown; readonly?: unknown } | null | undefined;
  const keys = (v: unknown): string[] => {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || !v.every((k) => typeof k === "string")) throw new Error("loadedAddresses is not a list of base58 keys");
    return v as string[];
  };
  const inner = meta.innerInstructions;
  if (inner !== undefined && inner !== null && !isInnerList(inner)) throw new Error("innerInstructions is malformed");
  return {
    accountKeys: [...message.accountKeys, ...keys(loaded?.writable), ...keys(loaded?.readonly)],
    instructions: message.instructions,
    innerInstructions: innerOf(inner as readonly { index: number; instructions: readonly RpcInnerInstruction[] }[] | null | undefined),
    logMessages: meta.logMessages,
    err: meta.err,
  };
}

/**
 * A transaction's wire bytes (signatures, then a legacy or v0 message): the
 * message's static keys and compiled instructions. Address table lookups are
 * skipped (the meta's loadedAddresses name what they loaded).
 */
export function parseWireMessage(wire: Uint8Array): { accountKeys: Uint8Array[]; instructions: CompiledLeafInstruction[] } {
  let at = 0;
  const fail = (what: string): never => {
    throw new Error(`the transaction does not parse: ${what} at byte ${at} of ${wire.length}`);
  };
  const byte = (): number => (at < wire.length ? wire[at++]! : fail("truncated"));
  const compact = (): number => {
    let value = 0;
    for (let shift = 0; shift < 21; shift += 7) {
      const b = byte();
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return value;
    }
    return fail("a length longer than 3 bytes");
  };
  const take = (n: number): Uint8Array => (at + n <= wire.length ? wire.subarray(at, (at += n)) : fail("truncated"));
  take(64 * compact());
  const prefix = wire[at];
  if (prefix === undefined) fail("no message");
  if (prefix! & 0x80) {
    if ((prefix! & 0x7f) !== 0) fail(`message version ${prefix! & 0x7f}`);
    at++;
  }
  take(3); // header
  const accountKeys = Array.from({ length: compact() }, () => take(32));
  take(32); // recent blockhash
  const instructions = Array.from({ length: compact() }, (): CompiledLeafInstruction => {
    const programIdIndex = byte();
    const accounts = take(compact());
    const data = take(compact());
    return { programIdIndex, accounts, data };
  });
  return { accountKeys, instructions };
}

function isInnerList(v: unknown): boolean {
  const int = (x: unknown) => typeof x === "number" && Number.isInteger(x) && x >= 0;
  return (
    Array.isArray(v) &&
    v.every(
      (s) =>
        typeof s === "object" &&
        s !== null &&
        int((s as { index?: unknown }).index) &&
        Array.isArray((s as { instructions?: unknown }).instructions) &&
        (s as { instructions: unknown[] }).instructions.every(
          (ix) =>
            typeof ix === "object" &&
            ix !== null &&
            int((ix as { programIdIndex?: unknown }).programIdIndex) &&
            Array.isArray((ix as { accounts?: unknown }).accounts) &&
            (ix as { accounts: unknown[] }).accounts.every(int) &&
            typeof (ix as { data?: unknown }).data === "string",
        ),
    )
  );
}
