import { useState } from "react";
import { RELAY_STATUSES, type RelayStatus } from "../../../src-shared/admin-api";
import type { RelayFilters } from "../../api/admin";
import { REFRESH_MS, usePools, useRejectedRelays, useRelays } from "../../api/admin-hooks";
import { hrefFor } from "../../app/routes";
import { NetworkSelect } from "../../components/NetworkSelect";
import { PageHeader } from "../../components/PageHeader";
import { QueryView } from "../../components/QueryView";
import { EmptyState } from "../../components/StateViews";
import { mintLabel } from "../../lib/mints";
import { RelaysTable } from "./RelaysTable";

const WINDOWS = [
  { ms: 3_600_000, label: "last hour" },
  { ms: 86_400_000, label: "last 24 h" },
  { ms: 7 * 86_400_000, label: "last 7 days" },
  { ms: 0, label: "any time" },
] as const;

export function RelaysPage() {
  const [filters, setFilters] = useState<RelayFilters>({ network: "", mint: "", status: "", withinMs: 0 });
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const before = cursors[cursors.length - 1] ?? null;
  const page = useRelays(filters, before);
  const pools = usePools("24h");
  const rejected = useRejectedRelays();
  const mints = [...new Set((pools.data ?? []).map((p) => p.mint))];
  const update = (f: Partial<RelayFilters>) => {
    setFilters((old) => ({ ...old, ...f }));
    setCursors([null]);
  };

  return (
    <section className="page" aria-labelledby="relays-title">
      <PageHeader
        id="relays-title"
        title="Relays"
        lede={`Every withdrawal with a valid proof the relay was asked to submit, newest first, live (every ${REFRESH_MS.relays / 1000} s). No client address is ever recorded.`}
        {...(page.data ? { updatedAt: page.dataUpdatedAt, fetching: page.isFetching, stale: Boolean(page.error) } : {})}
      >
        <a className="button button-small" href={hrefFor("relays", "rejected")} data-testid="rejected-relays-link">
          Rejected{rejected.data ? ` (${rejected.data.total})` : ""}
        </a>
      </PageHeader>
      <div className="filters panel" role="search" aria-label="Filter relays">
        <label className="field-inline">
          <span>Network</span>
          <NetworkSelect all value={filters.network ?? ""} onChange={(network) => update({ network })} />
        </label>
        <label className="field-inline">
          <span>Pool</span>
          <select className="input" value={filters.mint} onChange={(e) => update({ mint: e.target.value })}>
            <option value="">all</option>
            {mints.map((m) => (
              <option key={m} value={m}>
                {mintLabel(m)}
              </option>
            ))}
          </select>
        </label>
        <label className="field-inline">
          <span>Status</span>
          <select className="input" value={filters.status} onChange={(e) => update({ status: e.target.value as RelayStatus | "" })}>
            <option value="">all</option>
            {RELAY_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label className="field-inline">
          <span>Received</span>
          <select className="input" value={filters.withinMs} onChange={(e) => update({ withinMs: Number(e.target.value) })}>
            {WINDOWS.map((w) => (
              <option key={w.ms} value={w.ms}>
                {w.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <QueryView query={page} loading="Reading relay records…">
        {(data) => (
          <section className="panel" aria-label="Relay records">
            <p className="counts" data-testid="relay-counts">
              {RELAY_STATUSES.filter((s) => data.counts[s]).map((s) => (
                <span key={s} className={`count count-${s}`}>
                  {data.counts[s]} {s}
                </span>
              ))}
              {Object.keys(data.counts).length === 0 ? <span className="muted">No relay matches these filters.</span> : null}
            </p>
            {data.items.length === 0 ? (
              <EmptyState title={cursors.length > 1 ? "No older relays" : "No relays yet"}>
                Relays appear here the moment their proof verifies (requests refused before that are under Rejected). Records older than {data.retentionDays} days are folded into daily totals
                (see Money).
              </EmptyState>
            ) : (
              <RelaysTable items={data.items} />
            )}
            <div className="pager">
              <button type="button" className="button button-small" disabled={cursors.length === 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
                Newer
              </button>
              <button type="button" className="button button-small" disabled={!data.next} onClick={() => data.next && setCursors((c) => [...c, data.next])}>
                Older
              </button>
            </div>
          </section>
        )}
      </QueryView>
    </section>
  );
}
