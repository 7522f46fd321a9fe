import { useState } from "react";
import { REVERT_STATUSES, type AdminRevert, type RevertStatus } from "../../../src-shared/api/admin";
import { REFRESH_MS, useReverts } from "../../api/admin-hooks";
import { CopyValue } from "../../components/CopyValue";
import { Address } from "../../components/cells";
import { DataTable, type Column } from "../../components/DataTable";
import { QueryPage } from "../../components/Page";
import { Segmented } from "../../components/Segmented";
import { EmptyState } from "../../components/StateViews";
import { StatusBadge } from "../../components/StatusBadge";
import { formatAmount, mintLabel } from "../../lib/mints";
import { formatAgo, formatDateTime, formatDuration } from "../../lib/time";

const FILTERS = [{ value: "" as const, label: "All" }, ...REVERT_STATUSES.map((s) => ({ value: s, label: s[0]!.toUpperCase() + s.slice(1) }))];

/** The support queue: deposits their depositors asked to revert, and what happened. */
export function RevertsPage() {
  const [status, setStatus] = useState<RevertStatus | "">("");
  const [open, setOpen] = useState<string | null>(null);
  const reverts = useReverts(status);
  return (
    <QueryPage
      id="reverts-title"
      title="Reverts"
      lede={`Revert requests for deposits that never reached the tree, newest first; refreshed every ${REFRESH_MS.support / 1000} s.`}
      query={reverts}
      loading="Reading the revert queue…"
      actions={<Segmented label="Status" options={FILTERS} value={status} onChange={setStatus} />}
    >
      {(items) =>
        items.length === 0 ? (
          <EmptyState title={status ? `No ${status} revert` : "No revert requested yet"}>
            A depositor asks with <code>POST /revert/&#123;network&#125;/&#123;id&#125;/&#123;txn_sig&#125;</code> when a deposit failed to enter the tree.
          </EmptyState>
        ) : (
          <section className="panel" aria-label="Revert requests">
            <DataTable
              columns={columns(open, (id) => setOpen(open === id ? null : id))}
              rows={items}
              rowKey={(r) => r.id}
              rowData={(r) => ({ "data-revert": r.id })}
              rowDetail={(r) => (open === r.id ? <RevertDetail r={r} /> : null)}
              testId="reverts-table"
            />
          </section>
        )
      }
    </QueryPage>
  );
}

/** The queue's columns; `open` is the revert whose details show, `toggle` opens or closes one. */
function columns(open: string | null, toggle: (id: string) => void): readonly Column<AdminRevert>[] {
  return [
    { header: "Requested", title: (r) => formatDateTime(r.requestedAt), cell: (r) => formatAgo(r.requestedAt, Date.now()) },
    { header: "Network", cell: (r) => r.network },
    { header: "Deposit", cell: (r) => <Address value={r.depositSignature} /> },
    { header: "Amount", numeric: true, cell: (r) => (r.amount && r.mint ? formatAmount(r.amount, r.mint) : <span className="muted">unknown</span>) },
    {
      header: "Status",
      cell: (r) => (
        <>
          <StatusBadge status={r.status} /> {r.error ? <code className="cell-note">{r.error}</code> : null}
        </>
      ),
    },
    {
      header: "",
      cell: (r) => (
        <button type="button" className="button button-small" aria-expanded={open === r.id} onClick={() => toggle(r.id)}>
          {open === r.id ? "Hide" : "Details"}
        </button>
      ),
    },
  ];
}

function RevertDetail({ r }: { r: AdminRevert }) {
  return (
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
  );
}
