import { ADMIN_RANGES, type AdminMoney, type AdminRange } from "../../../src-shared/api/admin";
import type { Network } from "../../../src-shared/networks";
import type { ChainBackend } from "../../ports/chain";
import type { ConsoleStore } from "../../ports/console-store";
import type { RevertStore } from "../../ports/revert-store";
import { relayCostLamports } from "./relays";
import { firstBucket } from "./pools";
import type { IndexerService } from "../indexer";

const DAY_MS = 86_400_000;

export interface AdminMoneyDeps {
  store: ConsoleStore;
  indexer: IndexerService;
  chains: ReadonlyMap<Network, ChainBackend>;
  /** The owner's token balance on a sandbox network; null where the backend cannot say. */
  balanceOf(network: Network, owner: string, mint: string): bigint | null;
  /** The support queue's store: what reverts paid back (absent: none shown). */
  reverts?: Pick<RevertStore, "paidBack">;
  now?: () => number;
}

/** What the relayer holds, what it earned, and what each relay cost it. */
export class AdminMoneyService {
  private readonly now: () => number;

  constructor(private readonly deps: AdminMoneyDeps) {
    this.now = deps.now ?? Date.now;
  }

  async report(range: AdminRange): Promise<AdminMoney> {
    const { spanMs, bucketMs } = ADMIN_RANGES[range];
    const start = firstBucket(this.now(), spanMs, bucketMs);
    const earned = new Map<string, { at: number; network: Network; mint: string; fees: bigint; relays: number }>();
    const totals = new Map<string, { network: Network; mint: string; fees: bigint; volume: bigint; relays: number }>();
    const add = (at: number, network: Network, mint: string, fees: bigint, volume: bigint, relays: number) => {
      const bucket = Math.floor(at / bucketMs) * bucketMs;
      const ek = `${bucket}|${network}|${mint}`;
      const e = earned.get(ek) ?? { at: bucket, network, mint, fees: 0n, relays: 0 };
      e.fees += fees;
      e.relays += relays;
      earned.set(ek, e);
      const tk = `${network}|${mint}`;
      const t = totals.get(tk) ?? { network, mint, fees: 0n, volume: 0n, relays: 0 };
      t.fees += fees;
      t.volume += volume;
      t.relays += relays;
      totals.set(tk, t);
    };
    for (const r of await this.deps.store.confirmedSince(start)) add(r.receivedAt, r.network, r.mint, r.fee, r.depositSize, 1);
    // Days retention folded away: whole days, counted at the day's start.
    for (const a of await this.deps.store.dailyAggregates(new Date(start).toISOString().slice(0, 10))) {
      const at = Date.parse(`${a.day}T00:00:00Z`);
      if (a.status === "confirmed" && at >= start - DAY_MS) add(Math.max(at, start), a.network, a.mint, a.fees, a.volume, a.count);
    }

    const feePayers = [...this.deps.chains.values()].map((chain) => {
      const mints = this.deps.indexer
        .list()
        .filter((p) => p.network === chain.network)
        .map((p) => p.mint);
      const sandbox = chain.kind === "sandbox";
      return {
        network: chain.network,
        address: chain.feePayer,
        sandbox,
        balances: mints.flatMap((mint) => {
          const amount = this.deps.balanceOf(chain.network, chain.feePayer, mint);
          return amount === null ? [] : [{ mint, amount: amount.toString() }];
        }),
        note: sandbox
          ? "Sandbox ledger: transactions cost no network fee; relay fees accrue to the relayer's token balances."
          : "Network fees are paid in SOL from this address.",
      };
    });

    const recent = (await this.deps.store.relays({ limit: 20 })).map((r) => ({
      id: r.id,
      network: r.network,
      mint: r.mint,
      status: r.status,
      receivedAt: r.receivedAt,
      depositSize: r.depositSize.toString(),
      fee: r.status === "confirmed" ? r.fee.toString() : "0",
      costLamports: relayCostLamports(r).toString(),
    }));

    return {
      range,
      bucketMs,
      feePayers,
      earned: [...earned.values()].sort((a, b) => a.at - b.at).map((e) => ({ ...e, fees: e.fees.toString() })),
      totals: [...totals.values()].map((t) => ({ ...t, fees: t.fees.toString(), volume: t.volume.toString(), costLamports: "0" })),
      recent,
      // From the relay's own revert records, so it holds whether or not the program's
      // totalDeposited subtracts reverts: a reverted deposit never became a leaf.
      reverted: ((await this.deps.reverts?.paidBack()) ?? []).map((r) => ({ ...r, amount: r.amount.toString() })),
    };
  }
}
