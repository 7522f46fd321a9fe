import type { AdminPoolSummary } from "../../../src-shared/api/admin";
import { hrefFor } from "../../app/routes";
import { Badge } from "../../components/Badge";
import { BarChart } from "../../components/BarChart";
import { CopyValue } from "../../components/CopyValue";
import { formatCount, shortHex } from "../../lib/format";
import { knownMint, mintLabel } from "../../lib/mints";
import { formatDateTime } from "../../lib/time";
import { AnonymitySets } from "./AnonymitySets";

export function PoolCard({ pool, exploring }: { pool: AdminPoolSummary; exploring: boolean }) {
  const symbol = mintLabel(pool.mint);
  const where = `${symbol} on ${pool.network}`;
  const root = `0x${pool.root}`;
  const lag = pool.chainNextIndex === null ? null : pool.chainNextIndex - pool.nextIndex;

  return (
    <article
      className={`pool-card${exploring ? " pool-card-active" : ""}`}
      aria-label={`${symbol} pool on ${pool.network}`}
      data-pool={`${pool.network}:${symbol}`}
    >
      <header className="pool-card-header">
        <div>
          <h3>{symbol}</h3>
          <p className="muted">{knownMint(pool.mint)?.name ?? "Token"}</p>
        </div>
        <div className="badges">
          {pool.paused ? (
            <Badge tone="warn" title={pool.paused}>
              paused
            </Badge>
          ) : null}
          {pool.drift ? (
            <Badge tone="bad" title={pool.drift}>
              root drift
            </Badge>
          ) : lag !== null && lag > 0 ? (
            <Badge tone="warn">{lag} behind chain</Badge>
          ) : (
            <Badge tone="ok">open</Badge>
          )}
        </div>
      </header>
      <p className="pool-mint">
        <span className="muted">Mint</span> <CopyValue value={pool.mint} label={`mint of ${where}`} />
      </p>
      <dl className="pool-facts">
        <div>
          <dt>Root</dt>
          <dd>
            <CopyValue value={root} display={shortHex(root)} label={`root of ${where}`} />
          </dd>
        </div>
        <div>
          <dt>Tree account (PDA)</dt>
          <dd>
            <CopyValue value={pool.address} label={`tree account of ${where}`} />
          </dd>
        </div>
        <div title="The tree's next index, of 2^32 (depth 32)">
          <dt>Leaves</dt>
          <dd className="pool-count" data-testid="next-index">
            {formatCount(pool.nextIndex)}
          </dd>
        </div>
        <div title="Leaves deposits inserted, and leaves withdrawals inserted for what was left of their notes (one per withdrawal, also when nothing was left)">
          <dt>Deposit · change leaves</dt>
          <dd className="pool-count">
            <span data-testid="deposit-leaves">{formatCount(pool.leaves.deposits)}</span>
            <span className="muted"> · </span>
            <span data-testid="change-leaves">{formatCount(pool.leaves.changes)}</span>
          </dd>
        </div>
      </dl>
      <BarChart
        bars={pool.deposits.buckets.map((b) => ({ at: b.at, value: b.count }))}
        bucketMs={pool.deposits.bucketMs}
        label={`Deposits into ${where}`}
        unit={["deposit", "deposits"]}
      />
      <AnonymitySets pool={pool} where={where} />
      <details className="roots">
        <summary>Recent roots ({pool.recentRoots.length})</summary>
        {pool.recentRoots.length === 0 ? (
          <p className="muted">No root recorded yet: the tree is empty.</p>
        ) : (
          <ol className="roots-list">
            {pool.recentRoots.map((r) => (
              <li key={`${r.root}-${r.nextIndex}`}>
                <code title={`0x${r.root}`}>{shortHex(`0x${r.root}`)}</code>
                <span className="muted">
                  {formatCount(r.nextIndex)} leaves · {formatDateTime(r.at)}
                </span>
              </li>
            ))}
          </ol>
        )}
      </details>
      <a className="button" href={exploring ? hrefFor("pools") : hrefFor("pools", pool.network, pool.mint)}>
        {exploring ? "Close the tree explorer" : "Explore the tree"}
      </a>
    </article>
  );
}
