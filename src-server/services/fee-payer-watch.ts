/**
 * Each network's fee-payer balance, sampled on a timer, and its runway: how
 * long the balance lasts at the spend of the last 24 hours. Spend is the sum
 * of the balance's falls between samples (a top-up is not negative spend).
 * Before any spend was seen the runway is unknown (null), except that an
 * empty fee payer has none left (0).
 */
import type { Network } from "../../src-shared/networks";
import type { FeePayerStatus } from "../ports/fee-payer-status";

const DAY_MS = 24 * 3600_000;

export class FeePayerWatch {
  private readonly samples = new Map<Network, { at: number; lamports: bigint }[]>();
  private readonly last = new Map<Network, { lamports: bigint | null; at: number }>();
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;

  constructor(
    private readonly sources: ReadonlyMap<Network, () => Promise<bigint | null>>,
    opts: { now?: () => number } = {},
  ) {
    this.now = opts.now ?? Date.now;
  }

  start(intervalMs: number): void {
    void this.sample();
    this.timer = setInterval(() => void this.sample(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Reads every balance once. */
  async sample(): Promise<void> {
    await Promise.all(
      [...this.sources].map(async ([network, read]) => {
        let lamports: bigint | null;
        try {
          lamports = await read();
        } catch {
          lamports = null;
        }
        const at = this.now();
        this.last.set(network, { lamports, at });
        if (lamports === null) return;
        const list = this.samples.get(network) ?? [];
        list.push({ at, lamports });
        // Keep one sample older than the window: the first fall inside it is measured from there.
        while (list.length > 2 && list[1]!.at < at - DAY_MS) list.shift();
        this.samples.set(network, list);
      }),
    );
  }

  status(): FeePayerStatus[] {
    return [...this.sources.keys()].map((network) => {
      const last = this.last.get(network);
      const list = this.samples.get(network) ?? [];
      const from = this.now() - DAY_MS;
      let spent = 0n;
      let spanMs = 0;
      for (let i = 1; i < list.length; i++) {
        if (list[i]!.at < from) continue;
        const fall = list[i - 1]!.lamports - list[i]!.lamports;
        if (fall > 0n) spent += fall;
        spanMs += list[i]!.at - Math.max(list[i - 1]!.at, from);
      }
      const lamports = last?.lamports ?? null;
      let runwayHours: number | null = null;
      if (lamports !== null && lamports <= 0n) runwayHours = 0;
      else if (lamports !== null && spent > 0n && spanMs > 0) {
        // Spend per hour over the time observed (at most 24 h).
        const perHour = Number(spent) / (spanMs / 3600_000);
        runwayHours = Number(lamports) / perHour;
      }
      return { network, lamports, spentLast24h: spent, runwayHours, checkedAt: last?.at ?? null };
    });
  }
}
