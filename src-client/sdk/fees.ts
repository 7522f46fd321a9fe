import type { Network } from "../../src-shared/networks";
import type { FeeSchedule } from "../../src-shared/api/public";

/**
 * The relayer's fee on a withdrawal of `depositSize` from a pool, and what
 * the recipient receives: fee = max(floor, floor(depositSize · bps / 10 000)).
 * Null when the deposit does not cover the fee (the relay refuses it).
 */
export function relayFee(
  schedule: FeeSchedule,
  network: Network,
  mint: string,
  depositSize: bigint,
): { fee: bigint; toRecipient: bigint; bps: number; floor: bigint } | null {
  const setting = schedule.pools[network]?.[mint] ?? schedule.default;
  const proportional = (depositSize * BigInt(setting.bps)) / 10_000n;
  const fee = proportional > setting.floor ? proportional : setting.floor;
  return fee >= depositSize ? null : { fee, toRecipient: depositSize - fee, bps: setting.bps, floor: setting.floor };
}
