import type { AdminArchivedPool } from "../../../src-shared/api/admin";
import { useArchivedPools } from "../../api/admin-hooks";
import { Address, PoolName } from "../../components/cells";
import { DataTable, type Column } from "../../components/DataTable";
import { Panel } from "../../components/Panel";
import { formatDateTime } from "../../lib/time";

const COLUMNS: readonly Column<AdminArchivedPool>[] = [
  { header: "Pool", rowHeader: true, title: (p) => p.mint, cell: (p) => <PoolName mint={p.mint} network={p.network} /> },
  { header: "Leaves", numeric: true, cell: (p) => p.leaves.toLocaleString() },
  { header: "Last root", cell: (p) => (p.root ? <Address value={p.root} /> : <span className="muted">none</span>) },
  { header: "Archived", cell: (p) => formatDateTime(p.archivedAt) },
  { header: "Why", cell: (p) => p.reason },
];

/**
 * Pools set aside at the protocol v2 upgrade: their leaves were chosen by
 * depositors (v1), so they are never relayed from nor mixed with v2 leaves.
 * Shown only when the data dir held some.
 */
export function ArchivedPools() {
  const archived = useArchivedPools();
  const list = archived.data ?? [];
  if (list.length === 0) return null;
  return (
    <Panel id="archived-pools-title" title="Archived at the protocol v2 upgrade" testId="archived-pools">
      <p className="muted">
        These sandbox pools were built on protocol v1 leaves, which depositors chose themselves. They are kept apart, read-only, and never relayed from; relay,
        revert and compliance records from before the upgrade are kept.
      </p>
      <DataTable columns={COLUMNS} rows={list} rowKey={(p) => `${p.network}/${p.mint}/${p.protocol}`} compact scroll />
    </Panel>
  );
}
