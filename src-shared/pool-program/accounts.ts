/**
 * The pool program's account layouts (docs/pool-program.md "Accounts") and
 * the SPL Token account layout. Codecs deal in bytes: public keys are 32 raw
 * bytes, field elements 32 bytes big-endian, u64/i64 as bigint.
 */
import { bytesEqual } from "../encoding/bytes";
import { isZeroBytes } from "../encoding/field";
import { ByteReader, ByteWriter, checkHeader } from "./borsh";
import {
  DEPOSIT_RECEIPT_SIZE,
  NO_LEAF_INDEX,
  NULLIFIER_ACCOUNT_SIZE,
  PROGRAM_DATA_HEADER_SIZE,
  ROOT_HISTORY_SIZE,
  TOKEN_ACCOUNT_SIZE,
  TREE_ACCOUNT_SIZE,
  TREE_DEPTH,
} from "./constants";
import { ACCOUNT_DISCRIMINATORS } from "./discriminators";
import { err, ok, type Result } from "../result";

// ---------------------------------------------------------------- TreeAccount

/** Byte offsets of TreeAccount's fields (the doc's table). The roots ring comes last: it is most of the account. */
export const TREE_ACCOUNT_OFFSETS = {
  discriminator: 0,
  mint: 8,
  authority: 40,
  nextIndex: 72,
  currentRootIndex: 76,
  filledSubtrees: 80,
  depositCount: 1104,
  totalDeposited: 1112,
  totalWithdrawn: 1120,
  createdSlot: 1128,
  minDeposit: 1136,
  bump: 1144,
  eventAuthorityBump: 1145,
  vaultBump: 1146,
  reserved: 1147,
  roots: 1160,
  mintField: 33160,
} as const;

export interface TreeAccountData {
  mint: Uint8Array;
  /** The relayer allowed to revert (initialize_pool's signer, the program's upgrade authority then). */
  authority: Uint8Array;
  nextIndex: number;
  /** Slot of `roots` holding the latest root. */
  currentRootIndex: number;
  /** The frontier, level 0..TREE_DEPTH-1. */
  filledSubtrees: Uint8Array[];
  /** Successful and failed deposits. */
  depositCount: bigint;
  /** Deposited amounts less reverted ones. */
  totalDeposited: bigint;
  totalWithdrawn: bigint;
  createdSlot: bigint;
  /** The least a deposit must bring into the vault (set at initialize_pool, at least 1). */
  minDeposit: bigint;
  bump: number;
  /** Canonical bump of the event authority PDA, with which the program signs its event CPIs. */
  eventAuthorityBump: number;
  /** Canonical bump of the vault PDA: the program checks the vault's address with one hash. */
  vaultBump: number;
  /** Ring of the last ROOT_HISTORY_SIZE roots, 32 bytes each; unused slots are zero. */
  roots: Uint8Array[];
  /**
   * F(mint) = Poseidon(hi, lo) of the mint (32 bytes big-endian), which deposits and withdrawals
   * read instead of hashing it; written by the extend_pool that completes the tree.
   */
  mintField: Uint8Array;
}

export function encodeTreeAccount(t: TreeAccountData): Uint8Array {
  if (t.roots.length !== ROOT_HISTORY_SIZE) throw new RangeError(`TreeAccount.roots: expected ${ROOT_HISTORY_SIZE} roots, got ${t.roots.length}`);
  if (t.filledSubtrees.length !== TREE_DEPTH) throw new RangeError(`TreeAccount.filledSubtrees: expected ${TREE_DEPTH} nodes, got ${t.filledSubtrees.length}`);
  if (t.currentRootIndex >= ROOT_HISTORY_SIZE) throw new RangeError(`TreeAccount.currentRootIndex: ${t.currentRootIndex} is outside the ring`);
  const w = new ByteWriter(TREE_ACCOUNT_SIZE)
    .raw(ACCOUNT_DISCRIMINATORS.TreeAccount, 8, "discriminator")
    .raw(t.mint, 32, "TreeAccount.mint")
    .raw(t.authority, 32, "TreeAccount.authority")
    .u32(t.nextIndex, "TreeAccount.nextIndex")
    .u32(t.currentRootIndex, "TreeAccount.currentRootIndex");
  t.filledSubtrees.forEach((n, i) => w.raw(n, 32, `TreeAccount.filledSubtrees[${i}]`));
  w.u64(t.depositCount, "TreeAccount.depositCount")
    .u64(t.totalDeposited, "TreeAccount.totalDeposited")
    .u64(t.totalWithdrawn, "TreeAccount.totalWithdrawn")
    .u64(t.createdSlot, "TreeAccount.createdSlot")
    .u64(t.minDeposit, "TreeAccount.minDeposit")
    .u8(t.bump, "TreeAccount.bump")
    .u8(t.eventAuthorityBump, "TreeAccount.eventAuthorityBump")
    .u8(t.vaultBump, "TreeAccount.vaultBump")
    .skip(13);
  t.roots.forEach((r, i) => w.raw(r, 32, `TreeAccount.roots[${i}]`));
  return w.raw(t.mintField, 32, "TreeAccount.mintField").finish();
}

/**
 * Decodes a full-size tree. A tree initialize_pool created but extend_pool
 * has not yet grown to TREE_ACCOUNT_SIZE is refused like any wrong size (the
 * program refuses it too).
 */
export function decodeTreeAccount(bytes: Uint8Array): Result<TreeAccountData, string> {
  const problem = checkHeader(bytes, "TreeAccount", TREE_ACCOUNT_SIZE, ACCOUNT_DISCRIMINATORS.TreeAccount);
  if (problem) return err(problem);
  const r = new ByteReader(bytes, 8);
  const mint = r.raw(32);
  const authority = r.raw(32);
  const nextIndex = r.u32();
  const currentRootIndex = r.u32();
  if (currentRootIndex >= ROOT_HISTORY_SIZE) return err(`TreeAccount: currentRootIndex ${currentRootIndex} is outside the ring of ${ROOT_HISTORY_SIZE}`);
  const filledSubtrees = Array.from({ length: TREE_DEPTH }, () => r.raw(32));
  const depositCount = r.u64();
  const totalDeposited = r.u64();
  const totalWithdrawn = r.u64();
  const createdSlot = r.u64();
  const minDeposit = r.u64();
  const bump = r.u8();
  const eventAuthorityBump = r.u8();
  const vaultBump = r.u8();
  r.skip(13);
  const roots = Array.from({ length: ROOT_HISTORY_SIZE }, () => r.raw(32));
  const mintField = r.raw(32);
  return ok({
    mint,
    authority,
    nextIndex,
    currentRootIndex,
    filledSubtrees,
    depositCount,
    totalDeposited,
    totalWithdrawn,
    createdSlot,
    minDeposit,
    bump,
    eventAuthorityBump,
    vaultBump,
    roots,
    mintField,
  });
}

/** roots[currentRootIndex]. */
export function currentRoot(t: TreeAccountData): Uint8Array {
  const root = t.roots[t.currentRootIndex];
  if (!root) throw new RangeError(`currentRootIndex ${t.currentRootIndex} is outside the ring`);
  return root;
}

/** A root is accepted when it equals any non-zero slot of the ring (a zero root never is). */
export function isKnownRoot(t: TreeAccountData, root: Uint8Array): boolean {
  if (root.length !== 32 || isZeroBytes(root)) return false;
  return t.roots.some((r) => bytesEqual(r, root));
}

/** The ring after a new root: the next slot (mod ROOT_HISTORY_SIZE) holds it and becomes current. */
export function pushRoot(t: TreeAccountData, root: Uint8Array): TreeAccountData {
  if (root.length !== 32) throw new RangeError("a root is 32 bytes");
  const currentRootIndex = (t.currentRootIndex + 1) % ROOT_HISTORY_SIZE;
  const roots = t.roots.map((r, i) => (i === currentRootIndex ? root.slice() : r));
  return { ...t, roots, currentRootIndex };
}

/** The ring's non-zero roots, oldest first, the current root last. */
export function rootsOldestFirst(t: TreeAccountData): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let k = 1; k <= ROOT_HISTORY_SIZE; k++) {
    const r = t.roots[(t.currentRootIndex + k) % ROOT_HISTORY_SIZE]!;
    if (!isZeroBytes(r)) out.push(r);
  }
  return out;
}

// -------------------------------------------------- ProgramData (upgradeable loader)

/** ProgramData's state tag: the loader's UpgradeableLoaderState::ProgramData. */
export const PROGRAM_DATA_STATE = 3;
/** Byte offsets in the ProgramData header: the upgrade authority is an Option<Pubkey>, its tag then its key. */
export const PROGRAM_DATA_OFFSETS = { state: 0, slot: 4, authorityTag: 12, authority: 13 } as const;

/** The upgradeable loader's ProgramData header (bincode): state u32 = 3, slot u64, upgrade authority Option<Pubkey>. */
export interface ProgramDataHeader {
  /** Slot of the last deployment. */
  slot: bigint;
  /** Who may upgrade the program (and initialize pools); null once dropped (the program is immutable). */
  upgradeAuthority: Uint8Array | null;
}

/** Reads a ProgramData account's header: state 3 @0, slot @4, option tag @12, authority @13..45. */
export function decodeProgramDataHeader(bytes: Uint8Array): Result<ProgramDataHeader, string> {
  if (!(bytes instanceof Uint8Array)) return err("ProgramData: not bytes");
  if (bytes.length < PROGRAM_DATA_HEADER_SIZE) return err(`ProgramData: ${bytes.length} bytes, shorter than its ${PROGRAM_DATA_HEADER_SIZE}-byte header`);
  const r = new ByteReader(bytes);
  const state = r.u32();
  if (state !== 3) return err(`ProgramData: state ${state}, not ProgramData (3)`);
  const slot = r.u64();
  const tag = r.u8();
  if (tag > 1) return err(`ProgramData: bad upgrade authority tag ${tag}`);
  return ok({ slot, upgradeAuthority: tag === 1 ? r.raw(32) : null });
}

/** The header for a ProgramData account (tests write it with setAccount to set or drop the upgrade authority). */
export function encodeProgramDataHeader(h: ProgramDataHeader): Uint8Array {
  const w = new ByteWriter(PROGRAM_DATA_HEADER_SIZE).u32(3, "ProgramData.state").u64(h.slot, "ProgramData.slot");
  // None: tag 0, then the loader leaves the authority's 32 bytes zero (the header stays 45 bytes).
  if (h.upgradeAuthority) w.u8(1, "ProgramData.authorityTag").raw(h.upgradeAuthority, 32, "ProgramData.upgradeAuthority");
  else w.skip(33);
  return w.finish();
}

// ----------------------------------------------------------- NullifierAccount

export type NullifierKind = "withdraw" | "revert";
/** The stored kind byte is the index in this list. */
export const NULLIFIER_KINDS: readonly NullifierKind[] = ["withdraw", "revert"];

export interface NullifierAccountData {
  mint: Uint8Array;
  /** A withdrawal's nullifierHash, or a deposit's revertNullifier for kind "revert". */
  nullifierHash: Uint8Array;
  kind: NullifierKind;
  slot: bigint;
}

export function encodeNullifierAccount(n: NullifierAccountData): Uint8Array {
  return new ByteWriter(NULLIFIER_ACCOUNT_SIZE)
    .raw(ACCOUNT_DISCRIMINATORS.NullifierAccount, 8, "discriminator")
    .raw(n.mint, 32, "NullifierAccount.mint")
    .raw(n.nullifierHash, 32, "NullifierAccount.nullifierHash")
    .u8(NULLIFIER_KINDS.indexOf(n.kind), "NullifierAccount.kind")
    .u64(n.slot, "NullifierAccount.slot")
    .finish();
}

export function decodeNullifierAccount(bytes: Uint8Array): Result<NullifierAccountData, string> {
  const problem = checkHeader(bytes, "NullifierAccount", NULLIFIER_ACCOUNT_SIZE, ACCOUNT_DISCRIMINATORS.NullifierAccount);
  if (problem) return err(problem);
  const r = new ByteReader(bytes, 8);
  const mint = r.raw(32);
  const nullifierHash = r.raw(32);
  const k = r.u8();
  const kind = NULLIFIER_KINDS[k];
  if (!kind) return err(`NullifierAccount: unknown kind ${k}`);
  return ok({ mint, nullifierHash, kind, slot: r.u64() });
}

// ------------------------------------------------------------- DepositReceipt

export type DepositReceiptStatus = "indexed" | "failed" | "reverted";
/** The stored status byte is the index in this list. */
export const RECEIPT_STATUSES: readonly DepositReceiptStatus[] = ["indexed", "failed", "reverted"];

/** Byte offsets of DepositReceipt's fields, after the 8-byte discriminator (packed Borsh). */
export const DEPOSIT_RECEIPT_OFFSETS = {
  mint: 8,
  depositor: 40,
  commitment: 72,
  amount: 104,
  nonce: 112,
  status: 120,
  leafIndex: 121,
  createdAt: 125,
  bump: 133,
} as const;

export interface DepositReceiptData {
  mint: Uint8Array;
  depositor: Uint8Array;
  /**
   * The leaf the program computed from the amount it moved,
   * Poseidon(precommitment, amount, mintField); 32 zero bytes when the
   * precommitment could not make one (zero, or not a field element).
   */
  commitment: Uint8Array;
  amount: bigint;
  nonce: bigint;
  status: DepositReceiptStatus;
  /** null when the commitment was not inserted (stored as 0xFFFFFFFF). */
  leafIndex: number | null;
  /** Unix seconds. */
  createdAt: bigint;
  bump: number;
}

export function encodeDepositReceipt(d: DepositReceiptData): Uint8Array {
  if (d.leafIndex === NO_LEAF_INDEX) throw new RangeError("DepositReceipt.leafIndex: 0xFFFFFFFF means none; pass null");
  return new ByteWriter(DEPOSIT_RECEIPT_SIZE)
    .raw(ACCOUNT_DISCRIMINATORS.DepositReceipt, 8, "discriminator")
    .raw(d.mint, 32, "DepositReceipt.mint")
    .raw(d.depositor, 32, "DepositReceipt.depositor")
    .raw(d.commitment, 32, "DepositReceipt.commitment")
    .u64(d.amount, "DepositReceipt.amount")
    .u64(d.nonce, "DepositReceipt.nonce")
    .u8(RECEIPT_STATUSES.indexOf(d.status), "DepositReceipt.status")
    .u32(d.leafIndex ?? NO_LEAF_INDEX, "DepositReceipt.leafIndex")
    .i64(d.createdAt, "DepositReceipt.createdAt")
    .u8(d.bump, "DepositReceipt.bump")
    .finish();
}

export function decodeDepositReceipt(bytes: Uint8Array): Result<DepositReceiptData, string> {
  const problem = checkHeader(bytes, "DepositReceipt", DEPOSIT_RECEIPT_SIZE, ACCOUNT_DISCRIMINATORS.DepositReceipt);
  if (problem) return err(problem);
  const r = new ByteReader(bytes, 8);
  const mint = r.raw(32);
  const depositor = r.raw(32);
  const commitment = r.raw(32);
  const amount = r.u64();
  const nonce = r.u64();
  const s = r.u8();
  const status = RECEIPT_STATUSES[s];
  if (!status) return err(`DepositReceipt: unknown status ${s}`);
  const li = r.u32();
  return ok({ mint, depositor, commitment, amount, nonce, status, leafIndex: li === NO_LEAF_INDEX ? null : li, createdAt: r.i64(), bump: r.u8() });
}

// ---------------------------------------------------------- SPL token account

/** Offsets in the 165-byte SPL Token account. */
export const TOKEN_ACCOUNT_OFFSETS = {
  mint: 0,
  owner: 32,
  amount: 64,
  delegate: 72,
  state: 108,
  isNative: 109,
  delegatedAmount: 121,
  closeAuthority: 129,
} as const;

/** Offsets in the 82-byte SPL Token mint that the pool reads. */
export const MINT_ACCOUNT_OFFSETS = { isInitialized: 45 } as const;

export interface TokenAccountData {
  mint: Uint8Array;
  owner: Uint8Array;
  amount: bigint;
}

/** An initialized account: no delegate, not native, no close authority. */
export function encodeTokenAccount(a: TokenAccountData): Uint8Array {
  return new ByteWriter(TOKEN_ACCOUNT_SIZE)
    .raw(a.mint, 32, "TokenAccount.mint")
    .raw(a.owner, 32, "TokenAccount.owner")
    .u64(a.amount, "TokenAccount.amount")
    .skip(36) // delegate: COption<Pubkey> None
    .u8(1, "TokenAccount.state") // Initialized
    .skip(12) // isNative: COption<u64> None
    .skip(8) // delegatedAmount 0
    .skip(36) // closeAuthority: COption<Pubkey> None
    .finish();
}

/** Reads mint, owner and amount of an initialized (or frozen) SPL token account. */
export function decodeTokenAccount(bytes: Uint8Array): Result<TokenAccountData, string> {
  if (!(bytes instanceof Uint8Array)) return err("TokenAccount: not bytes");
  if (bytes.length !== TOKEN_ACCOUNT_SIZE) return err(`TokenAccount: expected ${TOKEN_ACCOUNT_SIZE} bytes, got ${bytes.length}`);
  const state = bytes[TOKEN_ACCOUNT_OFFSETS.state]!;
  if (state !== 1 && state !== 2) return err(state === 0 ? "TokenAccount: not initialized" : `TokenAccount: unknown state ${state}`);
  const r = new ByteReader(bytes);
  return ok({ mint: r.raw(32), owner: r.raw(32), amount: r.u64() });
}
