/**
 * The associated token account program (ASSOCIATED_TOKEN_PROGRAM_ID of the
 * codec): Create (data empty or [0]) and CreateIdempotent ([1]). Accounts:
 * payer (w,s), associated account (w), wallet, mint, system program, token
 * program. Creates the 165-byte token account owned by the token program at
 * PDA([wallet, TOKEN_PROGRAM_ID, mint]), rent paid by the payer; the
 * idempotent form accepts an existing account of that wallet and mint.
 */
import { bytesEqual } from "../../src-shared/encoding/bytes";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  TOKEN_ACCOUNT_SIZE,
  TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  publicKeyBytes,
} from "../../src-shared/pool-program";
import type { CompiledInstruction, ExecContext, InstructionAccount, Program } from "../runtime/types";
import { accountAt, builtinError, customError, invoke, isSigned, load } from "./runtime-helpers";
import { initializeTokenAccount, loadTokenAccount } from "./spl-token";
import { createRentExemptAccount } from "./system";

/** Units of the program's own work (derivation, checks); the system and token CPIs add theirs. */
export const ATA_UNITS = { create: 14_000, existing: 3_500 } as const;

export interface CreateAssociatedTokenAccount {
  payer: InstructionAccount;
  account: InstructionAccount;
  wallet: string;
  mint: string;
  idempotent: boolean;
  /** True when the payer signs through its program (a PDA); otherwise the transaction's signature counts. */
  payerSignedByProgram?: boolean;
}

/** The program's logic. Returns true when it created the account. */
export function createAssociatedTokenAccount(ctx: ExecContext, p: CreateAssociatedTokenAccount): boolean {
  if (!p.payerSignedByProgram && !isSigned(ctx, p.payer)) throw builtinError("MissingRequiredSignature", `the payer ${p.payer.address} did not sign`);
  if (associatedTokenAddress(p.wallet, p.mint) !== p.account.address) {
    ctx.log("Program log: Associated address does not match seed derivation");
    throw builtinError("InvalidSeeds", `${p.account.address} is not the associated token account of ${p.wallet} for ${p.mint}`);
  }
  const existing = load(ctx, p.account.address);
  if (existing && p.idempotent && existing.owner === TOKEN_PROGRAM_ID) {
    ctx.consumeUnits(ATA_UNITS.existing);
    const t = loadTokenAccount(ctx, p.account.address);
    if (!t) throw builtinError("InvalidAccountData", `${p.account.address} is not a token account`);
    if (!bytesEqual(t.owner, publicKeyBytes(p.wallet))) {
      // AssociatedTokenAccountError::InvalidOwner
      throw customError(ctx, 0, "the associated token account's owner does not match", "Error: Associated token account owner does not match address derivation");
    }
    if (!bytesEqual(t.mint, publicKeyBytes(p.mint))) throw builtinError("InvalidAccountData", `${p.account.address} holds another mint`);
    return false;
  }
  ctx.consumeUnits(ATA_UNITS.create);
  ctx.log("Program log: Create");
  createRentExemptAccount(ctx, { payer: p.payer, to: p.account, space: TOKEN_ACCOUNT_SIZE, owner: TOKEN_PROGRAM_ID });
  ctx.log("Program log: Initialize the associated token account");
  initializeTokenAccount(ctx, p.account, p.mint, p.wallet);
  return true;
}

/** The program invoked by another program (the pool creating a recipient's account). */
export function createAssociatedTokenAccountCpi(ctx: ExecContext, p: CreateAssociatedTokenAccount): boolean {
  return invoke(ctx, ASSOCIATED_TOKEN_PROGRAM_ID, () => createAssociatedTokenAccount(ctx, p));
}

export class AssociatedTokenProgram implements Program {
  readonly id = ASSOCIATED_TOKEN_PROGRAM_ID;
  readonly baseUnits = ATA_UNITS.existing;

  execute(ix: CompiledInstruction, ctx: ExecContext): void {
    const tag = ix.data.length === 0 ? 0 : ix.data[0];
    if (ix.data.length > 1 || (tag !== 0 && tag !== 1)) throw builtinError("InvalidInstructionData", "associated token instruction: only Create and CreateIdempotent are supported");
    const system = accountAt(ix.accounts, 4);
    const token = accountAt(ix.accounts, 5);
    if (system.address !== SYSTEM_PROGRAM_ID || token.address !== TOKEN_PROGRAM_ID) throw builtinError("IncorrectProgramId", "the system and token programs are expected at accounts 4 and 5");
    createAssociatedTokenAccount(ctx, {
      payer: accountAt(ix.accounts, 0),
      account: accountAt(ix.accounts, 1),
      wallet: accountAt(ix.accounts, 2).address,
      mint: accountAt(ix.accounts, 3).address,
      idempotent: tag === 1,
    });
  }
}
