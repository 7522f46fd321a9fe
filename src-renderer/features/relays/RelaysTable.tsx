import type { AdminRelay } from "../../../src-shared/admin-api";
import { hrefFor } from "../../app/routes";
import { StatusBadge } from "../../components/StatusBadge";
import { shortenMiddle } from "../../lib/format";
import { formatAmount, mintLabel } from "../../lib/mints";
import { formatAgo, formatDateTime, formatDuration } from "../../lib/time";

/** Relay records as rows; the time links to the record's pipeline. */
export function RelaysTable({ items, now = Date.now() }: { items: readonly AdminRelay[]; now?: number }) {
  return (
    <div className="table-scroll">
      <table className="table" data-testid="relays-table">
        <thead>
          <tr>
            <th scope="col">Received</th>
            <th scope="col">Pool</th>
            <th scope="col">Amount</th>
            <th scope="col">Fee</th>
            <th scope="col">Min out</th>
            <th scope="col">Status</th>
            <th scope="col">Took</th>
            <th scope="col">Recipient</th>
          </tr>
        </thead>
        <tbody>
          {items.map((r) => (
            <tr key={r.id} data-relay={r.id} data-status={r.status}>
              <td>
                <a href={hrefFor("relays", r.id)} title={formatDateTime(r.receivedAt)}>
                  {formatAgo(r.receivedAt, now)}
                </a>
              </td>
              <td title={r.mint}>
                {mintLabel(r.mint)} <span className="muted">{r.network}</span>
                {r.kind === "swap" ? <span className="muted"> → {r.outputMint ? mintLabel(r.outputMint) : "?"}</span> : null}
              </td>
              <td className="num">{formatAmount(r.depositSize, r.mint)}</td>
              <td className="num" title={r.relayer ? `paid to ${r.relayer}` : undefined}>
                {formatAmount(r.fee, r.mint)}
              </td>
              <td className="num">{r.kind === "swap" && r.minOut !== null && r.outputMint ? formatAmount(r.minOut, r.outputMint) : <span className="muted">–</span>}</td>
              <td>
                <StatusBadge status={r.status} />
                {r.error ? <span className="muted cell-note"> {r.error}</span> : null}
              </td>
              <td className="num">{formatDuration(r.durationMs)}</td>
              <td>
                <code title={r.recipient}>{shortenMiddle(r.recipient, 4, 4)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
