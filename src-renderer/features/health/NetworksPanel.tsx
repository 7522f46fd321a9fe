import type { NetworkStatus } from "../../api/types";
import { Badge } from "../../components/Badge";
import { EmptyState } from "../../components/StateViews";

export function NetworksPanel({ networks }: { networks: NetworkStatus[] }) {
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
            </tr>
          </thead>
          <tbody>
            {networks.map((n) => (
              <tr key={n.name}>
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
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
