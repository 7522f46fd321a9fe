import { useState } from "react";
import { REVERT_STATUSES, type AdminRevert, type RevertStatus } from "../../../src-shared/admin-api";
import { REFRESH_MS, useReverts } from "../../api/admin-hooks";
import { CopyValue } from "../../components/CopyValue";
import { PageHeader } from "../../components/PageHeader";
import { QueryView } from "../../components/QueryView";
import { Segmented } from "../../components/Segmented";
import { EmptyState } from "../../components/StateViews";
import { StatusBadge } from "../../components/StatusBadge";
import { shortenMiddle } from "../../lib/format";
import { formatAmount, mintLabel } from "../../lib/mints";
import { formatAgo, formatDateTime, formatDuration } from "../../lib/time";

const FILTERS = [{ value: "" as const, label: "All" }, ...REVERT_STATUSES.map((s) => ({ value: s, label: s[0]!.toUpperCase() + s.slice(1) }))];

/** The support queue: deposits their depositors asked to revert, and what happened. */
export function RevertsPage() {
  const [status, setStatus] = useState<RevertStatus | "">("");
  const [open, setOpen] = useState<string | null>(null);
  const reverts = useReverts(status);
  return (
    <section className="page" aria-labelledby="reverts-title">
      <PageHeader
        id="reverts-title"
        title="Reverts"
        lede={`Revert requests for deposits that never reached the tree, newest first; refreshed every ${REFRESH_MS.support / 1000} s.`}
        query={reverts}
      >
        <Segmented label="Status" options={FILTERS} value={status} onChange={setStatus} />
      </PageHeader>
      <QueryView query={reverts} loading="Reading the revert queue…">
        {(items) =>
          items.length === 0 ? (
            <EmptyState title={status ? `No ${status} revert` : "No revert requested yet"}>
              A depositor asks with <code>POST /revert/&#123;network&#125;/&#123;id&#125;/&#123;txn_sig&#125;</code> when a deposit failed to enter the tree.
            </EmptyState>
          ) : (
            <section className="panel" aria-label="Revert requests">
              <table className="table" data-testid="reverts-table">
                <thead>
                  <tr>
                    <th scope="col">Requested</th>
                    <th scope="col">Network</th>
                    <th scope="col">Deposit</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Status</th>
                    <th scope="col" />
                  </tr>
                </thead>
                <tbody>
                  {items.map((r) => (
                    <RevertRow key={r.id} r={r} open={open === r.id} onToggle={() => setOpen(open === r.id ? null : r.id)} />
                  ))}
                </tbody>
              </table>
            </section>
          )
        }
      </QueryView>
    </section>
  );
}

function RevertRow({ r, open, onToggle }: { r: AdminRevert; open: boolean; onToggle: () => void }) {
  return (
    <>
      <tr data-revert={r.id}>
        <td title={formatDateTime(r.requestedAt)}>{formatAgo(r.requestedAt, Date.now())}</td>
        <td>{r.network}</td>
        <td>
          <code title={r.depositSignature}>{shortenMiddle(r.depositSignature, 6, 6)}</code>
        </td>
        <td className="num">{r.amount && r.mint ? formatAmount(r.amount, r.mint) : <span className="muted">unknown</span>}</td>
        <td>
          <StatusBadge status={r.status} /> {r.error ? <code className="cell-note">{r.error}</code> : null}
        </td>
        <td>
          <button type="button" className="button button-small" aria-expanded={open} onClick={onToggle}>
            {open ? "Hide" : "Details"}
          </button>
        </td>
      </tr>
      {open ? (
        <tr className="row-detail">
          <td colSpan={6}>
            <dl className="kv">
              <dt>Depositor</dt>
              <dd>
                <CopyValue value={r.wallet} label="depositor" display={r.wallet} />
              </dd>
              <dt>Deposit transaction</dt>
              <dd>
                <CopyValue value={r.depositSignature} label="deposit transaction" />
              </dd>
              {r.mint ? (
                <>
                  <dt>Pool</dt>
                  <dd>{mintLabel(r.mint)}</dd>
                </>
              ) : null}
              <dt>Revert transaction</dt>
              <dd>{r.signature ? <CopyValue value={r.signature} label="revert transaction" /> : <span className="muted">none</span>}</dd>
              <dt>Steps</dt>
              <dd>
                <ol className="steps-inline">
                  {r.steps.map((s) => (
                    <li key={`${s.kind}-${s.at}`}>
                      <StatusBadge status={s.kind} /> +{formatDuration(s.sinceStartMs)}
                      {s.error ? ` ${s.error}: ${s.detail ?? ""}` : ""}
                    </li>
                  ))}
                </ol>
              </dd>
            </dl>
          </td>
        </tr>
      ) : null}
    </>
  );
}
