import type { Network } from "../../src-shared/networks";
import type { Fault } from "../core/fault";

/** A /relay or /relay_swap refused before its proof verified: never written to the store. */
export interface RejectedRelay {
  /** Unix ms it was received. */
  at: number;
  kind: "relay" | "swap";
  network: Network;
  mint: string;
  /** Whose fault the refusal was; the admin API answers it as the HTTP status it had (http/status.ts). */
  fault: Fault;
  /** The spec's error name it was answered with. */
  error: string;
  detail: string;
}

/** How many rejected requests the console can list; older ones are only counted. */
export const REJECTED_RELAYS_KEPT = 300;

/**
 * Relays refused before they became candidates (bad pool, root, fee, spent or
 * in-flight nullifier, invalid proof, ...): anyone can send them without
 * authentication, so they are counted per error name and the last
 * {@link REJECTED_RELAYS_KEPT} kept in memory for the console, never stored
 * (docs/security.md, "Rejected relays"). Memory stays bounded whatever the rate.
 */
export class RejectedRelays {
  private readonly ring: (RejectedRelay | undefined)[];
  private next = 0;
  private size = 0;
  private readonly byError = new Map<string, number>();
  private count = 0;

  constructor(
    readonly capacity: number = REJECTED_RELAYS_KEPT,
    readonly since: number = Date.now(),
  ) {
    this.ring = new Array<RejectedRelay | undefined>(capacity);
  }

  add(r: RejectedRelay): void {
    this.count += 1;
    this.byError.set(r.error, (this.byError.get(r.error) ?? 0) + 1);
    // The detail comes from our own messages, but may quote request values: keep it short.
    this.ring[this.next] = { ...r, detail: r.detail.length > 300 ? `${r.detail.slice(0, 300)}…` : r.detail };
    this.next = (this.next + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
  }

  /** Every rejection since start. */
  get total(): number {
    return this.count;
  }

  /** Rejections since start, per error name. */
  counts(): Record<string, number> {
    return Object.fromEntries([...this.byError].sort(([a], [b]) => a.localeCompare(b)));
  }

  /** The kept rejections, newest first. */
  recent(limit = this.capacity): RejectedRelay[] {
    const out: RejectedRelay[] = [];
    for (let i = 1; i <= Math.min(limit, this.size); i++) out.push(this.ring[(this.next - i + this.capacity) % this.capacity]!);
    return out;
  }
}
