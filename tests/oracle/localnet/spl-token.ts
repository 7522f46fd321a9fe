/**
 * TEST ORACLE (the validator runs the real SPL Token program in LiteSVM).
 * An SPL Token subset (TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA): Transfer
 * (tag 3, amount u64; accounts source, destination, owner) and TransferChecked
 * (tag 12, amount u64, decimals u8; accounts source, mint, destination, owner)
 * between 165-byte token accounts. The owner must sign (delegates are not
 * supported). Checks, errors (TokenError codes) and log lines follow the real
 * program: frozen, mint mismatch, insufficient funds, decimals, owner, signer.
 *
 * Token accounts are read and written with the shared codec
 * (src-shared/pool-program: decodeTokenAccount / TOKEN_ACCOUNT_OFFSETS), mints
 * with the ledger's Mint layout (src-localnet/ledger/token.ts).
 */
import { PublicKey } from "@solana/web3.js";
import { bytesEqual } from "../../../src-shared/encoding/bytes";
import {
  TOKEN_ACCOUNT_OFFSETS,
  TOKEN_ACCOUNT_SIZE,
  TOKEN_PROGRAM_ID,
  decodeTokenAccount,
  encodeTokenAccount,
  publicKeyBytes,
  type TokenAccountData,
} from "../../../src-shared/pool-program";
import { decodeMint } from "../../../src-localnet/ledger/token";
import type { CompiledInstruction, ExecContext, InstructionAccount, Program } from "./types";
import { accountAt, builtinError, customError, invoke, isSigned, load, writeData } from "./runtime-helpers";

/** Units the real program spends (measured on mainnet, rounded). */
export const TOKEN_UNITS = { Transfer: 4_645, TransferChecked: 6_200, InitializeAccount3: 3_100 } as const;

/** TokenError codes (spl-token `error.rs`) and the text its PrintProgramError logs. */
export const TOKEN_ERRORS = {
  InsufficientFunds: { code: 1, log: "Error: insufficient funds" },
  InvalidMint: { code: 2, log: "Error: Invalid Mint" },
  MintMismatch: { code: 3, log: "Error: Account not associated with this Mint" },
  OwnerMismatch: { code: 4, log: "Error: owner does not match" },
  Overflow: { code: 14, log: "Error: Operation overflowed" },
  AccountFrozen: { code: 17, log: "Error: Account is frozen" },
  MintDecimalsMismatch: { code: 18, log: "Error: decimals different from the Mint decimals" },
} as const;
export type TokenErrorName = keyof typeof TOKEN_ERRORS;

function tokenError(ctx: ExecContext, name: TokenErrorName, detail: string) {
  const { code, log } = TOKEN_ERRORS[name];
  return customError(ctx, code, `${name}: ${detail}`, log);
}

// ------------------------------------------------------------ token accounts

export interface LoadedTokenAccount extends TokenAccountData {
  data: Uint8Array;
  frozen: boolean;
  native: boolean;
}

/** Reads a token account the token program owns in the transaction's view; null when it is anything else (missing, another owner, not initialized). */
export function loadTokenAccount(ctx: ExecContext, address: string): LoadedTokenAccount | null {
  const a = load(ctx, address);
  if (!a || a.owner !== TOKEN_PROGRAM_ID) return null;
  const d = decodeTokenAccount(a.data);
  if (!d.ok) return null;
  return {
    ...d.value,
    data: a.data,
    frozen: a.data[TOKEN_ACCOUNT_OFFSETS.state] === 2,
    native: a.data[TOKEN_ACCOUNT_OFFSETS.isNative] === 1,
  };
}

function requireTokenAccount(ctx: ExecContext, a: InstructionAccount): LoadedTokenAccount {
  const raw = load(ctx, a.address);
  if (!raw) throw builtinError("UninitializedAccount", `token account ${a.address} does not exist`);
  if (raw.owner !== TOKEN_PROGRAM_ID) throw builtinError("IncorrectProgramId", `${a.address} is not owned by the token program`);
  const t = loadTokenAccount(ctx, a.address);
  if (!t) {
    if (raw.data.length === TOKEN_ACCOUNT_SIZE && raw.data[TOKEN_ACCOUNT_OFFSETS.state] === 0)
      throw builtinError("UninitializedAccount", `${a.address} is not initialized`);
    throw builtinError("InvalidAccountData", `${a.address} is not a token account`);
  }
  return t;
}

function withAmount(data: Uint8Array, amount: bigint): Uint8Array {
  const out = data.slice();
  new DataView(out.buffer).setBigUint64(TOKEN_ACCOUNT_OFFSETS.amount, amount, true);
  return out;
}

const U64_MAX = (1n << 64n) - 1n;

export interface TokenTransfer {
  source: InstructionAccount;
  destination: InstructionAccount;
  /** The source's owner. */
  authority: InstructionAccount;
  amount: bigint;
  /** A PDA owner signing through its program (invoke_signed); otherwise the transaction's signature counts. */
  authoritySignedByProgram?: boolean;
  /** TransferChecked: the mint account and the decimals the caller expects. */
  checked?: { mint: InstructionAccount; decimals: number };
}

/** The token program's transfer logic (process_transfer). */
export function transferTokens(ctx: ExecContext, t: TokenTransfer): void {
  const src = requireTokenAccount(ctx, t.source);
  const dst = requireTokenAccount(ctx, t.destination);
  if (src.frozen || dst.frozen) throw tokenError(ctx, "AccountFrozen", "a token account is frozen");
  if (!bytesEqual(src.mint, dst.mint)) throw tokenError(ctx, "MintMismatch", "source and destination hold different mints");
  if (src.amount < t.amount) throw tokenError(ctx, "InsufficientFunds", `${t.source.address} holds ${src.amount}, needs ${t.amount}`);
  if (t.checked) {
    if (t.checked.mint.address !== new PublicKey(src.mint).toBase58()) throw tokenError(ctx, "MintMismatch", "the mint account is not the accounts' mint");
    const mintAccount = load(ctx, t.checked.mint.address);
    // A mint account the validator never created is not checked (tests may fund token accounts of bare mint addresses).
    if (mintAccount) {
      const mint = mintAccount.owner === TOKEN_PROGRAM_ID ? decodeMint(mintAccount.data) : null;
      if (!mint) throw tokenError(ctx, "InvalidMint", `${t.checked.mint.address} is not a mint`);
      if (mint.decimals !== t.checked.decimals)
        throw tokenError(ctx, "MintDecimalsMismatch", `the mint has ${mint.decimals} decimals, not ${t.checked.decimals}`);
    }
  }
  if (!bytesEqual(src.owner, publicKeyBytes(t.authority.address)))
    throw tokenError(ctx, "OwnerMismatch", `${t.authority.address} does not own ${t.source.address}`);
  if (!t.authoritySignedByProgram && !isSigned(ctx, t.authority)) {
    ctx.log(`Program log: Error: owner ${t.authority.address} did not sign`);
    throw builtinError("MissingRequiredSignature", `${t.authority.address} did not sign the transfer`);
  }
  if (t.source.address === t.destination.address) return;
  if (dst.amount + t.amount > U64_MAX) throw tokenError(ctx, "Overflow", "destination amount overflows");
  writeData(ctx, t.source, withAmount(src.data, src.amount - t.amount));
  writeData(ctx, t.destination, withAmount(dst.data, dst.amount + t.amount));
  if (src.native && t.amount > 0n) {
    // A native (wrapped SOL) account's tokens are its lamports above rent.
    const s = ctx.accounts.get(t.source.address)!;
    const d = ctx.accounts.get(t.destination.address)!;
    ctx.accounts.set(t.source.address, { ...s, lamports: s.lamports - t.amount });
    ctx.accounts.set(t.destination.address, { ...d, lamports: d.lamports + t.amount });
  }
}

/** The token program's transfer invoked by another program (the pool paying from its vault, a depositor paying in). */
export function transferTokensCpi(ctx: ExecContext, t: TokenTransfer): void {
  ctx.consumeUnits(TOKEN_UNITS.Transfer);
  invoke(ctx, TOKEN_PROGRAM_ID, () => {
    ctx.log("Program log: Instruction: Transfer");
    transferTokens(ctx, t);
  });
}

/**
 * InitializeAccount3 on an account already allocated with 165 bytes and
 * owned by the token program: sets mint and owner, amount 0.
 */
export function initializeTokenAccount(ctx: ExecContext, account: InstructionAccount, mint: string, owner: string): void {
  ctx.consumeUnits(TOKEN_UNITS.InitializeAccount3);
  invoke(ctx, TOKEN_PROGRAM_ID, () => {
    ctx.log("Program log: Instruction: InitializeAccount3");
    const mintAccount = load(ctx, mint);
    // As in transferTokens: a mint address with no account is accepted; anything else must be a mint.
    if (mintAccount && (mintAccount.owner !== TOKEN_PROGRAM_ID || !decodeMint(mintAccount.data))) {
      throw tokenError(ctx, "InvalidMint", `${mint} is not a mint`);
    }
    writeData(ctx, account, encodeTokenAccount({ mint: publicKeyBytes(mint), owner: publicKeyBytes(owner), amount: 0n }));
  });
}

// ------------------------------------------------------------------ program

export class TokenProgram implements Program {
  readonly id = TOKEN_PROGRAM_ID;
  readonly baseUnits = TOKEN_UNITS.Transfer;

  execute(ix: CompiledInstruction, ctx: ExecContext): void {
    const data = ix.data;
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    switch (data[0]) {
      case 3: {
        if (data.length !== 9) throw builtinError("InvalidInstructionData", "Transfer: expected 9 bytes of data");
        ctx.consumeUnits(TOKEN_UNITS.Transfer);
        ctx.log("Program log: Instruction: Transfer");
        transferTokens(ctx, {
          source: accountAt(ix.accounts, 0),
          destination: accountAt(ix.accounts, 1),
          authority: accountAt(ix.accounts, 2),
          amount: view.getBigUint64(1, true),
        });
        return;
      }
      case 12: {
        if (data.length !== 10) throw builtinError("InvalidInstructionData", "TransferChecked: expected 10 bytes of data");
        ctx.consumeUnits(TOKEN_UNITS.TransferChecked);
        ctx.log("Program log: Instruction: TransferChecked");
        transferTokens(ctx, {
          source: accountAt(ix.accounts, 0),
          destination: accountAt(ix.accounts, 2),
          authority: accountAt(ix.accounts, 3),
          amount: view.getBigUint64(1, true),
          checked: { mint: accountAt(ix.accounts, 1), decimals: data[9]! },
        });
        return;
      }
      default:
        throw builtinError("InvalidInstructionData", `token instruction ${String(data[0])} is not supported by the local validator`);
    }
  }
}
