import type { AdminHealth } from "../../../src-shared/api/admin";
import { Badge } from "../../components/Badge";
import { DataTable, type Column } from "../../components/DataTable";
import { Panel } from "../../components/Panel";
import { formatCount } from "../../lib/format";
import { formatDateTime } from "../../lib/time";

type Endpoint = NonNullable<AdminHealth["networks"][number]["rpcEndpoints"]>[number];

const COLUMNS: readonly Column<{ network: string; e: Endpoint }>[] = [
  { header: "Network", rowHeader: true, cell: (r) => r.network },
  { header: "Endpoint", cell: ({ e }) => <code>{e.url}</code> },
  { header: "State", cell: ({ e }) => (e.healthy ? <Badge tone="ok">{e.active ? "healthy, in use" : "healthy"}</Badge> : <Badge tone="bad">unhealthy</Badge>) },
  { header: "Latency", cell: ({ e }) => (e.latencyMs === null ? <span className="muted">–</span> : `${e.latencyMs} ms`) },
  {
    header: "Slot",
    cell: ({ e }) => (
      <>
        {e.slot === null ? <span className="muted">–</span> : formatCount(e.slot)}
        {e.slotLag ? <span className="muted"> ({e.slotLag} behind)</span> : null}
      </>
    ),
  },
  { header: "Requests / errors", cell: ({ e }) => `${formatCount(e.requests)} / ${formatCount(e.errors)}` },
  {
    header: "Last error",
    cell: ({ e }) =>
      e.lastError ? (
        <span title={e.lastError}>
          {e.lastErrorAt ? `${formatDateTime(e.lastErrorAt)}: ` : ""}
          {e.lastError.slice(0, 80)}
        </span>
      ) : (
        <span className="muted">none</span>
      ),
  },
];

/** Each solana network's RPC endpoints as the failover sees them (URLs as origins only); nothing for sandbox networks. */
export function RpcEndpointsPanel({ networks }: { networks: AdminHealth["networks"] }) {
  const withEndpoints = networks.filter((n) => n.rpcEndpoints && n.rpcEndpoints.length > 0);
  if (withEndpoints.length === 0) return null;
  return (
    <Panel id="rpc-title" title="RPC endpoints">
      <p className="muted">Requests go to the healthiest endpoint and move to the next on a failure; signed transactions go to every healthy one.</p>
      <DataTable
        columns={COLUMNS}
        rows={withEndpoints.flatMap((n) => n.rpcEndpoints!.map((e) => ({ network: n.name, e })))}
        rowKey={(r) => `${r.network}/${r.e.url}`}
        rowData={(r) => ({ "data-endpoint": r.e.url })}
        testId="rpc-endpoints"
      />
    </Panel>
  );
}
