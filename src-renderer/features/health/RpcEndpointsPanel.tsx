import type { AdminHealth } from "../../../src-shared/admin-api";
import { Badge } from "../../components/Badge";
import { formatCount } from "../../lib/format";
import { formatDateTime } from "../../lib/time";

/** Each solana network's RPC endpoints as the failover sees them (URLs as origins only); nothing for sandbox networks. */
export function RpcEndpointsPanel({ networks }: { networks: AdminHealth["networks"] }) {
  const withEndpoints = networks.filter((n) => n.rpcEndpoints && n.rpcEndpoints.length > 0);
  if (withEndpoints.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="rpc-title">
      <h2 id="rpc-title">RPC endpoints</h2>
      <p className="muted">Requests go to the healthiest endpoint and move to the next on a failure; signed transactions go to every healthy one.</p>
      <table className="table" data-testid="rpc-endpoints">
        <thead>
          <tr>
            <th scope="col">Network</th>
            <th scope="col">Endpoint</th>
            <th scope="col">State</th>
            <th scope="col">Latency</th>
            <th scope="col">Slot</th>
            <th scope="col">Requests / errors</th>
            <th scope="col">Last error</th>
          </tr>
        </thead>
        <tbody>
          {withEndpoints.flatMap((n) =>
            n.rpcEndpoints!.map((e) => (
              <tr key={`${n.name}/${e.url}`} data-endpoint={e.url}>
                <th scope="row">{n.name}</th>
                <td>
                  <code>{e.url}</code>
                </td>
                <td>
                  {e.healthy ? <Badge tone="ok">{e.active ? "healthy, in use" : "healthy"}</Badge> : <Badge tone="bad">unhealthy</Badge>}
                </td>
                <td>{e.latencyMs === null ? <span className="muted">–</span> : `${e.latencyMs} ms`}</td>
                <td>
                  {e.slot === null ? <span className="muted">–</span> : formatCount(e.slot)}
                  {e.slotLag ? <span className="muted"> ({e.slotLag} behind)</span> : null}
                </td>
                <td>
                  {formatCount(e.requests)} / {formatCount(e.errors)}
                </td>
                <td>{e.lastError ? <span title={e.lastError}>{e.lastErrorAt ? `${formatDateTime(e.lastErrorAt)}: ` : ""}{e.lastError.slice(0, 80)}</span> : <span className="muted">none</span>}</td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </section>
  );
}
