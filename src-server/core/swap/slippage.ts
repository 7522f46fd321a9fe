/** The spec's slippage guidance, by pair class. */
export const SLIPPAGE_CLASS_BPS = {
  stable: 10,
  standard: 50,
  volatile: 100,
  lowLiquidity: 300,
} as const;

export type SlippageClass = keyof typeof SLIPPAGE_CLASS_BPS;

export const SLIPPAGE_CLASSES = Object.keys(SLIPPAGE_CLASS_BPS) as SlippageClass[];

export const isSlippageClass = (v: unknown): v is SlippageClass => typeof v === "string" && Object.hasOwn(SLIPPAGE_CLASS_BPS, v);

/** A pair's allowed slippage; `class` is "custom" when the operator set bps directly. */
export interface PairSlippage {
  bps: number;
  class: SlippageClass | "custom";
}

export interface SlippagePolicy {
  /** Mints counted as stablecoins: a pair of two of them is the `stable` class. */
  stablecoins: readonly string[];
  /** The class of any other pair. */
  defaultClass: SlippageClass;
  /** Per pair, keyed by {@link pairKey}: wins over both rules above. */
  pairs: Readonly<Record<string, PairSlippage>>;
}

/** One key per unordered pair: the two mints sorted, joined by "/". */
export function pairKey(a: string, b: string): string {
  return a < b ? `${a}/${b}` : `${b}/${a}`;
}

export function pairSlippage(policy: SlippagePolicy, inputMint: string, outputMint: string): PairSlippage {
  const configured = policy.pairs[pairKey(inputMint, outputMint)];
  if (configured) return configured;
  const cls: SlippageClass = policy.stablecoins.includes(inputMint) && policy.stablecoins.includes(outputMint) ? "stable" : policy.defaultClass;
  return { bps: SLIPPAGE_CLASS_BPS[cls], class: cls };
}

/** The least output accepted: floor(quoted · (10 000 − bps) / 10 000), as Jupiter's otherAmountThreshold. */
export function minOutAmount(quotedOut: bigint, slippageBps: number): bigint {
  if (!Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps > 10_000) throw new RangeError(`slippageBps must be 0..10000, got ${slippageBps}`);
  return (quotedOut * BigInt(10_000 - slippageBps)) / 10_000n;
}

/**
 * How far the executed output fell below the quote, in basis points with two
 * decimals (rounded toward zero); negative when execution beat the quote.
 */
export function slippageSeenBps(quotedOut: bigint, executedOut: bigint): number {
  if (quotedOut <= 0n) return 0;
  return Number(((quotedOut - executedOut) * 1_000_000n) / quotedOut) / 100;
}
