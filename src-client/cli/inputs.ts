import path from "node:path";
import { parsePublicKey } from "../../src-shared/encoding/base58";
import { Keypair, readKeypairFile } from "../sdk/keypair";
import { MAX_AMOUNT, loadNote, type DepositNote } from "../sdk/note";
import { Exit, type CliContext, type ExitCode } from "./context";
import { str, type ParsedValues } from "./spec";

/** A value or the exit code of the error already printed: commands return the code at once. */
export type Input<T> = { ok: true; value: T } | { ok: false; code: ExitCode };

const got = <T>(value: T): Input<T> => ({ ok: true, value });
const failed = (code: ExitCode): Input<never> => ({ ok: false, code });

export const resolvePath = (ctx: CliContext, file: string): string => path.resolve(ctx.io.cwd, file);

export function keypairInput(ctx: CliContext, values: ParsedValues): Input<Keypair> {
  const file = str(values, "keypair");
  if (!file) return failed(ctx.fail(Exit.Usage, "--keypair <file> is required (a Solana CLI keypair; make one with `keygen --out <file>`)"));
  const kp = readKeypairFile(resolvePath(ctx, file));
  return kp.ok ? got(kp.value) : failed(ctx.fail(Exit.LocalFile, kp.error));
}

/** --wallet <address>, or the address of --keypair: read-only commands need no secret. */
export function walletInput(ctx: CliContext, values: ParsedValues): Input<string> {
  const wallet = str(values, "wallet");
  if (wallet !== undefined) {
    return parsePublicKey(wallet).ok ? got(wallet) : failed(ctx.fail(Exit.Usage, `--wallet ${wallet} is not a base58 public key`));
  }
  if (str(values, "keypair") === undefined) return failed(ctx.fail(Exit.Usage, "give --keypair <file> or --wallet <address>"));
  const kp = keypairInput(ctx, values);
  return kp.ok ? got(kp.value.address) : kp;
}

export function mintInput(ctx: CliContext, values: ParsedValues): Input<string> {
  const mint = str(values, "mint");
  if (!mint) return failed(ctx.fail(Exit.Usage, "--mint <address> is required (the pool's token mint, base58)"));
  const parsed = parsePublicKey(mint);
  return parsed.ok ? got(mint) : failed(ctx.fail(Exit.Usage, `--mint ${mint}: ${parsed.error}`));
}

/** Base units as a decimal integer: a float or `1e6` would silently mean another amount. */
export function amountInput(ctx: CliContext, values: ParsedValues): Input<bigint> {
  const text = str(values, "amount");
  if (!text) return failed(ctx.fail(Exit.Usage, "--amount <base units> is required"));
  if (!/^[0-9]+$/.test(text)) return failed(ctx.fail(Exit.Usage, `--amount ${text} must be a whole number of base units (no decimals or exponents)`));
  const amount = BigInt(text);
  if (amount <= 0n || amount > MAX_AMOUNT) return failed(ctx.fail(Exit.Usage, `--amount must be from 1 to ${MAX_AMOUNT}`));
  return got(amount);
}

export async function noteInput(ctx: CliContext, values: ParsedValues): Promise<Input<DepositNote>> {
  const file = str(values, "note");
  if (!file) return failed(ctx.fail(Exit.Usage, "--note <file> is required (a note written by `deposit`)"));
  const note = await loadNote(resolvePath(ctx, file), await ctx.hasher());
  if (!note.ok) return failed(ctx.fail(Exit.LocalFile, note.error));
  // The note records its network; an explicit --network that disagrees is a mistake worth stopping on.
  if (ctx.networkGiven && ctx.network !== note.value.network) {
    return failed(ctx.fail(Exit.Usage, `the note is for ${note.value.network} but --network is ${ctx.network}`));
  }
  return got(note.value);
}
