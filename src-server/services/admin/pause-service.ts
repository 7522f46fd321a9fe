import type { AdminPause } from "../../../src-shared/api/admin";
import type { Network } from "../../../src-shared/networks";
import { err, ok, type Result } from "../../../src-shared/result";
import type { HealthCheck } from "../../ports/chain";
import type { ConsoleStore, StoredPause } from "../../ports/console-store";

export const MAX_PAUSE_REASON = 200;

/**
 * The operator's pause switches, per network or per pool. A paused pool's
 * relays are refused `503 RelayPaused` with the reason (relay-service.ts),
 * and /health fails a `paused` check naming what is paused and why.
 * Persisted, so a pause survives a restart.
 */
export class PauseService {
  /** The switches as stored: read once here, so every relay asks memory, not the store. */
  static async open(store: ConsoleStore, now: () => number = Date.now): Promise<PauseService> {
    return new PauseService(store, await store.pauses(), now);
  }

  private constructor(
    private readonly store: ConsoleStore,
    private current: StoredPause[],
    private readonly now: () => number,
  ) {}

  /** Reads the switches again: another instance on the same store may have turned one. */
  async refresh(): Promise<void> {
    this.current = await this.store.pauses();
  }

  list(): AdminPause[] {
    return this.current.map((p) => ({ ...p }));
  }

  /** Why relays of this pool are refused, or null. The network's switch wins over the pool's. */
  pausedReason(network: Network, mint: string): string | null {
    const whole = this.current.find((p) => p.network === network && p.mint === null);
    if (whole) return `relays on ${network} are paused by the operator: ${whole.reason}`;
    const pool = this.current.find((p) => p.network === network && p.mint === mint);
    return pool ? `relays of ${mint} on ${network} are paused by the operator: ${pool.reason}` : null;
  }

  async set(network: Network, mint: string | null, paused: boolean, reason: string | undefined): Promise<Result<AdminPause[], string>> {
    if (paused) {
      const r = (reason ?? "").trim();
      // eslint-disable-next-line no-control-regex
      if (r.length < 3 || r.length > MAX_PAUSE_REASON || /[\u0000-\u001f\u007f]/.test(r)) {
        return err(`reason: 3 to ${MAX_PAUSE_REASON} characters on one line (relays are refused with it)`);
      }
      await this.store.setPause({ network, mint, reason: r, at: this.now() });
    } else {
      await this.store.clearPause(network, mint);
    }
    this.current = await this.store.pauses();
    return ok(this.list());
  }

  health(): HealthCheck[] {
    if (this.current.length === 0) return [{ name: "paused", ok: true, detail: "no pause switch is on" }];
    const what = this.current.map((p) => `${p.mint ? `${p.network}/${p.mint}` : `${p.network} (all pools)`}: ${p.reason}`);
    return [{ name: "paused", ok: false, detail: `relays paused by the operator: ${what.join("; ")}` }];
  }
}
