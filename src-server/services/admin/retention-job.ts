import type { ConsoleStore } from "../../ports/console-store";

const DAY_MS = 86_400_000;
const EVERY_MS = 3_600_000;

/**
 * Relay records older than `retentionDays` are folded into daily aggregates
 * (counts, volume, fees per day, network, mint, status) and deleted: after
 * that no recipient or nullifier of theirs is kept. Runs at start and hourly.
 */
export class RetentionJob {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: ConsoleStore,
    readonly retentionDays: number,
    private readonly log: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** The oldest receipt time a relay record is kept for. */
  cutoff(): number {
    return this.now() - this.retentionDays * DAY_MS;
  }

  runOnce(): Promise<void> {
    this.running = this.running.then(async () => {
      try {
        const n = await this.store.pruneRelaysBefore(this.cutoff());
        if (n > 0) this.log(`retention: folded ${n} relay records older than ${this.retentionDays} days into daily aggregates`);
      } catch (e) {
        this.log(`retention: pruning failed: ${(e as Error).message}`);
      }
    });
    return this.running;
  }

  start(): Promise<void> {
    this.timer ??= setInterval(() => void this.runOnce(), EVERY_MS);
    this.timer.unref();
    return this.runOnce();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
