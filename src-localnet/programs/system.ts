/**
 * The system program (11111111111111111111111111111111), the part web3.js's
 * SystemProgram.transfer and SystemProgram.createAccount use. Instruction
 * data: u32 LE tag, then CreateAccount (0) `lamports u64, space u64, owner
 * [32]` or Transfer (2) `lamports u64`. Errors and log lines are the real
 * program's (SystemError: 0 AccountAlreadyInUse, 1 ResultWithNegativeLamports,
 * 3 InvalidAccountDataLength).
 */
import { PublicKey } from "@solana/web3.js";
import { SYSTEM_PROGRAM_ID } from "../../src-shared/pool-program";
import type { CompiledInstruction, ExecContext, InstructionAccount, Program } from "../runtime/types";
import { accountAt, addLamports, builtinError, customError, invoke, isSigned, load } from "./runtime-helpers";

/** Largest account a CreateAccount may allocate (MAX_PERMITTED_DATA_LENGTH). */
export const MAX_ACCOUNT_DATA = 10 * 1024 * 1024;
/** What a system instruction costs (DEFAULT_COMPUTE_UNITS of the builtin). */
export const SYSTEM_UNITS = 150;

const SYSTEM_ERRORS = { AccountAlreadyInUse: 0, ResultWithNegativeLamports: 1, InvalidAccountDataLength: 3 } as const;

export class SystemProgram implements Program {
  readonly id = SYSTEM_PROGRAM_ID;
  readonly baseUnits = SYSTEM_UNITS;

  execute(ix: CompiledInstruction, ctx: ExecContext): void {
    const data = ix.data;
    if (data.length < 4) throw builtinError("InvalidInstructionData", "system instruction: no tag");
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const tag = view.getUint32(0, true);
    switch (tag) {
      case 0: {
        if (data.length !== 52) throw builtinError("InvalidInstructionData", `CreateAccount: expected 52 bytes of data, got ${data.length}`);
        const lamports = view.getBigUint64(4, true);
        const space = view.getBigUint64(12, true);
        const owner = new PublicKey(data.subarray(20, 52)).toBase58();
        const from = accountAt(ix.accounts, 0);
        const to = accountAt(ix.accounts, 1);
        if (!isSigned(ctx, from)) throw signatureMissing(ctx, "Create Account", from);
        if (!isSigned(ctx, to)) throw signatureMissing(ctx, "Create Account", to);
        createAccount(ctx, { from, to, lamports, space, owner });
        return;
      }
      case 2: {
        if (data.length !== 12) throw builtinError("InvalidInstructionData", `Transfer: expected 12 bytes of data, got ${data.length}`);
        const lamports = view.getBigUint64(4, true);
        const from = accountAt(ix.accounts, 0);
        const to = accountAt(ix.accounts, 1);
        if (!isSigned(ctx, from)) throw signatureMissing(ctx, "Transfer", from);
        transfer(ctx, { from, to, lamports });
        return;
      }
      default:
        throw builtinError("InvalidInstructionData", `system instruction ${tag} is not supported by the local validator`);
    }
  }
}

function signatureMissing(ctx: ExecContext, what: string, a: InstructionAccount) {
  ctx.log(`Program log: ${what}: account ${a.address} must sign`);
  return builtinError("MissingRequiredSignature", `${what}: ${a.address} did not sign`);
}

/** Transfer's rules: `from` is a plain wallet (system-owned, no data) holding the lamports. */
export function transfer(ctx: ExecContext, p: { from: InstructionAccount; to: InstructionAccount; lamports: bigint }): void {
  const from = load(ctx, p.from.address);
  if (from && from.data.length > 0) {
    ctx.log("Program log: Transfer: `from` must not carry data");
    throw builtinError("InvalidArgument", "Transfer: `from` must not carry data");
  }
  if (from && from.owner !== SYSTEM_PROGRAM_ID) throw builtinError("ExternalAccountLamportSpend", `Transfer: ${p.from.address} is not owned by the system program`);
  const have = from?.lamports ?? 0n;
  if (have < p.lamports) {
    throw customError(ctx, SYSTEM_ERRORS.ResultWithNegativeLamports, "insufficient lamports", `Transfer: insufficient lamports ${have}, need ${p.lamports}`);
  }
  if (p.from.address === p.to.address) {
    if (!p.from.isWritable) throw builtinError("ReadonlyLamportChange", `${p.from.address} is not writable`);
    return;
  }
  addLamports(ctx, p.from, -p.lamports);
  addLamports(ctx, p.to, p.lamports);
}

/**
 * CreateAccount's rules: `to` must not be in use (no lamports, no data, owned
 * by the system program), `from` pays `lamports`; `to` gets `space` zero bytes
 * and `owner`. Signatures are the caller's business (a PDA signs through its
 * program).
 */
export function createAccount(
  ctx: ExecContext,
  p: { from: InstructionAccount; to: InstructionAccount; lamports: bigint; space: bigint | number; owner: string },
): void {
  const existing = load(ctx, p.to.address);
  if (existing && (existing.lamports > 0n || existing.data.length > 0 || existing.owner !== SYSTEM_PROGRAM_ID)) {
    throw customError(ctx, SYSTEM_ERRORS.AccountAlreadyInUse, `${p.to.address} already in use`, `Create Account: account Address { address: ${p.to.address}, base: None } already in use`);
  }
  const space = BigInt(p.space);
  if (space > BigInt(MAX_ACCOUNT_DATA)) {
    throw customError(ctx, SYSTEM_ERRORS.InvalidAccountDataLength, "space too large", `Create Account: requested ${space} bytes, the maximum is ${MAX_ACCOUNT_DATA}`);
  }
  transfer(ctx, { from: p.from, to: p.to, lamports: p.lamports });
  if (!p.to.isWritable) throw builtinError("ReadonlyDataModified", `${p.to.address} is not writable`);
  const after = ctx.accounts.get(p.to.address);
  ctx.accounts.set(p.to.address, { lamports: after?.lamports ?? 0n, owner: p.owner, data: new Uint8Array(Number(space)), executable: false });
}

/**
 * Another program creating a rent-exempt account through the system program
 * (`invoke_signed` when `to` is its PDA), as Anchor's `init` does: `payer`
 * pays ctx.rentExempt(space). An address someone already sent lamports to
 * (a plain system account without data) is still taken: the payer tops it up
 * to the rent, then it is allocated and assigned, so prefunding a PDA cannot
 * block its creation. Returns what the payer paid.
 */
export function createRentExemptAccount(
  ctx: ExecContext,
  p: { payer: InstructionAccount; to: InstructionAccount; space: number; owner: string },
): bigint {
  const rent = ctx.rentExempt(p.space);
  const existing = load(ctx, p.to.address);
  if (existing && existing.lamports > 0n && existing.owner === SYSTEM_PROGRAM_ID && existing.data.length === 0) {
    const topUp = rent > existing.lamports ? rent - existing.lamports : 0n;
    if (topUp > 0n) {
      ctx.consumeUnits(SYSTEM_UNITS);
      invoke(ctx, SYSTEM_PROGRAM_ID, () => transfer(ctx, { from: p.payer, to: p.to, lamports: topUp }));
    }
    ctx.consumeUnits(2 * SYSTEM_UNITS);
    invoke(ctx, SYSTEM_PROGRAM_ID, () => setAccount(ctx, p.to, { data: new Uint8Array(p.space) })); // Allocate
    invoke(ctx, SYSTEM_PROGRAM_ID, () => setAccount(ctx, p.to, { owner: p.owner })); // Assign
    return topUp;
  }
  ctx.consumeUnits(SYSTEM_UNITS);
  invoke(ctx, SYSTEM_PROGRAM_ID, () => createAccount(ctx, { from: p.payer, to: p.to, lamports: rent, space: p.space, owner: p.owner }));
  return rent;
}

function setAccount(ctx: ExecContext, to: InstructionAccount, change: { data?: Uint8Array; owner?: string }): void {
  if (!to.isWritable) throw builtinError("ReadonlyDataModified", `${to.address} is not writable`);
  const cur = ctx.accounts.get(to.address)!;
  ctx.accounts.set(to.address, { ...cur, ...change });
}
