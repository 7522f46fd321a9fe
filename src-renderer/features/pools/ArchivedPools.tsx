import { useArchivedPools } from "../../api/admin-hooks";
import { shortenMiddle } from "../../lib/format";
import { mintLabel } from "../../lib/mints";
import { formatDateTime } from "../../lib/time";

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
    <section className="panel" aria-labelledby="archived-pools-title" data-testid="archived-pools">
      <h2 id="archived-pools-title">Archived at the protocol v2 upgrade</h2>
      <p className="muted">
        These sandbox pools were built on protocol v1 leaves, which depositors chose themselves. They are kept apart, read-only, and never relayed from;
        relay, revert and compliance records from before the upgrade are kept.
      </p>
      <div className="table-scroll">
        <table className="table table-compact">
          <thead>
            <tr>
              <th scope="col">Pool</th>
              <th scope="col">Leaves</th>
              <th scope="col">Last root</th>
              <th scope="col">Archived</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {list.map((p) => (
              <tr key={`${p.network}/${p.mint}/${p.protocol}`}>
                <th scope="row" title={p.mint}>
                  {mintLabel(p.mint)} <span className="muted">{p.network}</span>
                </th>
                <td className="num">{p.leaves.toLocaleString()}</td>
                <td>{p.root ? <code title={p.root}>{shortenMiddle(p.root, 6, 6)}</code> : <span className="muted">none</span>}</td>
                <td>{formatDateTime(p.archivedAt)}</td>
                <td>{p.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
