import type { AdminHealth } from "../../../src-shared/api/admin";
import { useSetFault } from "../../api/admin-hooks";
import { Badge } from "../../components/Badge";
import { DataTable, type Column } from "../../components/DataTable";
import { Panel } from "../../components/Panel";
import { EmptyState } from "../../components/StateViews";

function columns(fault: ReturnType<typeof useSetFault>): readonly Column<AdminHealth["networks"][number]>[] {
  return [
    { header: "Network", rowHeader: true, cell: (n) => n.name },
    { header: "Chain backend", cell: (n) => n.backend },
    {
      header: "Funds",
      cell: (n) =>
        n.sandbox ? (
          <Badge tone="warn" title="Local test ledger: no real funds move">
            sandbox, test funds only
          </Badge>
        ) : (
          <Badge tone="neutral">real</Badge>
        ),
    },
    {
      header: "Outage drill",
      cell: (n) =>
        n.faults ? (
          <span className="inline-actions">
            {n.faults.chainDown ? <Badge tone="bad">chain down (simulated)</Badge> : null}
            <button
              type="button"
              className="button button-small"
              disabled={fault.isPending}
              onClick={() => fault.mutate({ network: n.name, chainDown: !n.faults!.chainDown })}
            >
              {n.faults.chainDown ? "End outage" : "Simulate outage"}
            </button>
          </span>
        ) : (
          <span className="muted">real chains only fail for real</span>
        ),
    },
  ];
}

/** Networks with their backends; sandbox networks offer an outage drill (POST /admin/sandbox/faults). */
export function NetworksPanel({ networks }: { networks: AdminHealth["networks"] }) {
  const fault = useSetFault();
  return (
    <Panel id="networks-title" title="Networks">
      <DataTable
        columns={columns(fault)}
        rows={networks}
        rowKey={(n) => n.name}
        rowData={(n) => ({ "data-network": n.name })}
        empty={<EmptyState title="No networks reported">The relay serves no network; check networks.* in its config.</EmptyState>}
      />
      {fault.error ? (
        <p className="field-error" role="alert">
          The drill could not be switched: {fault.error.message}
        </p>
      ) : null}
    </Panel>
  );
}
