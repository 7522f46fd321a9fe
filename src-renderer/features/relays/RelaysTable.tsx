import type { AdminRelay } from "../../../src-shared/api/admin";
import { hrefFor } from "../../app/routes";
import { Address, PoolName } from "../../components/cells";
import { DataTable, type Column } from "../../components/DataTable";
import { StatusBadge } from "../../components/StatusBadge";
import { formatCount } from "../../lib/format";
import { formatAmount, mintLabel } from "../../lib/mints";
import { formatAgo, formatDateTime, formatDuration } from "../../lib/time";

function columns(now: number): readonly Column<AdminRelay>[] {
  return [
    {
      header: "Received",
      cell: (r) => (
        <a href={hrefFor("relays", r.id)} title={formatDateTime(r.receivedAt)}>
          {formatAgo(r.receivedAt, now)}
        </a>
      ),
    },
    {
      header: "Pool",
      title: (r) => r.mint,
      cell: (r) => (
        <>
          <PoolName mint={r.mint} network={r.network} />
          {r.kind === "swap" ? <span className="muted"> → {r.outputMint ? mintLabel(r.outputMint) : "?"}</span> : null}
        </>
      ),
    },
    { header: "Withdrawn", numeric: true, title: () => "The part of the note withdrawn", cell: (r) => formatAmount(r.depositSize, r.mint) },
    { header: "Fee", numeric: true, title: (r) => (r.relayer ? `paid to ${r.relayer}` : undefined), cell: (r) => formatAmount(r.fee, r.mint) },
    {
      header: "Min out",
      numeric: true,
      cell: (r) => (r.kind === "swap" && r.minOut !== null && r.outputMint ? formatAmount(r.minOut, r.outputMint) : <span className="muted">–</span>),
    },
    {
      header: "Status",
      cell: (r) => (
        <>
          <StatusBadge status={r.status} />
          {r.error ? <span className="muted cell-note"> {r.error}</span> : null}
        </>
      ),
    },
    {
      header: "Change leaf",
      numeric: true,
      title: (r) => (r.changeCommitment ? `change commitment 0x${r.changeCommitment}` : "a record from before protocol v3"),
      cell: (r) => (r.changeLeafIndex !== null ? formatCount(r.changeLeafIndex) : <span className="muted">–</span>),
    },
    { header: "Took", numeric: true, cell: (r) => formatDuration(r.durationMs) },
    { header: "Recipient", cell: (r) => <Address value={r.recipient} edge={4} /> },
  ];
}

/** Relay records as rows; the time links to the record's pipeline. */
export function RelaysTable({ items, now = Date.now() }: { items: readonly AdminRelay[]; now?: number }) {
  return (
    <DataTable
      columns={columns(now)}
      rows={items}
      rowKey={(r) => r.id}
      rowData={(r) => ({ "data-relay": r.id, "data-status": r.status })}
      scroll
      testId="relays-table"
    />
  );
}
