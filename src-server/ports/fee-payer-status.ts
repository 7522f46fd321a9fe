import type { Network } from "../../src-shared/networks";

/** A network's fee payer as services/fee-payer-watch.ts last saw it: read by the alerts and the metrics. */
export interface FeePayerStatus {
  network: Network;
  /** Null when the balance could not be read (or the network has no fee payer to watch). */
  lamports: bigint | null;
  /** Lamports spent over the samples of the last 24 h. */
  spentLast24h: bigint;
  /** Hours the balance lasts at that spend; null when unknown (no spend seen yet), 0 when empty. */
  runwayHours: number | null;
  checkedAt: number | null;
}
