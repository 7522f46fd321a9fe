export interface FeePolicy {
  /** Basis points of depositSize. */
  bps: number;
  /** Minimum fee in base units. */
  floor: bigint;
}

export interface FeeQuote {
  fee: bigint;
  toRecipient: bigint;
}

/**
 * fee = max(floor, depositSize · bps / 10 000), rounded down; the recipient
 * gets exactly depositSize − fee. A deposit that cannot cover the fee is not relayed.
 */
export function quoteFee(depositSize: bigint, policy: FeePolicy): FeeQuote | null {
  const proportional = (depositSize * BigInt(policy.bps)) / 10_000n;
  const fee = proportional > policy.floor ? proportional : policy.floor;
  if (fee >= depositSize) return null;
  return { fee, toRecipient: depositSize - fee };
}
