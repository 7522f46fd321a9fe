import { KNOWN_MINTS } from "../../src-shared/api/admin";

/** Mints the console can name (the admin API's list); anything else is shown by its address, amounts in base units. */
export interface KnownMint {
  symbol: string;
  name: string;
  decimals: number;
}

const KNOWN: Readonly<Record<string, KnownMint>> = KNOWN_MINTS;

export const knownMint = (mint: string): KnownMint | undefined => KNOWN[mint];

/** `USDC`, or `EPjF…Dt1v` for a mint the console does not know. */
export function mintLabel(mint: string): string {
  return KNOWN[mint]?.symbol ?? `${mint.slice(0, 4)}…${mint.slice(-4)}`;
}

/**
 * Base units (a decimal string) in the mint's units: `1002500` USDC → `1.0025 USDC`.
 * Exact (no floating point); trailing zeros dropped; thousands grouped.
 */
export function formatAmount(baseUnits: string, mint: string): string {
  const known = KNOWN[mint];
  if (!/^-?[0-9]+$/.test(baseUnits)) return baseUnits;
  if (!known) return `${group(baseUnits)} units`;
  const negative = baseUnits.startsWith("-");
  const digits = (negative ? baseUnits.slice(1) : baseUnits).padStart(known.decimals + 1, "0");
  const whole = digits.slice(0, digits.length - known.decimals);
  const frac = digits.slice(digits.length - known.decimals).replace(/0+$/, "");
  return `${negative ? "-" : ""}${group(whole)}${frac ? `.${frac}` : ""} ${known.symbol}`;
}

const group = (digits: string): string => digits.replace(/^0+(?=\d)/, "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
