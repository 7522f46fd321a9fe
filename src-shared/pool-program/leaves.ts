/**
 * The leaves the pool program inserted in one landed transaction (protocol v3,
 * docs/pool-program.md): deposit leaves from their DepositEvent (the program
 * computes a deposit's leaf; a refused one logs DepositFailedEvent and inserts
 * nothing), and the change leaf of every `withdraw` / `withdraw_swap` of this
 * program, top-level or inner (CPI), read from the instruction's data
 * (changeCommitment @376 in both). Logs can be cut (the runtime's log limit) or
 * crowded out by other programs, so a change leaf never depends on them: its
 * WithdrawEvent only gives its leaf index and is checked against the data.
 *
 * Pure and free of any server or RPC client code: the indexer's chain reader
 * and the SDK's own chain reader both use it.
 */
import bs58 from "bs58";
import { startsWith } from "./borsh";
import { PROOF_SIZE } from "./constants";
import { INSTRUCTION_DISCRIMINATORS } from "./discriminators";
import { decodePoolEventLogs, type DepositEvent, type DepositFailedEvent, type WithdrawEvent } from "./events";
import { INSTRUCTION_DATA_SIZES, WITHDRAW_CHANGE_COMMITMENT_OFFSET } from "./instructions";

const CHANGE_COMMITMENT_OFFSET = WITHDRAW_CHANGE_COMMITMENT_OFFSET;
const WITHDRAW_DATA_SIZE = INSTRUCTION_DATA_SIZES.withdraw;
const WITHDRAW_SWAP_DATA_SIZE = INSTRUCTION_DATA_SIZES.withdraw_swap;
/** proof [u8;256] @8, root @264, nullifierHash @296 (withdraw and withdraw_swap alike). */
const NULLIFIER_HASH_OFFSET = 8 + PROOF_SIZE + 32;
/** deposit, withdraw and withdraw_swap all name the tree third (relayer|depositor, mint, tree, …). */
const TREE_ACCOUNT_INDEX = 2;
const MINT_ACCOUNT_INDEX = 1;

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
}

export interface ChangeLeaf extends LeafBase {
  kind: "change";
  /**
   * From the WithdrawEvent, or from a neighbouring leaf of the same tree in
   * this transaction; null when neither is there (the event was cut from the
   * logs and no other leaf of the transaction fixes it): the leaf then takes
   * the next index of its tree in transaction order.
   */
  leafIndex: number | null;
  nullifierHash: Uint8Array;
  /** Whether its WithdrawEvent was in the logs (and agreed with the instruction's data). */
  evented: boolean;
}

export type InsertedLeaf = DepositLeaf | ChangeLeaf;

export interface TransactionLeaves {
  /** In insertion order (per tree, leaf indexes ascend). */
  leaves: InsertedLeaf[];
  /**
   * Deposits of this program whose DepositEvent / DepositFailedEvent is missing
   * (logs cut): whether each inserted a leaf is unknown, so this transaction's
   * leaves of that tree are incomplete from that deposit on.
   */
  unknownDeposits: { tree: string; instruction: number }[];
  /**
   * Disagreements between the logs and the instructions (an event whose fields
   * are not its instruction's, more events than instructions): the program did
   * not log what it did, or the transaction was misread. A reader should not
   * index such a transaction.
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

type Kind = "deposit" | "withdraw";

function kindOf(d: Uint8Array): Kind | null {
  if (startsWith(d, INSTRUCTION_DISCRIMINATORS.deposit)) return "deposit";
  if (startsWith(d, INSTRUCTION_DISCRIMINATORS.withdraw) && d.length === WITHDRAW_DATA_SIZE) return "withdraw";
  if (startsWith(d, INSTRUCTION_DISCRIMINATORS.withdraw_swap) && d.length === WITHDRAW_SWAP_DATA_SIZE) return "withdraw";
  return null;
}

/** Which account keys are `programId`, asked once per index. */
function programMatcher(tx: LeafTransaction, programId: string): (index: number) => boolean {
  const bytes = bs58.decode(programId);
  const known = new Map<number, boolean>();
  return (index) => {
    let is = known.get(index);
    if (is === undefined) {
      const k = tx.accountKeys[index];
      is = k === undefined ? false : typeof k === "string" ? k === programId : equal(k, bytes);
      known.set(index, is);
    }
    return is;
  };
}

/**
 * The leaves `programId` inserted in `tx`, in insertion order. A failed
 * transaction inserted none. The k-th Deposit(Failed)Event of the program's
 * logs belongs to its k-th deposit instruction and the k-th WithdrawEvent to
 * its k-th withdrawal, in execution order (a cut log loses a suffix).
 */
export function insertedLeaves(tx: LeafTransaction, programId: string): TransactionLeaves {
  const result: TransactionLeaves = { leaves: [], unknownDeposits: [], problems: [] };
  if (tx.err !== null && tx.err !== undefined) return result;

  const events = decodePoolEventLogs(tx.logMessages, programId);
  const depositEvents = events.filter((e): e is DepositEvent | DepositFailedEvent => e.name === "DepositEvent" || e.name === "DepositFailedEvent");
  const withdrawEvents = events.filter((e): e is WithdrawEvent => e.name === "WithdrawEvent");
  let nextDeposit = 0;
  let nextWithdraw = 0;

  const isProgram = programMatcher(tx, programId);
  const texts = new Map<number, string>();
  const textAt = (index: number): string => {
    let t = texts.get(index);
    if (t === undefined) texts.set(index, (t = keyText(tx.accountKeys[index])));
    return t;
  };
  walk(tx, (compiled, inner, position) => {
    if (!isProgram(compiled.programIdIndex)) return;
    const data = dataBytes(compiled.data);
    const kind = kindOf(data);
    if (!kind) return;
    const treeAt = compiled.accounts[TREE_ACCOUNT_INDEX];
    const mintAt = compiled.accounts[MINT_ACCOUNT_INDEX];
    const tree = treeAt === undefined ? "" : textAt(treeAt);
    const mint = mintAt === undefined ? "" : textAt(mintAt);
    if (!tree || !mint) {
      result.problems.push(`instruction ${position}: a ${kind} with ${compiled.accounts.length} accounts`);
      return;
    }
    const ix = { data, inner };
    if (kind === "deposit") {
      const ev = depositEvents[nextDeposit++];
      if (!ev) result.unknownDeposits.push({ tree, instruction: position });
      else if (ev.name === "DepositEvent")
        result.leaves.push({
          kind: "deposit",
          tree,
          mint,
          instruction: position,
          inner: ix.inner,
          leafIndex: ev.leafIndex,
          commitment: ev.commitment,
          depositor: ev.depositor,
          amount: ev.amount,
        });
      return;
    }
    const commitment = ix.data.slice(CHANGE_COMMITMENT_OFFSET, CHANGE_COMMITMENT_OFFSET + 32);
    const nullifierHash = ix.data.slice(NULLIFIER_HASH_OFFSET, NULLIFIER_HASH_OFFSET + 32);
    const ev = withdrawEvents[nextWithdraw++];
    let leafIndex: number | null = null;
    if (ev) {
      if (!equal(ev.nullifierHash, nullifierHash) || !equal(ev.changeCommitment, commitment)) {
        result.problems.push(
          `instruction ${position}: WithdrawEvent (nullifierHash ${hex(ev.nullifierHash)}, change ${hex(ev.changeCommitment)}) is not the instruction's (nullifierHash ${hex(nullifierHash)}, change ${hex(commitment)})`,
        );
      } else leafIndex = ev.changeLeafIndex;
    }
    result.leaves.push({
      kind: "change",
      tree,
      mint,
      instruction: position,
      inner: ix.inner,
      leafIndex,
      commitment,
      nullifierHash,
      evented: leafIndex !== null,
    });
  });
  if (nextDeposit < depositEvents.length) result.problems.push(`${depositEvents.length} deposit events for ${nextDeposit} deposit instructions`);
  if (nextWithdraw < withdrawEvents.length) result.problems.push(`${withdrawEvents.length} WithdrawEvents for ${nextWithdraw} withdraw instructions`);
  placeChangeLeaves(result);
  return result;
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
