import { useState, type FormEvent } from "react";
import type { AdminCompliance } from "../../../src-shared/admin-api";
import { REFRESH_MS, useCompliance, useSetOverride } from "../../api/admin-hooks";
import { Badge } from "../../components/Badge";
import { PageHeader } from "../../components/PageHeader";
import { QueryView } from "../../components/QueryView";
import { EmptyState } from "../../components/StateViews";
import { StatusBadge } from "../../components/StatusBadge";
import { formatCount, shortenMiddle } from "../../lib/format";
import { formatAgo, formatDateTime } from "../../lib/time";

const PURPOSE: Record<string, string> = { ofac_signature: "compliance signature", relay_recipient: "relay recipient" };

/** Every screening decision with the list version that made it, the list in force, and the operator's overrides. */
export function CompliancePage() {
  const [filter, setFilter] = useState("");
  const [address, setAddress] = useState("");
  const log = useCompliance(address);
  return (
    <section className="page" aria-labelledby="compliance-title">
      <PageHeader
        id="compliance-title"
        title="Compliance"
        lede={`Sanctions screening: the list in force, every decision, and overrides with their reasons; refreshed every ${REFRESH_MS.support / 1000} s.`}
        {...(log.data ? { updatedAt: log.dataUpdatedAt, fetching: log.isFetching, stale: Boolean(log.error) } : {})}
      />
      <QueryView query={log} loading="Reading the compliance log…">
        {(c) => (
          <>
            <ListPanel c={c} />
            <section className="panel" aria-labelledby="decisions-title">
              <h2 id="decisions-title">Decisions</h2>
              <form
                className="search"
                role="search"
                onSubmit={(e) => {
                  e.preventDefault();
                  setAddress(filter.trim());
                }}
              >
                <input className="input input-wide" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="Filter by address" aria-label="Address" />
                <button type="submit" className="button">
                  Filter
                </button>
                {address ? (
                  <button type="button" className="button" onClick={() => (setFilter(""), setAddress(""))}>
                    Clear
                  </button>
                ) : null}
              </form>
              {c.decisions.length === 0 ? (
                <EmptyState title="No decision recorded">Every compliance signature and every relay recipient screened is recorded here.</EmptyState>
              ) : (
                <div className="table-scroll">
                  <table className="table" data-testid="decisions-table">
                    <thead>
                      <tr>
                        <th scope="col">When</th>
                        <th scope="col">For</th>
                        <th scope="col">Address</th>
                        <th scope="col">Outcome</th>
                        <th scope="col">List version</th>
                      </tr>
                    </thead>
                    <tbody>
                      {c.decisions.map((d) => (
                        <tr key={d.id}>
                          <td title={formatDateTime(d.at)}>{formatAgo(d.at, Date.now())}</td>
                          <td>
                            {PURPOSE[d.purpose] ?? d.purpose} {d.network ? <span className="muted">{d.network}</span> : null}
                          </td>
                          <td>
                            <code title={d.address}>{shortenMiddle(d.address, 6, 6)}</code>
                          </td>
                          <td>
                            <StatusBadge status={d.outcome} />
                          </td>
                          <td>
                            <code>{d.listVersion ?? "none"}</code>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </section>
            <Overrides c={c} />
          </>
        )}
      </QueryView>
    </section>
  );
}

function ListPanel({ c }: { c: AdminCompliance }) {
  const l = c.list;
  return (
    <dl className="facts">
      <div className="fact">
        <dt>Addresses listed</dt>
        <dd>{formatCount(l.count)}</dd>
      </div>
      <div className="fact">
        <dt>List version</dt>
        <dd>{l.version ? <code>{l.version}</code> : <Badge tone="bad">no list loaded</Badge>}</dd>
      </div>
      <div className="fact fact-wide">
        <dt>Source ({l.kind})</dt>
        <dd className="fact-small">
          {l.source}
          {l.lastError ? <div className="field-error">{l.lastError}</div> : null}
          <div className="muted">
            {l.loadedAt ? `loaded ${formatDateTime(l.loadedAt)}` : "never loaded"} · overrides +{l.overrides.add} / −{l.overrides.remove}
          </div>
        </dd>
      </div>
    </dl>
  );
}

function Overrides({ c }: { c: AdminCompliance }) {
  const set = useSetOverride();
  const [address, setAddress] = useState("");
  const [action, setAction] = useState<"add" | "remove" | "clear">("add");
  const [reason, setReason] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    set.mutate({ address: address.trim(), action, reason }, { onSuccess: () => (setAddress(""), setReason("")) });
  };
  return (
    <section className="panel" aria-labelledby="overrides-title">
      <h2 id="overrides-title">Overrides</h2>
      <p className="muted">Your additions to and removals from the loaded list, applied at once and kept across restarts. Each needs a reason.</p>
      {c.overrides.length === 0 ? (
        <p className="muted">No override: the loaded list decides alone.</p>
      ) : (
        <table className="table table-compact">
          <thead>
            <tr>
              <th scope="col">Address</th>
              <th scope="col">Override</th>
              <th scope="col">Reason</th>
              <th scope="col">Since</th>
            </tr>
          </thead>
          <tbody>
            {c.overrides.map((o) => (
              <tr key={o.address}>
                <td>
                  <code title={o.address}>{shortenMiddle(o.address, 6, 6)}</code>
                </td>
                <td>{o.action === "add" ? <Badge tone="bad">listed</Badge> : <Badge tone="ok">unlisted</Badge>}</td>
                <td>{o.reason}</td>
                <td>{formatDateTime(o.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form className="override-form" onSubmit={submit}>
        <input className="input input-wide" value={address} onChange={(e) => setAddress(e.target.value)} placeholder="Solana address" aria-label="Address to override" />
        <select className="input" value={action} onChange={(e) => setAction(e.target.value as "add" | "remove" | "clear")} aria-label="Override">
          <option value="add">List it</option>
          <option value="remove">Unlist it</option>
          <option value="clear">Drop its override</option>
        </select>
        <input className="input input-wide" value={reason} onChange={(e) => setReason(e.target.value)} placeholder="Reason (kept in the audit trail)" aria-label="Reason" />
        <button type="submit" className="button button-primary" disabled={set.isPending || !address.trim() || reason.trim().length < 3}>
          Save
        </button>
      </form>
      {set.error ? (
        <p className="field-error" role="alert">
          {set.error.message}
        </p>
      ) : null}
    </section>
  );
}
