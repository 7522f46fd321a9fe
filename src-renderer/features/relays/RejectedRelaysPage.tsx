import type { AdminRejectedRelay } from "../../../src-shared/api/admin";
import { useRejectedRelays } from "../../api/admin-hooks";
import { hrefFor } from "../../app/routes";
import { PoolName } from "../../components/cells";
import { DataTable, type Column } from "../../components/DataTable";
import { QueryPage } from "../../components/Page";
import { EmptyState } from "../../components/StateViews";
import { formatAgo, formatDateTime } from "../../lib/time";

const COLUMNS: readonly Column<AdminRejectedRelay>[] = [
  { header: "Received", title: (r) => formatDateTime(r.at), cell: (r) => formatAgo(r.at, Date.now()) },
  {
    header: "Pool",
    title: (r) => r.mint,
    cell: (r) => (
      <>
        <PoolName mint={r.mint} network={r.network} />
        {r.kind === "swap" ? <span className="muted"> (swap)</span> : null}
      </>
    ),
  },
  {
    header: "Answer",
    cell: (r) => (
      <>
        {r.status} {r.error}
      </>
    ),
  },
  { header: "Why", className: "muted", cell: (r) => r.detail },
];

/**
 * Relays refused before their proof verified (wrong pool, root or fee, a spent nullifier,
 * an invalid proof, ...): anyone can send them, so the relay keeps them in memory only,
 * counted per error since it started, with the newest few hundred listed.
 */
export function RejectedRelaysPage() {
  const rejected = useRejectedRelays();
  return (
    <QueryPage
      id="rejected-title"
      title="Rejected relays"
      lede={
        <>
          <a href={hrefFor("relays")}>← All relays</a> · Requests refused before their proof verified. Kept in memory only (never stored), counted since the
          relay started.
        </>
      }
      query={rejected}
      loading="Reading rejected relays…"
    >
      {(data) => (
        <section className="panel" aria-label="Rejected relays">
          <p className="counts" data-testid="rejected-counts">
            {Object.entries(data.counts).map(([error, n]) => (
              <span key={error} className="count count-failed" data-error={error}>
                {n} {error}
              </span>
            ))}
            {data.total === 0 ? (
              <span className="muted">None since {formatDateTime(data.since)}.</span>
            ) : (
              <span className="muted"> since {formatDateTime(data.since)}</span>
            )}
          </p>
          <DataTable
            columns={COLUMNS}
            rows={data.items}
            rowKey={(r, i) => `${r.at}-${i}`}
            rowData={(r) => ({ "data-error": r.error })}
            empty={<EmptyState title="No rejected relays">Relays refused before their proof verified appear here (the newest {data.kept}).</EmptyState>}
            scroll
            testId="rejected-table"
          />
        </section>
      )}
    </QueryPage>
  );
}
