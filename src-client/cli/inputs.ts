import path from "node:path";
import { parsePublicKey } from "../../src-shared/encoding/base58";
import { DEFAULT_POOL_PROGRAM_ID } from "../../src-shared/pool-program";
import { parseRpcUrl } from "../sdk/chain";
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

/** --rpc <url>: a Solana JSON-RPC endpoint (the local validator, a cluster); undefined when not given. */
export function rpcInput(ctx: CliContext, values: ParsedValues): Input<string | undefined> {
  const text = str(values, "rpc");
  if (text === undefined) return got(undefined);
  const url = parseRpcUrl(text);
  return url ? got(url) : failed(ctx.fail(Exit.Usage, `--rpc ${text} is not an http(s) URL (the JSON-RPC endpoint, e.g. http://127.0.0.1:8899)`));
}

/** --program <id>: the pool program; DEFAULT_POOL_PROGRAM_ID when not given. */
export function programInput(ctx: CliContext, values: ParsedValues): Input<string> {
  const text = str(values, "program");
  if (text === undefined) return got(DEFAULT_POOL_PROGRAM_ID);
  const parsed = parsePublicKey(text);
  return parsed.ok ? got(text) : failed(ctx.fail(Exit.Usage, `--program ${text}: ${parsed.error}`));
}

/** A whole number of base units from the flag `name` (0 allowed when `min` is 0n); undefined when not given. */
export function unitsInput(ctx: CliContext, values: ParsedValues, name: string, min = 1n): Input<bigint | undefined> {
  const text = str(values, name);
  if (text === undefined) return got(undefined);
  if (!/^[0-9]+$/.test(text)) return failed(ctx.fail(Exit.Usage, `--${name} ${text} must be a whole number (no decimals or exponents)`));
  const n = BigInt(text);
  if (n < min || n > MAX_AMOUNT) return failed(ctx.fail(Exit.Usage, `--${name} must be from ${min} to ${MAX_AMOUNT}`));
  return got(n);
}
