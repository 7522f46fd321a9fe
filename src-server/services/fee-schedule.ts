import type { PublishedFee } from "../../src-shared/api/public";
import type { Network } from "../../src-shared/networks";
import { NETWORKS } from "../../src-shared/networks";
import { err, ok, type Result } from "../../src-shared/result";
import type { FeesConfig } from "../config/schema";
import type { FeeInForce, FeePolicy } from "../core/relay/fee";
import type { ConsoleStore, StoredFeeOverride } from "../ports/console-store";

/** What GET /fees and the console's Settings show of one fee. */
export type { PublishedFee };

const publish = (p: FeePolicy): PublishedFee => ({ bps: p.bps, floor: p.floor.toString() });

/**
 * The relay's fees: the config file's, under the operator's run-time changes
 * (persisted). A wallet proves for the fee it reads from GET /fees (protocol
 * v2 binds it), so when a fee changes, the one it replaced stays acceptable
 * for `graceMs`: proofs made just before an increase still land.
 */
export class FeeSchedule {
  /** The operator's changes as stored: read once here, so every relay's fee is decided from memory. */
  static async open(config: FeesConfig, store: ConsoleStore, graceMs: number, now: () => number = Date.now): Promise<FeeSchedule> {
    return new FeeSchedule(config, store, graceMs, await store.feeOverrides(), now);
  }

  private constructor(
    private readonly config: FeesConfig,
    private readonly store: ConsoleStore,
    private readonly graceMs: number,
    private overrides: StoredFeeOverride[],
    private readonly now: () => number,
  ) {}

  /** Reads the operator's changes again: another instance on the same store may have made one. */
  async refresh(): Promise<void> {
    this.overrides = await this.store.feeOverrides();
  }

  /** mint null: the default, one for every network. */
  private override(network: Network, mint: string | null): StoredFeeOverride | undefined {
    return this.overrides.find((o) => o.mint === mint && (mint === null || o.network === network));
  }

  private defaultPolicy(): FeePolicy {
    return this.overrides.find((o) => o.mint === null)?.policy ?? this.config.default;
  }

  /** Whether a pool has a fee of its own (the config's or the operator's), else it pays the default. */
  private hasOwn(network: Network, mint: string): boolean {
    return this.config.pools[network][mint] !== undefined || Boolean(this.override(network, mint)?.policy);
  }

  policyFor(network: Network, mint: string): FeePolicy {
    return this.override(network, mint)?.policy ?? this.config.pools[network][mint] ?? this.defaultPolicy();
  }

  inForce(network: Network, mint: string): FeeInForce {
    const current = this.policyFor(network, mint);
    // A pool that just lost its own fee keeps its previous one under its own key; one that never had one follows the default's change.
    const o = this.override(network, mint) ?? (this.hasOwn(network, mint) ? undefined : this.override(network, null));
    const acceptedUntil = o ? o.at + this.graceMs : 0;
    return { current, previous: o && this.now() < acceptedUntil ? { policy: o.previous, acceptedUntil } : null };
  }

  /**
   * Sets a pool's fee or, with `mint` null, the default of every pool without
   * its own (`policy` null: back to the config file's). The fee it replaces
   * stays acceptable for the grace period.
   */
  async set(network: Network, mint: string | null, policy: FeePolicy | null): Promise<Result<void, string>> {
    if (policy && (!Number.isInteger(policy.bps) || policy.bps < 0 || policy.bps > 10_000)) return err("bps: an integer from 0 to 10000");
    if (policy && policy.floor < 0n) return err("floor: a non-negative integer of base units");
    const previous = mint === null ? this.defaultPolicy() : this.policyFor(network, mint);
    // The default is one for every network: its row always sits under mainnet.
    await this.store.setFeeOverride({ network: mint === null ? "mainnet" : network, mint, policy, previous, at: this.now() });
    this.overrides = await this.store.feeOverrides();
    return ok(undefined);
  }

  /** GET /fees's schedule: the default and every pool with a fee of its own, per network. */
  schedule(): { default: PublishedFee; pools: Record<Network, Record<string, PublishedFee>> } {
    const pools = Object.fromEntries(
      NETWORKS.map((n) => {
        const own = [...Object.keys(this.config.pools[n]), ...this.overrides.filter((o) => o.network === n && o.mint !== null && o.policy).map((o) => o.mint!)];
        return [n, Object.fromEntries([...new Set(own)].sort().map((m) => [m, publish(this.policyFor(n, m))]))];
      }),
    ) as Record<Network, Record<string, PublishedFee>>;
    return { default: publish(this.defaultPolicy()), pools };
  }

  get graceSec(): number {
    return Math.round(this.graceMs / 1000);
  }
}
