import type { AdminHealth } from "../../../src-shared/api/admin";
import { Badge } from "../../components/Badge";
import { PoolName } from "../../components/cells";
import { DataTable, type Column } from "../../components/DataTable";
import { Panel } from "../../components/Panel";
import { EmptyState } from "../../components/StateViews";
import { formatCount } from "../../lib/format";
import { formatDateTime, formatDuration } from "../../lib/time";

const INDEXER: readonly Column<AdminHealth["indexer"][number]>[] = [
  { header: "Pool", rowHeader: true, title: (p) => p.mint, cell: (p) => <PoolName mint={p.mint} network={p.network} /> },
  { header: "Indexed leaves", cell: (p) => formatCount(p.nextIndex) },
  { header: "On chain", cell: (p) => (p.chainNextIndex === null ? <span className="muted">unknown</span> : formatCount(p.chainNextIndex)) },
  {
    header: "State",
    cell: (p) =>
      p.drift ? (
        <Badge tone="bad" title={p.drift}>
          root drift
        </Badge>
      ) : p.lag === null ? (
        <Badge tone="warn">chain not answering</Badge>
      ) : p.lag > 0 ? (
        <Badge tone="warn">{p.lag} behind</Badge>
      ) : (
        <Badge tone="ok">in sync</Badge>
      ),
  },
];

export function IndexerPanel({ indexer }: { indexer: AdminHealth["indexer"] }) {
  return (
    <Panel id="indexer-title" title="Indexer">
      <DataTable columns={INDEXER} rows={indexer} rowKey={(p) => `${p.network}/${p.mint}`} empty={<EmptyState title="No pools indexed yet" />} />
    </Panel>
  );
}

export function StorePanel({ store }: { store: AdminHealth["store"] }) {
  return (
    <Panel id="store-title" title="Store">
      <dl className="kv">
        <dt>State</dt>
        <dd>{store.ok ? <Badge tone="ok">writing</Badge> : <Badge tone="bad">{store.failure ?? "failed"}</Badge>}</dd>
        <dt>Journal</dt>
        <dd>{formatCount(Math.round(store.journalBytes / 1024))} KiB since the last snapshot</dd>
        <dt>Writes</dt>
        <dd>
          {formatCount(store.writes)} batches, {formatCount(store.fsyncs)} fsyncs since start
        </dd>
        <dt>Last snapshot</dt>
        <dd>
          {store.lastSnapshotAt
            ? `${formatDateTime(store.lastSnapshotAt)}${store.snapshotMs !== null ? ` (${formatDuration(store.snapshotMs)})` : ""}`
            : "none yet"}
        </dd>
      </dl>
    </Panel>
  );
}

const LIMITS: readonly Column<AdminHealth["rateLimits"][number]>[] = [
  { header: "Endpoint", cell: (l) => <code>{l.endpoint}</code> },
  { header: "Requests", cell: (l) => formatCount(l.hits) },
  { header: "Refused", cell: (l) => (l.refusals > 0 ? <Badge tone="warn">{formatCount(l.refusals)}</Badge> : "0") },
];

export function RateLimitsPanel({ limits }: { limits: AdminHealth["rateLimits"] }) {
  const busy = limits.filter((l) => l.hits > 0);
  return (
    <Panel id="limits-title" title="Rate limits since start">
      <DataTable columns={LIMITS} rows={busy} rowKey={(l) => l.endpoint} empty={<EmptyState title="No limited endpoint was called yet" />} compact />
    </Panel>
  );
}
