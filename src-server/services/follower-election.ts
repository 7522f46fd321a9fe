/**
 * Which instance follows each network's chain (and writes its trees): the network's follower
 * lease (Coordination.lead), asked for every second. The holder renews it under its epoch; every
 * other instance reads the holder's tree from the store, and takes the lease under the next epoch
 * once it runs out (the holder died, paused, or lost the database).
 *
 * The store's fence check (inside each tree write's transaction) is what keeps a deposed leader
 * from forking the tree. This side only keeps a process from believing it leads when it cannot
 * know: a lease not renewed for `leaseMs - marginMs` (measured from when the renewal was sent, on
 * a monotonic clock) is given up locally before the database's own lease could have run out.
 */
import type { Network } from "../../src-shared/networks";
import type { Coordination, Fence } from "../ports/coordination";

/** How long a lease lasts unless renewed: another instance takes over within this plus one renewal period. */
export const LEASE_MS = 5_000;
/** How often each network's lease is asked for (taken, renewed, or found held by another). */
export const RENEW_MS = 1_000;
/** A lease is given up locally this long before the database's could end (a renewal's round trip, a slow timer). */
export const LEASE_MARGIN_MS = 1_000;

/** This instance's part in following one network. */
export interface FollowerRole {
  network: Network;
  /**
   * leader: this instance follows the chain and writes the tree under `epoch`; reader: another
   * instance does (`holder` when known), this one re-applies what it wrote; unknown: no answer
   * from the store yet.
   */
  role: "leader" | "reader" | "unknown";
  /** Our lease's epoch while leader; null otherwise. */
  epoch: number | null;
  /** The lease holder: this instance while leader, the other instance while reader (null when not known). */
  holder: string | null;
  /** Unix ms this role began. */
  since: number;
  /** Unix ms of the last successful lead() answer (renewal or refusal); null before the first. */
  answeredAt: number | null;
  /** The last failed lead() call's error, until one succeeds. */
  lastError: string | null;
}

/** What the indexer and the chain follower need: the fence to write with, and a way to step down. */
export interface FollowerFences {
  /** The fence for this network's tree writes while this instance leads it; null while it does not. */
  fenceOf(network: Network): Fence | null;
  /** A tree write was refused (FencedOut): this instance no longer leads `network`. */
  demote(network: Network, why: string): void;
}

export interface FollowerElectionOptions {
  coordination: Pick<Coordination, "instanceId" | "lead" | "release" | "leases">;
  networks: readonly Network[];
  log?: (line: string) => void;
  leaseMs?: number;
  renewMs?: number;
  marginMs?: number;
  /**
   * One process owns the store (sql.js): nobody can take its lease, so it never gives it up
   * locally either (a start that loads a large tree in one go must not read as a deposal).
   */
  sole?: boolean;
  /** Monotonic milliseconds, for the local expiry (a wall clock moved by NTP must not extend a lease); default performance.now. */
  clock?: () => number;
  /** Unix ms, for what roles() reports; default Date.now. */
  now?: () => number;
}

interface NetworkState {
  role: FollowerRole;
  /** clock() before which our lease still holds locally (leader only). */
  validUntil: number;
  /** A lead() failure streak's message, logged once. */
  failing: string | null;
  /** clock() when a reader last read who holds the lease (re-read every leaseMs: the holder may change). */
  holderReadAt: number;
}

type Listener = (network: Network, role: FollowerRole) => void;

export class FollowerElection implements FollowerFences {
  private readonly nets = new Map<Network, NetworkState>();
  private readonly listeners = new Set<Listener>();
  private readonly log: (line: string) => void;
  private readonly leaseMs: number;
  private readonly renewMs: number;
  private readonly marginMs: number;
  private readonly clock: () => number;
  private readonly now: () => number;
  private timer: ReturnType<typeof setInterval> | null = null;
  private round: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly opts: FollowerElectionOptions) {
    this.log = opts.log ?? (() => {});
    this.leaseMs = opts.leaseMs ?? LEASE_MS;
    this.renewMs = opts.renewMs ?? RENEW_MS;
    this.marginMs = Math.min(opts.marginMs ?? LEASE_MARGIN_MS, this.leaseMs / 2);
    this.clock = opts.clock ?? (() => performance.now());
    this.now = opts.now ?? Date.now;
    for (const network of new Set(opts.networks)) {
      this.nets.set(network, {
        role: { network, role: "unknown", epoch: null, holder: null, since: this.now(), answeredAt: null, lastError: null },
        validUntil: 0,
        failing: null,
        holderReadAt: 0,
      });
    }
  }

  get instanceId(): string {
    return this.opts.coordination.instanceId;
  }

  /** Runs the first round (so the indexer starts knowing each network's role), then one every renewMs. */
  async start(): Promise<void> {
    if (this.timer || this.stopped) return;
    await this.elect();
    this.timer = setInterval(() => void this.elect(), this.renewMs);
    this.timer.unref?.();
  }

  /** Asks for every network's lease now; concurrent calls share one round. */
  elect(): Promise<void> {
    this.round ??= Promise.all([...this.nets.keys()].map((n) => this.electOne(n))).then(
      () => {
        this.round = null;
      },
      () => {
        this.round = null;
      },
    );
    return this.round;
  }

  /** Stops renewing and releases the leases this instance holds, so another instance takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.round;
    for (const [network, s] of this.nets) {
      if (s.role.role !== "leader" || s.role.epoch === null) continue;
      const epoch = s.role.epoch;
      this.become(network, { role: "unknown", epoch: null, holder: null });
      try {
        await this.opts.coordination.release(network, epoch);
      } catch (e) {
        // The lease then runs out on its own (leaseMs).
        this.log(`follower: releasing ${network} (epoch ${epoch}): ${(e as Error).message}`);
      }
    }
  }

  fenceOf(network: Network): Fence | null {
    const s = this.nets.get(network);
    if (!s || s.role.role !== "leader" || s.role.epoch === null) return null;
    if (!this.opts.sole && this.clock() >= s.validUntil) {
      this.depose(network, s, `its lease was not renewed within ${this.leaseMs - this.marginMs} ms${s.failing ? ` (${s.failing})` : ""}`);
      return null;
    }
    return { network, holder: this.instanceId, epoch: s.role.epoch };
  }

  leads(network: Network): boolean {
    return this.fenceOf(network) !== null;
  }

  demote(network: Network, why: string): void {
    const s = this.nets.get(network);
    if (s?.role.role === "leader") this.depose(network, s, why);
  }

  /** Each network's role, for /health and the console. */
  roles(): FollowerRole[] {
    for (const network of this.nets.keys()) this.fenceOf(network); // a lease run out locally shows as such
    return [...this.nets.values()].map((s) => ({ ...s.role }));
  }

  /** Calls `listener` on every role change (the chain follower subscribes or stops reading the chain); returns the unsubscribe. */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async electOne(network: Network): Promise<void> {
    const s = this.nets.get(network)!;
    const sentAt = this.clock();
    let lease: { epoch: number; leaseUntil: number } | null;
    try {
      lease = await this.opts.coordination.lead(network, this.leaseMs);
    } catch (e) {
      const message = (e as Error).message;
      s.role.lastError = message;
      if (s.failing !== message) this.log(`follower: asking for ${network}'s lease failed: ${message} (retrying every ${this.renewMs} ms; logged once)`);
      s.failing = message;
      // A leader that cannot renew gives up locally once its lease may have run out.
      this.fenceOf(network);
      return;
    }
    if (this.stopped) {
      // stop() is releasing: a lease taken by this late round is released too.
      if (lease) await this.opts.coordination.release(network, lease.epoch).catch(() => {});
      return;
    }
    if (s.failing) this.log(`follower: asking for ${network}'s lease works again`);
    s.failing = null;
    s.role.lastError = null;
    s.role.answeredAt = this.now();
    if (lease) {
      const was = s.role;
      s.validUntil = sentAt + this.leaseMs - this.marginMs;
      if (was.role === "leader" && was.epoch === lease.epoch) return;
      if (was.role === "leader") this.log(`follower: deposed on ${network} (epoch ${was.epoch}): its lease ran out before it was renewed`);
      this.become(network, { role: "leader", epoch: lease.epoch, holder: this.instanceId });
      this.log(`follower: this instance now follows ${network} (epoch ${lease.epoch})`);
      return;
    }
    if (s.role.role === "leader") this.depose(network, s, "another instance holds its lease");
    if (s.role.role === "reader" && s.role.holder !== null && this.clock() - s.holderReadAt < this.leaseMs) return;
    s.holderReadAt = this.clock();
    const holder = await this.holderOf(network);
    if (s.role.role === "leader" || this.stopped) return; // a later round took the lease meanwhile
    if (s.role.role === "reader" && s.role.holder === holder) return;
    this.become(network, { role: "reader", epoch: null, holder });
    this.log(`follower: ${network} is followed by another instance (${holder ?? "holder not known"}); reading its tree`);
  }

  private async holderOf(network: Network): Promise<string | null> {
    try {
      const lease = (await this.opts.coordination.leases()).find((l) => l.network === network);
      return lease?.holder ?? null;
    } catch {
      return null;
    }
  }

  private depose(network: Network, s: NetworkState, why: string): void {
    const epoch = s.role.epoch;
    this.become(network, { role: "reader", epoch: null, holder: null });
    this.log(`follower: deposed on ${network} (epoch ${epoch}): ${why}`);
  }

  private become(network: Network, next: Pick<FollowerRole, "role" | "epoch" | "holder">): void {
    const s = this.nets.get(network)!;
    s.role = { ...s.role, ...next, since: this.now() };
    if (next.role !== "leader") s.validUntil = 0;
    for (const l of this.listeners) {
      try {
        l(network, { ...s.role });
      } catch (e) {
        this.log(`follower: a role listener failed: ${(e as Error).message}`);
      }
    }
  }
}

/** One process that owns its store (sql.js): the leader of every network, under one epoch, forever. */
export const SOLE_WRITER: FollowerFences = {
  fenceOf: (network) => ({ network, holder: "this-process", epoch: 1 }),
  demote: () => {},
};
