/**
 * Each pool's minimum deposit (issue 25): initialize_pool stores it and the
 * program refuses a smaller deposit (DepositBelowMinimum, 6016). It prices
 * flushing the 1,000-root ring, which takes 1,000 deposits: at 0.01 SOL that
 * is 10 SOL parked in the pool, 1,000 USDC at 1 USDC (the tokens stay the
 * attacker's, revertible only when a deposit failed; withdrawing them pays
 * the relay fee and the network fees). Low enough for any real deposit.
 */
import { NATIVE_MINT } from "../../src-shared/pool-program";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const USDT = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB";

/** pool:init's and the local demo's minimum per known mint, base units: 0.01 SOL of wrapped SOL, 1 USDC, 1 USDT. */
export const DEFAULT_MIN_DEPOSITS: Readonly<Record<string, bigint>> = Object.freeze({
  [NATIVE_MINT]: 10_000_000n,
  [USDC]: 1_000_000n,
  [USDT]: 1_000_000n,
});

const U64_MAX = 2n ** 64n - 1n;

/** A minimum deposit as given on a command line: a whole number of base units, 1 to 2^64 − 1. */
export function parseMinDeposit(text: string): { ok: true; value: bigint } | { ok: false; error: string } {
  if (!/^[0-9]{1,20}$/.test(text)) return { ok: false, error: `--min-deposit ${text} is not a whole number of base units` };
  const value = BigInt(text);
  if (value < 1n || value > U64_MAX) return { ok: false, error: `--min-deposit ${text} must be at least 1 and below 2^64` };
  return { ok: true, value };
}

/** The minimum for a mint: the one given, else the default for a known mint, else null (the caller must ask for one). */
export function minDepositFor(mint: string, given?: bigint): bigint | null {
  return given ?? DEFAULT_MIN_DEPOSITS[mint] ?? null;
}
