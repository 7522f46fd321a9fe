/**
 * What a transaction may pay for priority (docs/solana.md "Fee policy"): the
 * network cost in lamports — base fee, priority fee, rent of the accounts the
 * relayer creates — converted into the pool mint must not exceed the relay
 * fee, unless the operator allows a loss. Pure functions; bigint arithmetic.
 */

/** Lamports per signature (the cluster's base fee). */
export const LAMPORTS_PER_SIGNATURE = 5000;
/** The runtime's cap on a transaction's compute units. */
export const MAX_COMPUTE_UNIT_LIMIT = 1_400_000;
/** Units each compute-budget instruction costs; headroom for the two the relayer adds. */
export const COMPUTE_BUDGET_IX_UNITS = 150;

/** A non-negative decimal as numerator / denominator ("0.0061" → 61 / 10000); null when it is not one. */
export function parseDecimal(s: string | undefined): { num: bigint; den: bigint } | null {
  if (typeof s !== "string") return null;
  const m = /^(\d+)(?:\.(\d+))?$/.exec(s.trim());
  if (!m) return null;
  const frac = m[2] ?? "";
  return { num: BigInt(m[1]! + frac), den: 10n ** BigInt(frac.length) };
}

/** ceil(price × limit / 1e6): the priority fee of a compute-unit price (micro-lamports) and limit. */
export function priorityFeeLamports(priceMicroLamports: number, unitLimit: number): number {
  return Number((BigInt(priceMicroLamports) * BigInt(unitLimit) + 999_999n) / 1_000_000n);
}

/** Base fee + priority fee. */
export function networkFeeLamports(signatures: number, priceMicroLamports: number, unitLimit: number): number {
  return LAMPORTS_PER_SIGNATURE * signatures + priorityFeeLamports(priceMicroLamports, unitLimit);
}

/** ceil(unitsConsumed × margin) + the compute-budget instructions, within the runtime's cap. */
export function computeUnitLimit(unitsConsumed: number, margin: number): number {
  const m = Number.isFinite(margin) && margin >= 1 ? margin : 1;
  return Math.min(MAX_COMPUTE_UNIT_LIMIT, Math.ceil(unitsConsumed * m) + 2 * COMPUTE_BUDGET_IX_UNITS);
}

/** Nearest-rank percentile of the observed per-unit prices (0 when there are none). */
export function percentileFee(fees: readonly number[], percentile: number): number {
  const sorted = fees.filter((f) => Number.isFinite(f) && f >= 0).sort((a, b) => a - b);
  if (!sorted.length) return 0;
  const p = Math.min(100, Math.max(0, percentile));
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return Math.floor(sorted[rank - 1]!);
}

export interface PriceInput {
  signatures: number;
  unitLimit: number;
  rentLamports: number;
  /** The percentile the market asks. */
  wantedPrice: number;
  /** maxPriorityMicroLamports. */
  maxPrice: number;
  /** null: no fee to keep under (a revert, which earns none). */
  budget: { fee: bigint; lamportsPerUnit: string | undefined } | null;
  allowLoss: boolean;
  /**
   * The most the priority fee may cost in lamports, whatever the market asks: a revert's
   * budget (solana.revertPriorityLamports), since no relay fee bounds it. allowLoss does not lift it.
   */
  maxPriorityLamports?: number;
}

export type PriceDecision =
  { ok: true; price: number; cappedBy: "config" | "fee" | null; feeLamports: number; costLamports: number } | { ok: false; detail: string };

/** The compute-unit price to pay, or why the relay would lose money. */
export function decidePrice(p: PriceInput): PriceDecision {
  let price = Math.max(0, Math.floor(p.wantedPrice));
  let cappedBy: "config" | "fee" | null = null;
  const maxPrice = Math.max(0, Math.floor(p.maxPrice));
  if (price > maxPrice) {
    price = maxPrice;
    cappedBy = "config";
  }
  if (p.maxPriorityLamports !== undefined && p.unitLimit > 0) {
    const byBudget = Math.floor((Math.max(0, Math.floor(p.maxPriorityLamports)) * 1_000_000) / p.unitLimit);
    if (byBudget < price) {
      price = byBudget;
      cappedBy = "config";
    }
  }
  const baseCost = BigInt(LAMPORTS_PER_SIGNATURE * p.signatures + p.rentLamports);
  const result = (): PriceDecision => {
    const feeLamports = networkFeeLamports(p.signatures, price, p.unitLimit);
    return { ok: true, price, cappedBy, feeLamports, costLamports: feeLamports + p.rentLamports };
  };
  if (p.budget === null) return result();
  const rate = parseDecimal(p.budget.lamportsPerUnit);
  if (rate === null || rate.num === 0n) {
    if (p.allowLoss) return result();
    return {
      ok: false,
      detail: "the pool mint has no lamportsPerUnit price, so the network cost cannot be checked against the fee (set solana.lamportsPerUnit or allowLoss)",
    };
  }
  // Everything in lamports × den: the fee is worth fee × num / den lamports.
  const feeValue = p.budget.fee * rate.num;
  const zeroPriorityCost = baseCost * rate.den;
  if (zeroPriorityCost > feeValue) {
    if (p.allowLoss) return result();
    return {
      ok: false,
      detail: `network cost ${baseCost} lamports (base fee and rent) exceeds the relay fee of ${p.budget.fee} base units (${feeValue / rate.den} lamports at ${p.budget.lamportsPerUnit} lamports per unit)`,
    };
  }
  if (!p.allowLoss) {
    const spareLamports = (feeValue - zeroPriorityCost) / rate.den;
    const byFee = p.unitLimit > 0 ? Number((spareLamports * 1_000_000n) / BigInt(p.unitLimit)) : price;
    if (byFee < price) {
      price = byFee;
      cappedBy = "fee";
    }
  }
  return result();
}
