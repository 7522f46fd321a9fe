/**
 * Wire transactions (legacy and v0) decoded with web3.js, sanitized, and the
 * facts the runtime needs: signatures and the signed message bytes, account
 * keys (static, then loaded from address lookup tables), which keys are
 * writable (after the runtime's demotion of invoked programs and reserved
 * keys), the compute budget and the fee.
 */
import { PublicKey, VersionedMessage, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import type { AccountState } from "./account";
import type { TransactionErrorJson } from "./errors";
import { instructionError } from "./errors";
import {
  ADDRESS_LOOKUP_TABLE_PROGRAM_ID,
  BPF_LOADER_UPGRADEABLE_ID,
  COMPUTE_BUDGET_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
} from "../../src-shared/pool-program/constants";

export const PACKET_DATA_SIZE = 1232;
export const LAMPORTS_PER_SIGNATURE = 5000n;
export const DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT = 200_000;
export const MAX_COMPUTE_UNIT_LIMIT = 1_400_000;

export { SYSTEM_PROGRAM_ID, COMPUTE_BUDGET_PROGRAM_ID, BPF_LOADER_UPGRADEABLE_ID };
export const NATIVE_LOADER_ID = "NativeLoader1111111111111111111111111111111";

/** Builtin programs: their logs carry no "consumed … compute units" line. */
export const BUILTIN_PROGRAM_IDS: ReadonlySet<string> = new Set([
  SYSTEM_PROGRAM_ID,
  COMPUTE_BUDGET_PROGRAM_ID,
  ADDRESS_LOOKUP_TABLE_PROGRAM_ID,
  "Vote111111111111111111111111111111111111111",
  "Stake11111111111111111111111111111111111111",
  "Config1111111111111111111111111111111111111",
  "BPFLoader1111111111111111111111111111111111",
  "BPFLoader2111111111111111111111111111111111",
  BPF_LOADER_UPGRADEABLE_ID,
  "LoaderV411111111111111111111111111111111111",
]);

/** Keys the runtime never lets a transaction write (agave's reserved account keys). */
const RESERVED_KEYS: ReadonlySet<string> = new Set([
  ...BUILTIN_PROGRAM_IDS,
  NATIVE_LOADER_ID,
  "Ed25519SigVerify111111111111111111111111111",
  "KeccakSecp256k11111111111111111111111111111",
  "Secp256r1SigVerify1111111111111111111111111",
  "ZkTokenProof1111111111111111111111111111111",
  "ZkE1Gama1Proof11111111111111111111111111111",
  "Feature111111111111111111111111111111111111",
  "SysvarC1ock11111111111111111111111111111111",
  "SysvarEpochRewards1111111111111111111111111",
  "SysvarEpochSchedu1e111111111111111111111111",
  "SysvarFees111111111111111111111111111111111",
  "Sysvar1nstructions1111111111111111111111111",
  "SysvarLastRestartS1ot1111111111111111111111",
  "SysvarRecentB1ockHashes11111111111111111111",
  "SysvarRent111111111111111111111111111111111",
  "SysvarRewards111111111111111111111111111111",
  "SysvarS1otHashes111111111111111111111111111",
  "SysvarS1otHistory11111111111111111111111111",
  "SysvarStakeHistory1111111111111111111111111",
]);

export interface RawInstruction {
  programIdIndex: number;
  accountIndexes: number[];
  data: Uint8Array;
}

export interface ComputeBudget {
  /** The requested limit (SetComputeUnitLimit), if any. */
  unitLimit: number | null;
  /** Micro-lamports per compute unit (SetComputeUnitPrice), 0 when absent. */
  unitPrice: bigint;
  /** The limit in force: requested, or 3 000 per builtin instruction and 200 000 per other (agave's defaults), capped at 1.4M. */
  effectiveLimit: number;
  /** A malformed or duplicated compute-budget instruction (the runtime refuses the transaction). */
  error: TransactionErrorJson | null;
}

/** Programs whose instructions reserve 3 000 compute units by default (agave's builtins not migrated to SBF); every other instruction reserves 200 000. */
const BUILTIN_DEFAULT_UNITS: ReadonlySet<string> = new Set([
  SYSTEM_PROGRAM_ID,
  COMPUTE_BUDGET_PROGRAM_ID,
  "Vote111111111111111111111111111111111111111",
  "BPFLoader1111111111111111111111111111111111",
  "BPFLoader2111111111111111111111111111111111",
  BPF_LOADER_UPGRADEABLE_ID,
  "LoaderV411111111111111111111111111111111111",
  "Ed25519SigVerify111111111111111111111111111",
  "KeccakSecp256k11111111111111111111111111111",
  "Secp256r1SigVerify1111111111111111111111111",
]);
export const BUILTIN_INSTRUCTION_COMPUTE_UNIT_LIMIT = 3_000;

export interface DecodedTransaction {
  wire: Uint8Array;
  version: "legacy" | 0;
  signatures: Uint8Array[];
  /** base58 signatures; [0] is the transaction's id. */
  signatureStrings: string[];
  signature: string;
  messageBytes: Uint8Array;
  header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
  staticKeys: string[];
  recentBlockhash: string;
  instructions: RawInstruction[];
  lookups: { accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
  computeBudget: ComputeBudget;
  /** Base fee + priority fee, lamports. */
  fee: bigint;
}

export class TransactionDecodeError extends Error {
  override name = "TransactionDecodeError";
}

function shortvecLength(bytes: Uint8Array): { value: number; size: number } {
  let value = 0;
  let size = 0;
  for (;;) {
    const b = bytes[size];
    if (b === undefined) throw new TransactionDecodeError("truncated length prefix");
    value |= (b & 0x7f) << (size * 7);
    size += 1;
    if ((b & 0x80) === 0) break;
    if (size > 3) throw new TransactionDecodeError("bad length prefix");
  }
  return { value, size };
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Parses a serialized transaction; throws TransactionDecodeError on anything a real node would refuse to deserialize or sanitize. */
export function decodeTransaction(wire: Uint8Array): DecodedTransaction {
  if (wire.length > PACKET_DATA_SIZE) {
    throw new TransactionDecodeError(`transaction too large: ${wire.length} bytes (max: ${PACKET_DATA_SIZE})`);
  }
  const { value: numSignatures, size } = shortvecLength(wire);
  const messageStart = size + 64 * numSignatures;
  if (messageStart >= wire.length) throw new TransactionDecodeError("truncated transaction");
  const messageBytes = wire.slice(messageStart);
  if (((messageBytes[0] ?? 0) & 0x80) !== 0 && ((messageBytes[0] ?? 0) & 0x7f) !== 0) {
    throw new TransactionDecodeError(`unsupported transaction version ${(messageBytes[0] ?? 0) & 0x7f}`);
  }
  let tx: VersionedTransaction;
  let message: VersionedMessage;
  try {
    tx = VersionedTransaction.deserialize(wire);
    message = tx.message;
  } catch (e) {
    throw new TransactionDecodeError(`failed to deserialize transaction: ${(e as Error).message}`);
  }
  // Trailing bytes or a non-canonical encoding: the signed bytes must be exactly the message.
  let reserialized: Uint8Array;
  try {
    reserialized = message.serialize();
  } catch (e) {
    throw new TransactionDecodeError(`failed to deserialize transaction: ${(e as Error).message}`);
  }
  if (!bytesEqual(reserialized, messageBytes)) throw new TransactionDecodeError("failed to deserialize transaction: trailing or non-canonical bytes");

  const version = message.version === "legacy" ? "legacy" : message.version === 0 ? 0 : null;
  if (version === null) throw new TransactionDecodeError(`unsupported transaction version ${String(message.version)}`);
  const header = { ...message.header };
  const staticKeys = message.staticAccountKeys.map((k) => k.toBase58());
  const lookups = message.addressTableLookups.map((l) => ({
    accountKey: l.accountKey.toBase58(),
    writableIndexes: [...l.writableIndexes],
    readonlyIndexes: [...l.readonlyIndexes],
  }));
  const numLoaded = lookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0);
  const numKeys = staticKeys.length + numLoaded;

  // Sanitize (solana-sdk Message::sanitize).
  if (header.numRequiredSignatures !== tx.signatures.length) {
    throw new TransactionDecodeError(`transaction has ${tx.signatures.length} signatures but its message requires ${header.numRequiredSignatures}`);
  }
  if (header.numRequiredSignatures === 0) throw new TransactionDecodeError("transaction requires a fee payer signature");
  if (header.numRequiredSignatures + header.numReadonlyUnsignedAccounts > staticKeys.length) throw new TransactionDecodeError("invalid message header");
  if (header.numReadonlySignedAccounts >= header.numRequiredSignatures)
    throw new TransactionDecodeError("invalid message header: the fee payer must be writable");
  if (new Set(staticKeys).size !== staticKeys.length) throw new TransactionDecodeError("transaction contains duplicate account keys (AccountLoadedTwice)");
  if (numKeys > 256) throw new TransactionDecodeError("too many account keys");
  const instructions: RawInstruction[] = message.compiledInstructions.map((ix) => ({
    programIdIndex: ix.programIdIndex,
    accountIndexes: [...ix.accountKeyIndexes],
    data: Uint8Array.from(ix.data),
  }));
  for (const ix of instructions) {
    // A program id must be a static key and not the fee payer.
    if (ix.programIdIndex === 0 || ix.programIdIndex >= staticKeys.length) throw new TransactionDecodeError("invalid program id index");
    for (const a of ix.accountIndexes) if (a >= numKeys) throw new TransactionDecodeError("invalid account index");
  }

  const signatureStrings = tx.signatures.map((s) => bs58.encode(s));
  const computeBudget = parseComputeBudget(staticKeys, instructions);
  return {
    wire,
    version,
    signatures: tx.signatures.map((s) => Uint8Array.from(s)),
    signatureStrings,
    signature: signatureStrings[0]!,
    messageBytes,
    header,
    staticKeys,
    recentBlockhash: message.recentBlockhash,
    instructions,
    lookups,
    computeBudget,
    fee: computeFee(header.numRequiredSignatures, computeBudget),
  };
}

/** Decodes a bare message (getFeeForMessage): what the fee depends on, and the blockhash. */
export function decodeMessageForFee(
  messageBytes: Uint8Array,
): Pick<DecodedTransaction, "fee" | "recentBlockhash" | "staticKeys" | "instructions" | "computeBudget" | "header"> {
  let message: VersionedMessage;
  try {
    message = VersionedMessage.deserialize(messageBytes);
  } catch (e) {
    throw new TransactionDecodeError(`failed to deserialize message: ${(e as Error).message}`);
  }
  const staticKeys = message.staticAccountKeys.map((k) => k.toBase58());
  const instructions = message.compiledInstructions.map((ix) => ({
    programIdIndex: ix.programIdIndex,
    accountIndexes: [...ix.accountKeyIndexes],
    data: Uint8Array.from(ix.data),
  }));
  const computeBudget = parseComputeBudget(staticKeys, instructions);
  return {
    fee: computeFee(message.header.numRequiredSignatures, computeBudget),
    recentBlockhash: message.recentBlockhash,
    staticKeys,
    instructions,
    computeBudget,
    header: { ...message.header },
  };
}

/** The fee the runtime charges: 5 000 lamports per signature plus ceil(unit price × unit limit / 10^6). */
export function computeFee(numSignatures: number, cb: ComputeBudget): bigint {
  const priority = (cb.unitPrice * BigInt(cb.effectiveLimit) + 999_999n) / 1_000_000n;
  return LAMPORTS_PER_SIGNATURE * BigInt(numSignatures) + priority;
}

/** ComputeBudget instructions: 1 RequestHeapFrame(u32), 2 SetComputeUnitLimit(u32), 3 SetComputeUnitPrice(u64), 4 SetLoadedAccountsDataSizeLimit(u32). */
export function parseComputeBudget(staticKeys: readonly string[], instructions: readonly RawInstruction[]): ComputeBudget {
  let unitLimit: number | null = null;
  let unitPrice: bigint | null = null;
  let error: TransactionErrorJson | null = null;
  const seen = new Set<number>();
  let defaultLimit = 0;
  instructions.forEach((ix, i) => {
    const program = staticKeys[ix.programIdIndex]!;
    defaultLimit += BUILTIN_DEFAULT_UNITS.has(program) ? BUILTIN_INSTRUCTION_COMPUTE_UNIT_LIMIT : DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT;
    if (program !== COMPUTE_BUDGET_PROGRAM_ID) return;
    if (error) return;
    const d = ix.data;
    const view = new DataView(d.buffer, d.byteOffset, d.byteLength);
    const kind = d[0];
    const expectedLength = kind === 1 || kind === 2 || kind === 4 ? 5 : kind === 3 ? 9 : -1;
    if (expectedLength < 0 || d.length !== expectedLength) {
      error = instructionError(i, "InvalidInstructionData");
      return;
    }
    if (seen.has(kind!)) {
      error = { DuplicateInstruction: i };
      return;
    }
    seen.add(kind!);
    if (kind === 2) unitLimit = view.getUint32(1, true);
    if (kind === 3) unitPrice = view.getBigUint64(1, true);
  });
  const effectiveLimit = Math.min(unitLimit ?? defaultLimit, MAX_COMPUTE_UNIT_LIMIT);
  return { unitLimit, unitPrice: unitPrice ?? 0n, effectiveLimit, error };
}

export interface ResolvedAccounts {
  /** Static keys, then loaded writable, then loaded readonly. */
  keys: string[];
  writable: boolean[];
  loaded: { writable: string[]; readonly: string[] };
}

/** Address lookup table account: 56 bytes of metadata, then 32-byte addresses. */
const LOOKUP_TABLE_META_SIZE = 56;

/** Resolves the account keys (address lookup tables read from `getAccount`) and their writability. */
export function resolveAccounts(
  tx: DecodedTransaction,
  getAccount: (address: string) => AccountState | null,
): { ok: true; value: ResolvedAccounts } | { ok: false; err: TransactionErrorJson } {
  const loadedWritable: string[] = [];
  const loadedReadonly: string[] = [];
  for (const lookup of tx.lookups) {
    const table = getAccount(lookup.accountKey);
    if (!table) return { ok: false, err: "AddressLookupTableNotFound" };
    if (table.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM_ID) return { ok: false, err: "InvalidAddressLookupTableOwner" };
    if (table.data.length < LOOKUP_TABLE_META_SIZE || (table.data.length - LOOKUP_TABLE_META_SIZE) % 32 !== 0) {
      return { ok: false, err: "InvalidAddressLookupTableData" };
    }
    const count = (table.data.length - LOOKUP_TABLE_META_SIZE) / 32;
    const at = (i: number) => new PublicKey(table.data.subarray(LOOKUP_TABLE_META_SIZE + 32 * i, LOOKUP_TABLE_META_SIZE + 32 * (i + 1))).toBase58();
    for (const i of lookup.writableIndexes) {
      if (i >= count) return { ok: false, err: "InvalidAddressLookupTableIndex" };
      loadedWritable.push(at(i));
    }
    for (const i of lookup.readonlyIndexes) {
      if (i >= count) return { ok: false, err: "InvalidAddressLookupTableIndex" };
      loadedReadonly.push(at(i));
    }
  }
  const keys = [...tx.staticKeys, ...loadedWritable, ...loadedReadonly];
  if (new Set(keys).size !== keys.length) return { ok: false, err: "AccountLoadedTwice" };
  const h = tx.header;
  const nStatic = tx.staticKeys.length;
  const invoked = new Set(tx.instructions.map((ix) => ix.programIdIndex));
  const upgradeableLoaderPresent = keys.includes(BPF_LOADER_UPGRADEABLE_ID);
  const writable = keys.map((key, i) => {
    let maybe: boolean;
    if (i < h.numRequiredSignatures) maybe = i < h.numRequiredSignatures - h.numReadonlySignedAccounts;
    else if (i < nStatic) maybe = i < nStatic - h.numReadonlyUnsignedAccounts;
    else maybe = i < nStatic + loadedWritable.length;
    if (!maybe) return false;
    if (RESERVED_KEYS.has(key)) return false;
    if (invoked.has(i) && !upgradeableLoaderPresent) return false;
    return true;
  });
  return { ok: true, value: { keys, writable, loaded: { writable: loadedWritable, readonly: loadedReadonly } } };
}
