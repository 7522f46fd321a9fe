import { useState } from "react";
import { RELAY_STATUSES, type RelayStatus } from "../../../src-shared/api/admin";
import type { RelayFilters } from "../../api/admin";
import { REFRESH_MS, usePools, useRejectedRelays, useRelays } from "../../api/admin-hooks";
import { hrefFor } from "../../app/routes";
import { NetworkSelect } from "../../components/NetworkSelect";
import { Page } from "../../components/Page";
import { Field, SelectField, type SelectOption } from "../../components/SelectField";
import { QueryView } from "../../components/QueryView";
import { EmptyState } from "../../components/StateViews";
import { mintLabel } from "../../lib/mints";
import { RelaysTable } from "./RelaysTable";

const ALL = { value: "" as const, label: "all" };
const STATUSES: readonly SelectOption<RelayStatus | "">[] = [ALL, ...RELAY_STATUSES.map((s) => ({ value: s, label: s }))];
const WINDOWS: readonly SelectOption<number>[] = [
  { value: 3_600_000, label: "last hour" },
  { value: 86_400_000, label: "last 24 h" },
  { value: 7 * 86_400_000, label: "last 7 days" },
  { value: 0, label: "any time" },
];

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
    <Page
      id="relays-title"
      title="Relays"
      lede={`Every withdrawal with a valid proof the relay was asked to submit, newest first, live (every ${REFRESH_MS.relays / 1000} s). No client address is ever recorded.`}
      query={page}
      actions={
        <a className="button button-small" href={hrefFor("relays", "rejected")} data-testid="rejected-relays-link">
          Rejected{rejected.data ? ` (${rejected.data.total})` : ""}
        </a>
      }
    >
      <div className="filters panel" role="search" aria-label="Filter relays">
        <Field label="Network" inline>
          <NetworkSelect all value={filters.network ?? ""} onChange={(network) => update({ network })} />
        </Field>
        <SelectField
          label="Pool"
          inline
          value={filters.mint ?? ""}
          options={[ALL, ...mints.map((m) => ({ value: m, label: mintLabel(m) }))]}
          onChange={(mint) => update({ mint })}
        />
        <SelectField label="Status" inline value={filters.status ?? ""} options={STATUSES} onChange={(status) => update({ status })} />
        <SelectField label="Received" inline value={filters.withinMs ?? 0} options={WINDOWS} onChange={(withinMs) => update({ withinMs })} />
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
                Relays appear here the moment their proof verifies (requests refused before that are under Rejected). Records older than {data.retentionDays}{" "}
                days are folded into daily totals (see Money).
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
    </Page>
  );
}
