import type { AdminHealth } from "../../../src-shared/admin-api";
import { Badge } from "../../components/Badge";
import { EmptyState } from "../../components/StateViews";
import { formatCount } from "../../lib/format";
import { mintLabel } from "../../lib/mints";
import { formatDateTime, formatDuration } from "../../lib/time";

export function IndexerPanel({ indexer }: { indexer: AdminHealth["indexer"] }) {
  return (
    <section className="panel" aria-labelledby="indexer-title">
      <h2 id="indexer-title">Indexer</h2>
      {indexer.length === 0 ? (
        <EmptyState title="No pools indexed yet" />
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Pool</th>
              <th scope="col">Indexed leaves</th>
              <th scope="col">On chain</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {indexer.map((p) => (
              <tr key={`${p.network}/${p.mint}`}>
                <th scope="row" title={p.mint}>
                  {mintLabel(p.mint)} <span className="muted">{p.network}</span>
                </th>
                <td>{formatCount(p.nextIndex)}</td>
                <td>{p.chainNextIndex === null ? <span className="muted">unknown</span> : formatCount(p.chainNextIndex)}</td>
                <td>
                  {p.drift ? (
                    <Badge tone="bad" title={p.drift}>
                      root drift
                    </Badge>
                  ) : p.lag === null ? (
                    <Badge tone="warn">chain not answering</Badge>
                  ) : p.lag > 0 ? (
                    <Badge tone="warn">{p.lag} behind</Badge>
                  ) : (
                    <Badge tone="ok">in sync</Badge>
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

export function StorePanel({ store }: { store: AdminHealth["store"] }) {
  return (
    <section className="panel" aria-labelledby="store-title">
      <h2 id="store-title">Store</h2>
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
        <dd>{store.lastSnapshotAt ? `${formatDateTime(store.lastSnapshotAt)}${store.snapshotMs !== null ? ` (${formatDuration(store.snapshotMs)})` : ""}` : "none yet"}</dd>
      </dl>
    </section>
  );
}

export function RateLimitsPanel({ limits }: { limits: AdminHealth["rateLimits"] }) {
  const busy = limits.filter((l) => l.hits > 0);
  return (
    <section className="panel" aria-labelledby="limits-title">
      <h2 id="limits-title">Rate limits since start</h2>
      {busy.length === 0 ? (
        <EmptyState title="No limited endpoint was called yet" />
      ) : (
        <table className="table table-compact">
          <thead>
            <tr>
              <th scope="col">Endpoint</th>
              <th scope="col">Requests</th>
              <th scope="col">Refused</th>
            </tr>
          </thead>
          <tbody>
            {busy.map((l) => (
              <tr key={l.endpoint}>
                <td>
                  <code>{l.endpoint}</code>
                </td>
                <td>{formatCount(l.hits)}</td>
                <td>{l.refusals > 0 ? <Badge tone="warn">{formatCount(l.refusals)}</Badge> : "0"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
