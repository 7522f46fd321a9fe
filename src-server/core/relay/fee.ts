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

/**
 * The fee in force for a pool, and the one it replaced while proofs made for
 * it may still be in flight: a wallet proves for the published fee
 * (extDataHash binds it), so a fee increase must not void every proof made
 * seconds before it.
 */
export interface FeeInForce {
  current: FeePolicy;
  previous: { policy: FeePolicy; acceptedUntil: number } | null;
}

export type FeeDecision =
  | { ok: true; fee: bigint }
  /** The pool's fee is at least depositSize: nothing would reach the recipient. */
  | { ok: false; kind: "Uncoverable" }
  /** The request's fee is below the published one (and below the previous one within its grace). */
  | { ok: false; kind: "TooLow"; published: bigint };

/**
 * The fee a relay charges. No fee asked: the published one. A fee at or above
 * the published one is charged as asked (the proof binds exactly that value);
 * below it, only the previous policy's fee within its grace window is accepted.
 * `requested` is already known to be at most depositSize.
 */
export function decideFee(depositSize: bigint, requested: bigint | null, inForce: FeeInForce, now: number): FeeDecision {
  const quote = quoteFee(depositSize, inForce.current);
  if (!quote) return { ok: false, kind: "Uncoverable" };
  if (requested === null || requested >= quote.fee) return { ok: true, fee: requested ?? quote.fee };
  const prev = inForce.previous;
  if (prev && now < prev.acceptedUntil) {
    const old = quoteFee(depositSize, prev.policy);
    if (old && requested >= old.fee) return { ok: true, fee: requested };
  }
  return { ok: false, kind: "TooLow", published: quote.fee };
}
