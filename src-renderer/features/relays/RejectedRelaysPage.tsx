import { useRejectedRelays } from "../../api/admin-hooks";
import { hrefFor } from "../../app/routes";
import { PageHeader } from "../../components/PageHeader";
import { QueryView } from "../../components/QueryView";
import { EmptyState } from "../../components/StateViews";
import { mintLabel } from "../../lib/mints";
import { formatAgo, formatDateTime } from "../../lib/time";

/**
 * Relays refused before their proof verified (wrong pool, root or fee, a spent nullifier,
 * an invalid proof, ...): anyone can send them, so the relay keeps them in memory only,
 * counted per error since it started, with the newest few hundred listed.
 */
export function RejectedRelaysPage() {
  const rejected = useRejectedRelays();
  return (
    <section className="page" aria-labelledby="rejected-title">
      <PageHeader
        id="rejected-title"
        title="Rejected relays"
        lede={
          <>
            <a href={hrefFor("relays")}>← All relays</a> · Requests refused before their proof verified. Kept in memory only (never stored), counted since the
            relay started.
          </>
        }
        {...(rejected.data ? { updatedAt: rejected.dataUpdatedAt, fetching: rejected.isFetching, stale: Boolean(rejected.error) } : {})}
      />
      <QueryView query={rejected} loading="Reading rejected relays…">
        {(data) => (
          <section className="panel" aria-label="Rejected relays">
            <p className="counts" data-testid="rejected-counts">
              {Object.entries(data.counts).map(([error, n]) => (
                <span key={error} className="count count-failed" data-error={error}>
                  {n} {error}
                </span>
              ))}
              {data.total === 0 ? <span className="muted">None since {formatDateTime(data.since)}.</span> : <span className="muted"> since {formatDateTime(data.since)}</span>}
            </p>
            {data.items.length === 0 ? (
              <EmptyState title="No rejected relays">Relays refused before their proof verified appear here (the newest {data.kept}).</EmptyState>
            ) : (
              <div className="table-scroll">
                <table className="table" data-testid="rejected-table">
                  <thead>
                    <tr>
                      <th scope="col">Received</th>
                      <th scope="col">Pool</th>
                      <th scope="col">Answer</th>
                      <th scope="col">Why</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((r, i) => (
                      <tr key={`${r.at}-${i}`} data-error={r.error}>
                        <td title={formatDateTime(r.at)}>{formatAgo(r.at, Date.now())}</td>
                        <td title={r.mint}>
                          {mintLabel(r.mint)} <span className="muted">{r.network}</span>
                          {r.kind === "swap" ? <span className="muted"> (swap)</span> : null}
                        </td>
                        <td>
                          {r.status} {r.error}
                        </td>
                        <td className="muted">{r.detail}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        )}
      </QueryView>
    </section>
  );
}
