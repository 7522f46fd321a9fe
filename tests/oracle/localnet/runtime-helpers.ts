/**
 * TEST ORACLE: what the TypeScript program models share: builtin and Anchor-style errors
 * with the log lines a real cluster writes, account reads and writes that
 * respect the instruction's writable flags, rent-paid account creation, and
 * the frames of a cross-program invocation in the logs.
 *
 * A "CPI" here is a plain function call into another program's logic (the
 * pool program paying from its vault calls the token program's transfer);
 * it logs `Program <id> invoke [2]` … `Program <id> success` like the real
 * runtime, charges that program's units, and fails the whole instruction
 * with the callee's error.
 */
import { SYSTEM_PROGRAM_ID } from "../../../src-shared/pool-program";
import { ProgramError, type AccountState, type ExecContext, type InstructionAccount } from "./types";

// ------------------------------------------------------------------ errors

/** A builtin InstructionError (the RPC shows its name as a string), e.g. "MissingRequiredSignature". */
export function builtinError(name: string, message: string): ProgramError {
  return new ProgramError(name, message);
}

/** A program's custom error: `{ Custom: code }`, with the log line `Program log: <logText>` when given. */
export function customError(ctx: ExecContext, code: number, message: string, logText?: string): ProgramError {
  if (logText !== undefined) ctx.log(`Program log: ${logText}`);
  return new ProgramError({ Custom: code }, message);
}

/** Anchor's framework errors the pool program can raise before its own rules run (anchor-lang ErrorCode). */
export const ANCHOR_ERRORS = {
  InstructionFallbackNotFound: { code: 101, message: "Fallback functions are not supported" },
  InstructionDidNotDeserialize: { code: 102, message: "The program could not deserialize the given instruction" },
  ConstraintMut: { code: 2000, message: "A mut constraint was violated" },
  ConstraintSeeds: { code: 2006, message: "A seeds constraint was violated" },
  ConstraintAssociated: { code: 2009, message: "An associated constraint was violated" },
  ConstraintAddress: { code: 2012, message: "An address constraint was violated" },
  ConstraintTokenMint: { code: 2014, message: "A token mint constraint was violated" },
  ConstraintTokenOwner: { code: 2015, message: "A token owner constraint was violated" },
  AccountDiscriminatorMismatch: { code: 3002, message: "8 byte discriminator did not match what was expected" },
  AccountDidNotDeserialize: { code: 3003, message: "Failed to deserialize the account" },
  AccountNotEnoughKeys: { code: 3005, message: "Not enough account keys given to the instruction" },
  AccountOwnedByWrongProgram: { code: 3007, message: "The given account is owned by a different program than expected" },
  InvalidProgramId: { code: 3008, message: "Program ID was not as expected" },
  AccountNotSigner: { code: 3010, message: "The given account did not sign" },
  AccountNotInitialized: { code: 3012, message: "The program expected this account to be already initialized" },
} as const;
export type AnchorErrorName = keyof typeof ANCHOR_ERRORS;

/** An Anchor framework error, logged as Anchor does (`AnchorError caused by account: …`). */
export function anchorError(ctx: ExecContext, name: AnchorErrorName, account?: string, detail?: string): ProgramError {
  const { code, message } = ANCHOR_ERRORS[name];
  const cause = account === undefined ? "AnchorError occurred." : `AnchorError caused by account: ${account}.`;
  ctx.log(`Program log: ${cause} Error Code: ${name}. Error Number: ${code}. Error Message: ${message}.`);
  return new ProgramError({ Custom: code }, detail ? `${name}: ${detail}` : account ? `${name} (${account})` : name);
}

// ---------------------------------------------------------------- accounts

/** An account of the instruction, by position, or NotEnoughAccountKeys. */
export function accountAt(accounts: readonly InstructionAccount[], index: number): InstructionAccount {
  const a = accounts[index];
  if (!a) throw builtinError("NotEnoughAccountKeys", `the instruction needs at least ${index + 1} accounts, got ${accounts.length}`);
  return a;
}

/** Signed by the transaction (the message's signer flag is the truth; a PDA signs only inside its program). */
export function isSigned(ctx: ExecContext, a: InstructionAccount): boolean {
  return a.isSigner && ctx.signers.has(a.address);
}

/** An account that exists: a real cluster shows an address with zero lamports as no account at all. */
export function load(ctx: ExecContext, address: string): AccountState | null {
  const a = ctx.accounts.get(address);
  return a && (a.lamports > 0n || a.data.length > 0) ? a : null;
}

/** Replaces an account's data (a copy is staged; what `get` returned is never mutated). */
export function writeData(ctx: ExecContext, a: InstructionAccount, data: Uint8Array): void {
  if (!a.isWritable) throw builtinError("ReadonlyDataModified", `${a.address} is not writable in this instruction`);
  const cur = ctx.accounts.get(a.address);
  if (!cur) throw builtinError("UninitializedAccount", `${a.address} does not exist`);
  ctx.accounts.set(a.address, { ...cur, data: data.slice() });
}

/** Adds (or with a negative delta, removes) lamports; the caller has checked the balance. */
export function addLamports(ctx: ExecContext, a: InstructionAccount, delta: bigint): void {
  if (delta === 0n) return;
  if (!a.isWritable) throw builtinError("ReadonlyLamportChange", `${a.address} is not writable in this instruction`);
  const cur = ctx.accounts.get(a.address) ?? { lamports: 0n, owner: SYSTEM_PROGRAM_ID, data: new Uint8Array(0), executable: false };
  const lamports = cur.lamports + delta;
  if (lamports < 0n) throw builtinError("InsufficientFunds", `${a.address} would go below zero lamports`);
  ctx.accounts.set(a.address, { ...cur, data: cur.data.slice(), lamports });
}

// --------------------------------------------------------------- CPI frames

/** The invocation depth per transaction context: a top-level instruction runs at 1. */
const depths = new WeakMap<ExecContext, number>();

/**
 * Runs `body` as a cross-program invocation of `programId`, with its log frame
 * at the right depth (`invoke [2]` from a top-level instruction, `[3]` from
 * inside a CPI). `body` must be synchronous.
 */
export function invoke<T>(ctx: ExecContext, programId: string, body: () => T): T {
  const outer = depths.get(ctx) ?? 1;
  depths.set(ctx, outer + 1);
  ctx.log(`Program ${programId} invoke [${outer + 1}]`);
  try {
    const out = body();
    ctx.log(`Program ${programId} success`);
    return out;
  } catch (e) {
    if (e instanceof ProgramError) ctx.log(`Program ${programId} failed: ${describeError(e.error)}`);
    throw e;
  } finally {
    depths.set(ctx, outer);
  }
}

/** How the runtime words an instruction error in `Program … failed: …`. */
export function describeError(error: ProgramError["error"]): string {
  if (typeof error === "string") return BUILTIN_TEXT[error] ?? error;
  return `custom program error: 0x${error.Custom.toString(16)}`;
}

const BUILTIN_TEXT: Record<string, string> = {
  MissingRequiredSignature: "missing required signature for instruction",
  InvalidArgument: "invalid program argument",
  InvalidInstructionData: "invalid instruction data",
  InvalidAccountData: "invalid account data for instruction",
  InsufficientFunds: "insufficient funds for instruction",
  IncorrectProgramId: "incorrect program id for instruction",
  NotEnoughAccountKeys: "insufficient account keys for instruction",
  InvalidSeeds: "Provided seeds do not result in a valid address",
  AccountNotRentExempt: "An account does not have enough lamports to be rent-exempt",
};
