import { ApiError } from "../../api/client";
import { useMerkle } from "../../api/hooks";
import type { Network } from "../../api/types";
import { Badge } from "../../components/Badge";
import { CopyValue } from "../../components/CopyValue";
import { EmptyState, ErrorState, Loading } from "../../components/StateViews";
import { bytesToHex, formatCount, shortHex } from "../../lib/format";
import type { KnownPool } from "./defaults";

export function PoolCard({ network, pool }: { network: Network; pool: KnownPool }) {
  const merkle = useMerkle(network, pool.mint);
  const { data, error, isFetching } = merkle;
  const notFound = error instanceof ApiError && error.code === "PoolNotFound";
  const where = `${pool.symbol} on ${network}`;

  return (
    <article className="pool-card" aria-label={`${pool.symbol} pool on ${network}`} data-pool={`${network}:${pool.symbol}`}>
      <header className="pool-card-header">
        <div>
          <h3>{pool.symbol}</h3>
          <p className="muted">{pool.name}</p>
        </div>
        {data && !error ? <Badge tone="ok">open</Badge> : notFound ? <Badge tone="neutral">no pool</Badge> : null}
      </header>
      <p className="pool-mint">
        <span className="muted">Mint</span> <CopyValue value={pool.mint} label={`mint of ${where}`} />
      </p>

      {notFound ? (
        <EmptyState title="No pool yet">
          Nobody has deposited {pool.symbol} on {network}. The pool opens with its first deposit, or at start when its
          mint is listed in <code>networks.{network}.pools</code>.
        </EmptyState>
      ) : data ? (
        <dl className="pool-facts">
          <div>
            <dt>Root</dt>
            <dd>
              <CopyValue value={bytesToHex(data.root)} display={shortHex(bytesToHex(data.root))} label={`root of ${where}`} />
            </dd>
          </div>
          <div>
            <dt>Deposits (next index)</dt>
            <dd className="pool-count">{formatCount(data.nextIndex)}</dd>
          </div>
          <div>
            <dt>Tree account</dt>
            <dd>
              <CopyValue value={data.address} label={`tree account of ${where}`} />
            </dd>
          </div>
          <div>
            <dt>Depth</dt>
            <dd>{data.depth}</dd>
          </div>
        </dl>
      ) : error ? (
        <ErrorState error={error} onRetry={() => void merkle.refetch()} retrying={isFetching} />
      ) : (
        <Loading label={`Reading the ${pool.symbol} tree…`} />
      )}
    </article>
  );
}
