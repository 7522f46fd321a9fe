import type {
  AdminNullifierSearch,
  AdminRejectedRelays,
  AdminRelay,
  AdminRelayDetail,
  AdminRelayPage,
  AdminSpentNullifier,
  RelayStep,
} from "../../../src-shared/api/admin";
import { toHex } from "../../../src-shared/encoding/bytes";
import type { Network } from "../../../src-shared/networks";
import type { ChainBackend } from "../../ports/chain";
import type { ConsoleStore, RelayFilter } from "../../ports/console-store";
import type { RelayRecord } from "../../ports/relay-store";
import type { IndexerService } from "../indexer";
import type { RejectedRelay, RejectedRelays } from "../relay-rejections";

/** GET /admin/relays/rejected's answer before the HTTP layer turns each one's fault into its status. */
export type RejectedRelaysView = Omit<AdminRejectedRelays, "items"> & { items: RejectedRelay[] };

export function toAdminRelay(r: RelayRecord): AdminRelay {
  const last = r.steps[r.steps.length - 1];
  return {
    id: r.id,
    kind: r.kind,
    network: r.network,
    mint: r.mint,
    outputMint: r.outputMint,
    recipient: r.recipient,
    nullifierHash: r.nullifierHash,
    depositSize: r.depositSize.toString(),
    fee: r.fee.toString(),
    changeCommitment: r.changeCommitment,
    changeLeafIndex: r.changeLeafIndex,
    relayer: r.relayer,
    minOut: r.minOut?.toString() ?? null,
    status: r.status,
    error: r.error,
    signature: r.signature,
    receivedAt: r.receivedAt,
    durationMs: last ? Math.max(0, last.at - r.receivedAt) : 0,
  };
}

/** Each pipeline step with its offset from receipt and how long until the next one. */
export function relaySteps(r: RelayRecord): RelayStep[] {
  const steps = [...r.steps].sort((a, b) => a.at - b.at);
  return steps.map((s, i) => {
    const next = steps[i + 1];
    const step: RelayStep = { kind: s.kind, at: s.at, sinceStartMs: s.at - r.receivedAt, durationMs: next ? next.at - s.at : null };
    if (s.kind === "verified") step.verifyMs = s.verifyMs;
    if (s.kind === "confirmed") step.signature = s.signature;
    if (s.kind === "failed") {
      step.error = s.error;
      step.detail = s.detail;
    }
    return step;
  });
}

/** Network fees the relayer paid for a relay, as its chain backend recorded them (the sandbox charges none). */
export const relayCostLamports = (r: { networkFeeLamports: bigint | null }): bigint => r.networkFeeLamports ?? 0n;

const MAX_PAGE = 200;

/** Cursor `receivedAt:id` of the last item of a page. */
export function parseRelayCursor(s: string): { receivedAt: number; id: string } | null {
  const m = /^(\d{1,16}):([0-9a-f-]{36})$/.exec(s);
  return m ? { receivedAt: Number(m[1]), id: m[2]! } : null;
}

export interface AdminRelaysDeps {
  store: ConsoleStore;
  indexer: IndexerService;
  chains: ReadonlyMap<Network, ChainBackend>;
  nullifierAddress(network: Network, mint: string, hash: Uint8Array): string;
  retentionDays: number;
  /** Relays refused before their proof verified (services/relay-rejections.ts). */
  rejected?: RejectedRelays;
}

/** Relay records, nullifier search and the spent list for the console. */
export class AdminRelays {
  constructor(private readonly deps: AdminRelaysDeps) {}

  async page(filter: RelayFilter, limit: number, before: { receivedAt: number; id: string } | null): Promise<AdminRelayPage> {
    const n = Math.min(Math.max(1, limit), MAX_PAGE);
    const rows = await this.deps.store.relays({ ...filter, limit: n + 1, ...(before ? { before } : {}) });
    const items = rows.slice(0, n).map(toAdminRelay);
    const last = items[items.length - 1];
    return {
      items,
      next: rows.length > n && last ? `${last.receivedAt}:${last.id}` : null,
      counts: await this.deps.store.relayCounts(filter),
      retentionDays: this.deps.retentionDays,
    };
  }

  /** Relays refused before they became candidates: counts since start and the newest kept ones (the HTTP layer adds their statuses). */
  rejected(limit: number): RejectedRelaysView {
    const r = this.deps.rejected;
    if (!r) return { since: 0, total: 0, counts: {}, kept: 0, items: [] };
    return { since: r.since, total: r.total, counts: r.counts(), kept: r.capacity, items: r.recent(Math.min(Math.max(1, limit), r.capacity)) };
  }

  async detail(id: string): Promise<AdminRelayDetail | null> {
    const record = await this.deps.store.relayById(id);
    if (!record) return null;
    return { ...toAdminRelay(record), steps: relaySteps(record), costLamports: relayCostLamports(record).toString(), attempts: record.attempts };
  }

  /** Every pool (or the given one) asked whether the nullifier is spent, with the relays that carried it. */
  async searchNullifier(hash: Uint8Array, only: { network?: Network; mint?: string }): Promise<AdminNullifierSearch> {
    const hex = toHex(hash);
    const relays = await this.deps.store.relaysByNullifier(hex);
    const pools = this.deps.indexer.list().filter((p) => (!only.network || p.network === only.network) && (!only.mint || p.mint === only.mint));
    const results: AdminNullifierSearch["results"] = [];
    for (const p of pools) {
      const chain = this.deps.chains.get(p.network);
      const spent = chain ? await chain.isNullifierSpent(p.mint, hash) : false;
      const carried = relays.filter((r) => r.network === p.network && r.mint === p.mint);
      if (!spent && carried.length === 0) continue;
      results.push({
        network: p.network,
        mint: p.mint,
        spent,
        address: spent ? this.deps.nullifierAddress(p.network, p.mint, hash) : null,
        relays: carried.map(toAdminRelay),
      });
    }
    return { nullifierHash: hex, poolsChecked: pools.length, results };
  }

  /** Nullifiers this relay spent (its confirmed relays), newest first. */
  async spent(filter: { network?: Network; mint?: string }, limit: number): Promise<AdminSpentNullifier[]> {
    return (await this.deps.store.relays({ ...filter, status: "confirmed", limit: Math.min(Math.max(1, limit), MAX_PAGE) })).map((r) => ({
      nullifierHash: r.nullifierHash,
      network: r.network,
      mint: r.mint,
      at: r.steps.find((s) => s.kind === "confirmed")?.at ?? r.receivedAt,
      relayId: r.id,
      signature: r.signature,
    }));
  }
}
