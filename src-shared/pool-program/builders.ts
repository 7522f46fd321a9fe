/**
 * web3.js builders of the pool program's instructions (instructions.ts has their
 * data codec and account lists): every address a base58 string, byte values
 * Uint8Array, amounts bigint. Apart from the codec so that code which only
 * encodes (the sandbox) does not load web3.js.
 */
import { PublicKey, TransactionInstruction, type AccountMeta } from "@solana/web3.js";
import { Buffer } from "buffer";
import type { FieldHasher } from "../crypto/hasher";
import {
  associatedTokenAddress,
  commitmentMarkerAddress,
  depositReceiptAddress,
  eventAuthorityAddress,
  poolNullifierAddress,
  programDataAddress,
  poolTreeAddress,
  poolVaultAddress,
  publicKeyBytes,
  revertMarkerAddress,
  swapEscrowAddress,
} from "./addresses";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  MAX_PERMITTED_DATA_INCREASE,
  SYSTEM_PROGRAM_ID,
  SYSVAR_INSTRUCTIONS_ID,
  TOKEN_PROGRAM_ID,
  TREE_ACCOUNT_SIZE,
  TREE_INITIAL_SIZE,
} from "./constants";
import type { PoolInstructionName } from "./discriminators";
import {
  depositCommitment,
  encodePoolInstruction,
  EVENT_CPI_ACCOUNTS,
  POOL_INSTRUCTION_ACCOUNT_FLAGS,
  POOL_INSTRUCTION_ACCOUNTS,
  WITHDRAW_BASE_ACCOUNTS,
  type AccountFlags,
  type PoolInstruction,
  type PoolInstructionAccountName,
  type WithdrawArgs,
} from "./instructions";

function metas<N extends PoolInstructionName>(name: N, addresses: Record<PoolInstructionAccountName<N>, string>): AccountMeta[] {
  const flags = POOL_INSTRUCTION_ACCOUNT_FLAGS[name] as Record<string, AccountFlags>;
  const names: readonly PoolInstructionAccountName<N>[] = POOL_INSTRUCTION_ACCOUNTS[name];
  return names.map((n) => {
    const f = flags[n]!;
    return { pubkey: new PublicKey(addresses[n]), isWritable: f.isMut, isSigner: f.isSigner };
  });
}

function instruction(programId: string, keys: AccountMeta[], ix: PoolInstruction): TransactionInstruction {
  return new TransactionInstruction({ programId: new PublicKey(programId), keys, data: Buffer.from(encodePoolInstruction(ix)) });
}

// -------------------------------------------------------------- builders
// Every address is a base58 string; byte values are Uint8Array; amounts bigint.

/** The two accounts every event-emitting instruction ends its named accounts with. */
function eventCpiAddresses(programId: string): Record<(typeof EVENT_CPI_ACCOUNTS)[number], string> {
  return { eventAuthority: eventAuthorityAddress(programId), program: programId };
}

/**
 * initialize_pool alone: creates the tree at TREE_INITIAL_SIZE bytes, which
 * no instruction but extend_pool accepts until it has its full size. Use
 * {@link initializePoolInstructions} to get a usable pool in one transaction.
 * `authority` must be the program's upgrade authority (NotAuthority otherwise).
 */
export function initializePoolInstruction(p: { programId: string; authority: string; mint: string; minDeposit: bigint }): TransactionInstruction {
  return instruction(
    p.programId,
    metas("initialize_pool", {
      authority: p.authority,
      mint: p.mint,
      tree: poolTreeAddress(p.programId, p.mint),
      vault: poolVaultAddress(p.programId, p.mint),
      tokenProgram: TOKEN_PROGRAM_ID,
      systemProgram: SYSTEM_PROGRAM_ID,
      programData: programDataAddress(p.programId),
    }),
    { name: "initialize_pool", minDeposit: p.minDeposit },
  );
}

/** extend_pool: grows `mint`'s tree by up to MAX_PERMITTED_DATA_INCREASE bytes; `payer` tops up its rent. Anyone may send it. */
export function extendPoolInstruction(p: { programId: string; payer: string; mint: string }): TransactionInstruction {
  return instruction(
    p.programId,
    metas("extend_pool", { payer: p.payer, mint: p.mint, tree: poolTreeAddress(p.programId, p.mint), systemProgram: SYSTEM_PROGRAM_ID }),
    { name: "extend_pool" },
  );
}

/** How many extend_pool calls take a new tree from TREE_INITIAL_SIZE to TREE_ACCOUNT_SIZE. */
export const EXTEND_POOL_CALLS = Math.ceil((TREE_ACCOUNT_SIZE - TREE_INITIAL_SIZE) / MAX_PERMITTED_DATA_INCREASE);

/**
 * A usable pool in one transaction: initialize_pool, then extend_pool until
 * the tree has its full size (3 calls), all paid by `authority`.
 */
export function initializePoolInstructions(p: { programId: string; authority: string; mint: string; minDeposit: bigint }): TransactionInstruction[] {
  const extend = Array.from({ length: EXTEND_POOL_CALLS }, () => extendPoolInstruction({ programId: p.programId, payer: p.authority, mint: p.mint }));
  return [initializePoolInstruction(p), ...extend];
}

/**
 * deposit: the commitment marker account is the PDA of the leaf the program
 * computes ({@link depositCommitment}); the hasher only names that account.
 * For a precommitment that cannot make a leaf, the marker is never touched and
 * the PDA of the precommitment itself stands in.
 */
export function depositInstruction(p: {
  programId: string;
  depositor: string;
  mint: string;
  precommitment: Uint8Array;
  amount: bigint;
  nonce: bigint;
  hasher: FieldHasher;
}): TransactionInstruction {
  const commitment = depositCommitment(p.hasher, p.precommitment, p.amount, p.mint) ?? p.precommitment;
  return instruction(
    p.programId,
    metas("deposit", {
      depositor: p.depositor,
      mint: p.mint,
      tree: poolTreeAddress(p.programId, p.mint),
      vault: poolVaultAddress(p.programId, p.mint),
      depositorTokenAccount: associatedTokenAddress(p.depositor, p.mint),
      receipt: depositReceiptAddress(p.programId, p.mint, p.depositor, p.nonce),
      tokenProgram: TOKEN_PROGRAM_ID,
      systemProgram: SYSTEM_PROGRAM_ID,
      commitmentMarker: commitmentMarkerAddress(p.programId, p.mint, commitment),
      ...eventCpiAddresses(p.programId),
    }),
    { name: "deposit", precommitment: p.precommitment, amount: p.amount, nonce: p.nonce },
  );
}

export interface WithdrawParams {
  programId: string;
  relayer: string;
  mint: string;
  proof: Uint8Array;
  root: Uint8Array;
  nullifierHash: Uint8Array;
  recipient: string;
  amount: bigint;
  fee: bigint;
  /** The proof's change leaf (proveWithdrawal's changeCommitment). */
  changeCommitment: Uint8Array;
}

function withdrawAddresses(p: WithdrawParams): Record<PoolInstructionAccountName<"withdraw">, string> {
  return { ...withdrawBaseAddresses(p), ...eventCpiAddresses(p.programId) };
}

function withdrawBaseAddresses(p: WithdrawParams): Record<(typeof WITHDRAW_BASE_ACCOUNTS)[number], string> {
  return {
    relayer: p.relayer,
    mint: p.mint,
    tree: poolTreeAddress(p.programId, p.mint),
    vault: poolVaultAddress(p.programId, p.mint),
    nullifier: poolNullifierAddress(p.programId, p.mint, p.nullifierHash),
    recipient: p.recipient,
    recipientTokenAccount: associatedTokenAddress(p.recipient, p.mint),
    relayerTokenAccount: associatedTokenAddress(p.relayer, p.mint),
    tokenProgram: TOKEN_PROGRAM_ID,
    associatedTokenProgram: ASSOCIATED_TOKEN_PROGRAM_ID,
    systemProgram: SYSTEM_PROGRAM_ID,
  };
}

function withdrawArgs(p: WithdrawParams): WithdrawArgs {
  return {
    proof: p.proof,
    root: p.root,
    nullifierHash: p.nullifierHash,
    recipient: publicKeyBytes(p.recipient),
    amount: p.amount,
    fee: p.fee,
    changeCommitment: p.changeCommitment,
  };
}

export function withdrawInstruction(p: WithdrawParams): TransactionInstruction {
  return instruction(p.programId, metas("withdraw", withdrawAddresses(p)), { name: "withdraw", ...withdrawArgs(p) });
}

/**
 * withdraw_swap: withdraw's accounts, the swap escrow (PDA ["swap_escrow",
 * mint, nullifierHash], created by the program as a token account of
 * outputMint owned by itself), the recipient's output token account (ATA),
 * the output mint and the Instructions sysvar, then `venueAccounts` as given.
 * The route's output must go to the escrow. The same transaction must hold,
 * after it, exactly one {@link assertSwapOutInstruction} naming this relayer,
 * mint, escrow and nullifierHash, with minOut ≥ this minOut. `escrow`
 * overrides the derived address (only a test of the program's refusal wants that).
 */
export function withdrawSwapInstruction(
  p: WithdrawParams & { outputMint: string; minOut: bigint; escrow?: string; venueAccounts?: readonly AccountMeta[] },
): TransactionInstruction {
  const keys = metas("withdraw_swap", {
    ...withdrawAddresses(p),
    swapEscrow: p.escrow ?? swapEscrowAddress(p.programId, p.mint, p.nullifierHash),
    recipientOutputTokenAccount: associatedTokenAddress(p.recipient, p.outputMint),
    outputMint: p.outputMint,
    instructionsSysvar: SYSVAR_INSTRUCTIONS_ID,
  });
  return instruction(p.programId, [...keys, ...(p.venueAccounts ?? [])], {
    name: "withdraw_swap",
    ...withdrawArgs(p),
    outputMint: publicKeyBytes(p.outputMint),
    minOut: p.minOut,
  });
}

/**
 * The last instruction of a swap withdrawal: fails the transaction
 * (SwapOutputTooLow) when the escrow of (mint, nullifierHash) holds less than
 * `minOut`; else moves the escrow's whole balance to the recipient's output
 * token account and closes the escrow, rent to the relayer. `mint` is the
 * pool's (input) mint. `escrow` and `recipientOutputTokenAccount` override the
 * derived addresses (only tests of the program's refusals want that).
 */
export function assertSwapOutInstruction(p: {
  programId: string;
  relayer: string;
  mint: string;
  recipient: string;
  outputMint: string;
  minOut: bigint;
  nullifierHash: Uint8Array;
  escrow?: string;
  recipientOutputTokenAccount?: string;
}): TransactionInstruction {
  return instruction(
    p.programId,
    metas("assert_swap_out", {
      relayer: p.relayer,
      mint: p.mint,
      swapEscrow: p.escrow ?? swapEscrowAddress(p.programId, p.mint, p.nullifierHash),
      recipientOutputTokenAccount: p.recipientOutputTokenAccount ?? associatedTokenAddress(p.recipient, p.outputMint),
      tokenProgram: TOKEN_PROGRAM_ID,
    }),
    { name: "assert_swap_out", minOut: p.minOut, nullifierHash: p.nullifierHash },
  );
}

/**
 * revert: signed by the pool's authority; `revertNullifier` is
 * revertNullifierOfReceipt(hasher, bytes of the receipt address).
 */
export function revertInstruction(p: {
  programId: string;
  authority: string;
  mint: string;
  depositor: string;
  nonce: bigint;
  revertNullifier: Uint8Array;
}): TransactionInstruction {
  return instruction(
    p.programId,
    metas("revert", {
      authority: p.authority,
      mint: p.mint,
      tree: poolTreeAddress(p.programId, p.mint),
      vault: poolVaultAddress(p.programId, p.mint),
      depositor: p.depositor,
      depositorTokenAccount: associatedTokenAddress(p.depositor, p.mint),
      receipt: depositReceiptAddress(p.programId, p.mint, p.depositor, p.nonce),
      revertMarker: revertMarkerAddress(p.programId, p.mint, p.revertNullifier),
      tokenProgram: TOKEN_PROGRAM_ID,
      systemProgram: SYSTEM_PROGRAM_ID,
      ...eventCpiAddresses(p.programId),
    }),
    { name: "revert", nonce: p.nonce },
  );
}
