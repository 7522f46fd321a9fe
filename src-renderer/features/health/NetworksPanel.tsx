import type { AdminHealth } from "../../../src-shared/admin-api";
import { useSetFault } from "../../api/admin-hooks";
import { Badge } from "../../components/Badge";
import { EmptyState } from "../../components/StateViews";

/** Networks with their backends; sandbox networks offer an outage drill (POST /admin/sandbox/faults). */
export function NetworksPanel({ networks }: { networks: AdminHealth["networks"] }) {
  const fault = useSetFault();
  return (
    <section className="panel" aria-labelledby="networks-title">
      <h2 id="networks-title">Networks</h2>
      {networks.length === 0 ? (
        <EmptyState title="No networks reported">The relay serves no network; check networks.* in its config.</EmptyState>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Network</th>
              <th scope="col">Chain backend</th>
              <th scope="col">Funds</th>
              <th scope="col">Outage drill</th>
            </tr>
          </thead>
          <tbody>
            {networks.map((n) => (
              <tr key={n.name} data-network={n.name}>
                <th scope="row">{n.name}</th>
                <td>{n.backend}</td>
                <td>
                  {n.sandbox ? (
                    <Badge tone="warn" title="Local test ledger: no real funds move">
                      sandbox, test funds only
                    </Badge>
                  ) : (
                    <Badge tone="neutral">real</Badge>
                  )}
                </td>
                <td>
                  {n.faults ? (
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
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {fault.error ? (
        <p className="field-error" role="alert">
          The drill could not be switched: {fault.error.message}
        </p>
      ) : null}
    </section>
  );
}
