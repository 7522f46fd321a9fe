import { err, ok, type Result } from "../result";

/** Uniswap-v2 fee: 0.3% of the input stays in the pool. */
const FEE_KEEP = 997n;
const FEE_BASE = 1000n;

export interface CpSwap {
  amountIn: bigint;
  amountOut: bigint;
  /** The part of amountIn that does not count toward the price: amountIn − floor(amountIn · 997 / 1000), in the input mint. */
  feeAmount: bigint;
  /** 100 · amountIn / (rIn + amountIn): percent, fee excluded. */
  priceImpactPct: number;
  /** Reserves after the swap: the whole amountIn (fee included) stays in the pool. */
  reserveInAfter: bigint;
  reserveOutAfter: bigint;
}

/** Why a pool cannot take a swap; every case is the spec's InsufficientLiquidity. */
export interface CpRefusal {
  detail: string;
}

/** floor(amountIn · 997 · rOut / (rIn · 1000 + amountIn · 997)). */
export function cpAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  const inWithFee = amountIn * FEE_KEEP;
  return (inWithFee * reserveOut) / (reserveIn * FEE_BASE + inWithFee);
}

/**
 * Percent as a number: one division of the two exact integers, so it is the
 * correctly rounded double while both stay below 2^53 (and within a few ulps beyond).
 */
export function cpPriceImpactPct(amountIn: bigint, reserveIn: bigint): number {
  return Number(100n * amountIn) / Number(reserveIn + amountIn);
}

/**
 * One constant-product swap, exact and deterministic: out =
 * floor(amountIn·997·rOut / (rIn·1000 + amountIn·997)). Refused when
 * a reserve is empty, the output would exceed half the output reserve, or
 * the output rounds down to nothing.
 */
export function cpSwap(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): Result<CpSwap, CpRefusal> {
  if (amountIn <= 0n) throw new RangeError(`amountIn must be positive, got ${amountIn}`);
  if (reserveIn <= 0n || reserveOut <= 0n) return err({ detail: "the pool has an empty reserve" });
  const amountOut = cpAmountOut(amountIn, reserveIn, reserveOut);
  if (amountOut * 2n > reserveOut) return err({ detail: `output ${amountOut} exceeds half of the pool's output reserve ${reserveOut}` });
  if (amountOut === 0n) return err({ detail: `an input of ${amountIn} buys less than one base unit of output` });
  return ok({
    amountIn,
    amountOut,
    feeAmount: amountIn - (amountIn * FEE_KEEP) / FEE_BASE,
    priceImpactPct: cpPriceImpactPct(amountIn, reserveIn),
    reserveInAfter: reserveIn + amountIn,
    reserveOutAfter: reserveOut - amountOut,
  });
}
