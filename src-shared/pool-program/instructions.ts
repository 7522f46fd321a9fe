/**
 * The pool program's instructions (docs/pool-program.md "Instructions"):
 * data codec and account lists in order, without web3.js (the sandbox needs
 * only these); its builders are in builders.ts. In the data (PoolInstruction)
 * public keys are 32 raw bytes.
 */
import type { FieldHasher } from "../crypto/hasher";
import { computeLeaf } from "../crypto/protocol";
import { isCanonicalField, isZeroBytes } from "../encoding/field";
import { err, ok, type Result } from "../result";
import { publicKeyBytes } from "./addresses";
import { ByteReader, ByteWriter, startsWith } from "./borsh";
import { PROOF_SIZE } from "./constants";
import { INSTRUCTION_DISCRIMINATORS, POOL_INSTRUCTION_NAMES, type PoolInstructionName } from "./discriminators";

// ------------------------------------------------------------------- data

export interface InitializePoolInstruction {
  name: "initialize_pool";
  /** The least a deposit must bring into the vault; at least 1 (0 is InvalidInput). */
  minDeposit: bigint;
}
/** Grows a new pool's tree by up to MAX_PERMITTED_DATA_INCREASE bytes toward TREE_ACCOUNT_SIZE. */
export interface ExtendPoolInstruction {
  name: "extend_pool";
}
export interface DepositInstruction {
  name: "deposit";
  /**
   * Poseidon(nullifier, secret), chosen by the depositor (protocol v2). The
   * program computes the leaf Poseidon(precommitment, amount, mintField) from
   * the amount it moved; no leaf is ever taken from the depositor.
   */
  precommitment: Uint8Array;
  amount: bigint;
  nonce: bigint;
}
export interface WithdrawArgs {
  /** 256 bytes, the wire layout of src-shared/zk/proof-codec.ts. */
  proof: Uint8Array;
  root: Uint8Array;
  nullifierHash: Uint8Array;
  /** The recipient's public key, 32 bytes. */
  recipient: Uint8Array;
  /** The part of the note withdrawn (protocol v3); never 0. */
  amount: bigint;
  fee: bigint;
  /**
   * Protocol v3: the change leaf the program inserts after paying out, the 7th
   * public input; non-zero and below the field modulus. At data offset 376 in
   * both withdraw and withdraw_swap (WITHDRAW_CHANGE_COMMITMENT_OFFSET).
   */
  changeCommitment: Uint8Array;
}
export interface WithdrawInstruction extends WithdrawArgs {
  name: "withdraw";
}
export interface WithdrawSwapInstruction extends WithdrawArgs {
  name: "withdraw_swap";
  /** 32 bytes. */
  outputMint: Uint8Array;
  /** The least the recipient must receive of outputMint; bound by the proof (extDataHash). */
  minOut: bigint;
}
export interface AssertSwapOutInstruction {
  name: "assert_swap_out";
  /**
   * The least the swap escrow must hold when this instruction runs; withdraw_swap
   * requires it to be at least the proof's minOut.
   */
  minOut: bigint;
  /** withdraw_swap's nullifierHash: the escrow PDA's seed, checked equal by withdraw_swap. */
  nullifierHash: Uint8Array;
}
export interface RevertInstruction {
  name: "revert";
  nonce: bigint;
}

export type PoolInstruction =
  | InitializePoolInstruction
  | DepositInstruction
  | WithdrawInstruction
  | WithdrawSwapInstruction
  | AssertSwapOutInstruction
  | RevertInstruction
  | ExtendPoolInstruction;

/** Data length of each instruction, discriminator included. */
export const INSTRUCTION_DATA_SIZES: Record<PoolInstructionName, number> = {
  initialize_pool: 8 + 8,
  deposit: 8 + 32 + 8 + 8,
  withdraw: 8 + PROOF_SIZE + 32 + 32 + 32 + 8 + 8 + 32,
  withdraw_swap: 8 + PROOF_SIZE + 32 + 32 + 32 + 8 + 8 + 32 + 32 + 8,
  assert_swap_out: 8 + 8 + 32,
  revert: 8 + 8,
  extend_pool: 8,
};

/**
 * Where changeCommitment sits in the data of withdraw and withdraw_swap alike,
 * so the indexer reads a change leaf at one offset from either instruction.
 */
export const WITHDRAW_CHANGE_COMMITMENT_OFFSET = 8 + PROOF_SIZE + 32 + 32 + 32 + 8 + 8;

/** Offsets of the withdraw arguments in the data of withdraw and withdraw_swap (withdraw_swap's own two come last). */
export const WITHDRAW_ARGS_OFFSETS = {
  proof: 8,
  root: 8 + PROOF_SIZE,
  nullifierHash: 8 + PROOF_SIZE + 32,
  recipient: 8 + PROOF_SIZE + 64,
  amount: 8 + PROOF_SIZE + 96,
  fee: 8 + PROOF_SIZE + 104,
  changeCommitment: WITHDRAW_CHANGE_COMMITMENT_OFFSET,
  outputMint: WITHDRAW_CHANGE_COMMITMENT_OFFSET + 32,
  minOut: WITHDRAW_CHANGE_COMMITMENT_OFFSET + 64,
} as const;

/** Offsets of assert_swap_out's arguments in its data. */
export const ASSERT_SWAP_OUT_OFFSETS = { minOut: 8, nullifierHash: 16 } as const;

function writeWithdrawArgs(w: ByteWriter, a: WithdrawArgs): ByteWriter {
  return w
    .raw(a.proof, PROOF_SIZE, "proof")
    .raw(a.root, 32, "root")
    .raw(a.nullifierHash, 32, "nullifierHash")
    .raw(a.recipient, 32, "recipient")
    .u64(a.amount, "amount")
    .u64(a.fee, "fee")
    .raw(a.changeCommitment, 32, "changeCommitment");
}

function readWithdrawArgs(r: ByteReader): WithdrawArgs {
  return {
    proof: r.raw(PROOF_SIZE),
    root: r.raw(32),
    nullifierHash: r.raw(32),
    recipient: r.raw(32),
    amount: r.u64(),
    fee: r.u64(),
    changeCommitment: r.raw(32),
  };
}

/** The instruction's data: discriminator ‖ Borsh args. Throws RangeError on a field of the wrong size. */
export function encodePoolInstruction(ix: PoolInstruction): Uint8Array {
  const w = new ByteWriter(INSTRUCTION_DATA_SIZES[ix.name]).raw(INSTRUCTION_DISCRIMINATORS[ix.name], 8, "discriminator");
  switch (ix.name) {
    case "initialize_pool":
      w.u64(ix.minDeposit, "minDeposit");
      break;
    case "extend_pool":
      break;
    case "deposit":
      w.raw(ix.precommitment, 32, "precommitment").u64(ix.amount, "amount").u64(ix.nonce, "nonce");
      break;
    case "withdraw":
      writeWithdrawArgs(w, ix);
      break;
    case "withdraw_swap":
      writeWithdrawArgs(w, ix).raw(ix.outputMint, 32, "outputMint").u64(ix.minOut, "minOut");
      break;
    case "assert_swap_out":
      w.u64(ix.minOut, "minOut").raw(ix.nullifierHash, 32, "nullifierHash");
      break;
    case "revert":
      w.u64(ix.nonce, "nonce");
      break;
  }
  return w.finish();
}

/** Decodes an instruction's data; refuses an unknown discriminator and any length but the exact one. */
export function decodePoolInstruction(data: Uint8Array): Result<PoolInstruction, string> {
  if (!(data instanceof Uint8Array)) return err("instruction data: not bytes");
  if (data.length < 8) return err(`instruction data: truncated (${data.length} bytes, not even a discriminator)`);
  const name = POOL_INSTRUCTION_NAMES.find((n) => startsWith(data, INSTRUCTION_DISCRIMINATORS[n]));
  if (!name) return err("instruction data: unknown discriminator");
  const size = INSTRUCTION_DATA_SIZES[name];
  if (data.length !== size) return err(`${name}: expected ${size} bytes of data, got ${data.length}`);
  const r = new ByteReader(data, 8);
  switch (name) {
    case "initialize_pool":
      return ok({ name, minDeposit: r.u64() });
    case "extend_pool":
      return ok({ name });
    case "deposit":
      return ok({ name, precommitment: r.raw(32), amount: r.u64(), nonce: r.u64() });
    case "withdraw":
      return ok({ name, ...readWithdrawArgs(r) });
    case "withdraw_swap":
      return ok({ name, ...readWithdrawArgs(r), outputMint: r.raw(32), minOut: r.u64() });
    case "assert_swap_out":
      return ok({ name, minOut: r.u64(), nullifierHash: r.raw(32) });
    case "revert":
      return ok({ name, nonce: r.u64() });
  }
}

// -------------------------------------------------------------- accounts

export interface AccountFlags {
  isMut: boolean;
  isSigner: boolean;
}

/**
 * `programData` is the pool program's ProgramData account: its upgrade
 * authority alone may initialize a pool (NotAuthority otherwise).
 */
export const INITIALIZE_POOL_ACCOUNTS = ["authority", "mint", "tree", "vault", "tokenProgram", "systemProgram", "programData"] as const;
export const EXTEND_POOL_ACCOUNTS = ["payer", "mint", "tree", "systemProgram"] as const;
/**
 * Appended to the named accounts of every instruction that emits an event
 * (Anchor's `#[event_cpi]`): the event authority PDA, which the program signs
 * its event CPI with, and the program itself, which that CPI invokes.
 */
export const EVENT_CPI_ACCOUNTS = ["eventAuthority", "program"] as const;
export const DEPOSIT_ACCOUNTS = [
  "depositor",
  "mint",
  "tree",
  "vault",
  "depositorTokenAccount",
  "receipt",
  "tokenProgram",
  "systemProgram",
  "commitmentMarker",
  ...EVENT_CPI_ACCOUNTS,
] as const;
export const WITHDRAW_BASE_ACCOUNTS = [
  "relayer",
  "mint",
  "tree",
  "vault",
  "nullifier",
  "recipient",
  "recipientTokenAccount",
  "relayerTokenAccount",
  "tokenProgram",
  "associatedTokenProgram",
  "systemProgram",
] as const;
export const WITHDRAW_ACCOUNTS = [...WITHDRAW_BASE_ACCOUNTS, ...EVENT_CPI_ACCOUNTS] as const;
/**
 * Withdraw's accounts before the event CPI's two, then these four, then the
 * event CPI's two, then the swap venue's accounts (remaining accounts). v3: the
 * swap escrow takes the place v2 gave the relayer's output token account.
 */
export const WITHDRAW_SWAP_ACCOUNTS = [
  ...WITHDRAW_BASE_ACCOUNTS,
  "swapEscrow",
  "recipientOutputTokenAccount",
  "outputMint",
  "instructionsSysvar",
  ...EVENT_CPI_ACCOUNTS,
] as const;
export const ASSERT_SWAP_OUT_ACCOUNTS = ["relayer", "mint", "swapEscrow", "recipientOutputTokenAccount", "tokenProgram"] as const;
export const REVERT_ACCOUNTS = [
  "authority",
  "mint",
  "tree",
  "vault",
  "depositor",
  "depositorTokenAccount",
  "receipt",
  "revertMarker",
  "tokenProgram",
  "systemProgram",
  ...EVENT_CPI_ACCOUNTS,
] as const;

const W = { isMut: true, isSigner: false } as const;
const WS = { isMut: true, isSigner: true } as const;
const R = { isMut: false, isSigner: false } as const;

type Flags<T extends readonly string[]> = { readonly [K in T[number]]: AccountFlags };

const EVENT_CPI_FLAGS: Flags<typeof EVENT_CPI_ACCOUNTS> = { eventAuthority: R, program: R };

const WITHDRAW_FLAGS: Flags<typeof WITHDRAW_ACCOUNTS> = {
  relayer: WS,
  mint: R,
  tree: W,
  vault: W,
  nullifier: W,
  recipient: R,
  recipientTokenAccount: W,
  relayerTokenAccount: W,
  tokenProgram: R,
  associatedTokenProgram: R,
  systemProgram: R,
  ...EVENT_CPI_FLAGS,
};

/** Writable/signer flags of every named account (docs/pool-program.md's `w`/`s`). */
export const POOL_INSTRUCTION_ACCOUNT_FLAGS = {
  initialize_pool: {
    authority: WS,
    mint: R,
    tree: W,
    vault: W,
    tokenProgram: R,
    systemProgram: R,
    programData: R,
  } satisfies Flags<typeof INITIALIZE_POOL_ACCOUNTS>,
  deposit: {
    depositor: WS,
    mint: R,
    tree: W,
    vault: W,
    depositorTokenAccount: W,
    receipt: W,
    tokenProgram: R,
    systemProgram: R,
    commitmentMarker: W,
    ...EVENT_CPI_FLAGS,
  } satisfies Flags<typeof DEPOSIT_ACCOUNTS>,
  withdraw: WITHDRAW_FLAGS,
  withdraw_swap: {
    ...WITHDRAW_FLAGS,
    swapEscrow: W,
    recipientOutputTokenAccount: W,
    outputMint: R,
    instructionsSysvar: R,
  } satisfies Flags<typeof WITHDRAW_SWAP_ACCOUNTS>,
  assert_swap_out: { relayer: WS, mint: R, swapEscrow: W, recipientOutputTokenAccount: W, tokenProgram: R } satisfies Flags<typeof ASSERT_SWAP_OUT_ACCOUNTS>,
  revert: {
    authority: WS,
    mint: R,
    tree: W,
    vault: W,
    depositor: R,
    depositorTokenAccount: W,
    receipt: W,
    revertMarker: W,
    tokenProgram: R,
    systemProgram: R,
    ...EVENT_CPI_FLAGS,
  } satisfies Flags<typeof REVERT_ACCOUNTS>,
  extend_pool: { payer: WS, mint: R, tree: W, systemProgram: R } satisfies Flags<typeof EXTEND_POOL_ACCOUNTS>,
} as const;

/** Account names in order, per instruction. */
export const POOL_INSTRUCTION_ACCOUNTS = {
  initialize_pool: INITIALIZE_POOL_ACCOUNTS,
  deposit: DEPOSIT_ACCOUNTS,
  withdraw: WITHDRAW_ACCOUNTS,
  withdraw_swap: WITHDRAW_SWAP_ACCOUNTS,
  assert_swap_out: ASSERT_SWAP_OUT_ACCOUNTS,
  revert: REVERT_ACCOUNTS,
  extend_pool: EXTEND_POOL_ACCOUNTS,
} as const satisfies Record<PoolInstructionName, readonly string[]>;

export type PoolInstructionAccountName<N extends PoolInstructionName> = (typeof POOL_INSTRUCTION_ACCOUNTS)[N][number];

/**
 * Maps an instruction's accounts by name (the validator's view). Returns an
 * error when fewer accounts than named were passed; extra accounts (a swap's
 * venue accounts) come back in `remaining`.
 */
export function namePoolAccounts<N extends PoolInstructionName, A>(
  name: N,
  accounts: readonly A[],
): Result<{ named: Record<PoolInstructionAccountName<N>, A>; remaining: A[] }, string> {
  const names: readonly string[] = POOL_INSTRUCTION_ACCOUNTS[name];
  if (accounts.length < names.length) return err(`${name}: expected ${names.length} accounts, got ${accounts.length}`);
  const named: Record<string, A> = {};
  names.forEach((n, i) => (named[n] = accounts[i]!));
  return ok({ named: named as Record<PoolInstructionAccountName<N>, A>, remaining: accounts.slice(names.length) });
}

/**
 * The leaf the program will insert for a deposit of `amount` base units of
 * `mint` with this precommitment: Poseidon(precommitment, amount, mintField);
 * null when the precommitment is zero or not below the field modulus (the
 * deposit then fails, revertable, and no leaf exists).
 */
export function depositCommitment(hasher: FieldHasher, precommitment: Uint8Array, amount: bigint, mint: string): Uint8Array | null {
  if (precommitment.length !== 32 || isZeroBytes(precommitment) || !isCanonicalField(precommitment)) return null;
  return computeLeaf(hasher, precommitment, amount, publicKeyBytes(mint));
}
