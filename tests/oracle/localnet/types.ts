/**
 * TEST ORACLE: the seam of the TypeScript program models (test-kit.ts runs
 * them). The validator runs SBF programs in LiteSVM and uses none of this.
 * Addresses are base58 strings throughout.
 */

import type { AccountState } from "../../../src-localnet/ledger/account";

export type { AccountState };

export interface InstructionAccount {
  address: string;
  isSigner: boolean;
  isWritable: boolean;
}

export interface CompiledInstruction {
  programId: string;
  accounts: InstructionAccount[];
  data: Uint8Array;
}

/**
 * A transaction's working view of the accounts. Writes are staged and applied
 * by the ledger only if every instruction succeeds, so a failed transaction
 * changes nothing but the fee payer's fee.
 */
export interface AccountView {
  get(address: string): AccountState | null;
  /** Stages a write (a fresh object; callers do not mutate what `get` returned). */
  set(address: string, account: AccountState): void;
  /** Stages a deletion (account closed). */
  delete(address: string): void;
}

export interface ExecContext {
  slot: number;
  /** Unix seconds of the slot. */
  unixTime: number;
  /** Signers of the transaction. */
  signers: ReadonlySet<string>;
  feePayer: string;
  /** The transaction's signature (base58): programs must not depend on it for rules; it is for logs. */
  signature: string;
  accounts: AccountView;
  /** Appends a log line exactly as it appears in meta.logMessages (e.g. "Program log: …", "Program data: …"). */
  log(line: string): void;
  /** Charges compute units; throws ProgramError ComputationalBudgetExceeded past the limit. */
  consumeUnits(units: number): void;
  /** Rent-exempt minimum for an account of `size` data bytes: (128 + size) × 6960 lamports, as the real cluster. */
  rentExempt(size: number): bigint;
}

/** A program's failure: becomes `meta.err = { InstructionError: [index, error] }`. */
export class ProgramError extends Error {
  constructor(
    /** The JSON the RPC shows: `{ Custom: 6002 }`, or a builtin name like "InvalidArgument", "InsufficientFunds", "MissingRequiredSignature". */
    readonly error: { Custom: number } | string,
    message: string,
  ) {
    super(message);
    this.name = "ProgramError";
  }
}

export interface Program {
  readonly id: string;
  /** Units a successful instruction of this program costs when it does not charge its own. */
  readonly baseUnits: number;
  execute(ix: CompiledInstruction, ctx: ExecContext): Promise<void> | void;
}
