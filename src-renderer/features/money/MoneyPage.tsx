import { useState } from "react";
import { ADMIN_RANGES, type AdminMoney, type AdminRange } from "../../../src-shared/admin-api";
import { REFRESH_MS, useMoney } from "../../api/admin-hooks";
import { hrefFor } from "../../app/routes";
import { Badge } from "../../components/Badge";
import { BarChart, type ChartBar } from "../../components/BarChart";
import { CopyValue } from "../../components/CopyValue";
import { PageHeader } from "../../components/PageHeader";
import { QueryView } from "../../components/QueryView";
import { Segmented } from "../../components/Segmented";
import { EmptyState } from "../../components/StateViews";
import { StatusBadge } from "../../components/StatusBadge";
import { formatCount } from "../../lib/format";
import { formatAmount, knownMint, mintLabel } from "../../lib/mints";
import { formatAgo, formatDateTime } from "../../lib/time";
import { RANGES } from "../pools/PoolsPage";

/** The earned series of one pool over every bucket of the range, in the mint's units (for the chart only). */
export function earnedBars(money: AdminMoney, network: string, mint: string, now: number): ChartBar[] {
  const { spanMs, bucketMs } = ADMIN_RANGES[money.range];
  const end = Math.floor(now / bucketMs) * bucketMs;
  const start = end - (Math.ceil(spanMs / bucketMs) - 1) * bucketMs;
  const scale = 10 ** (knownMint(mint)?.decimals ?? 0);
  const byAt = new Map(money.earned.filter((e) => e.network === network && e.mint === mint).map((e) => [e.at, Number(e.fees) / scale]));
  const bars: ChartBar[] = [];
  for (let at = start; at <= end; at += bucketMs) bars.push({ at, value: byAt.get(at) ?? 0 });
  return bars;
}

export function MoneyPage() {
  const [range, setRange] = useState<AdminRange>("30d");
  const money = useMoney(range);
  return (
    <section className="page" aria-labelledby="money-title">
      <PageHeader
        id="money-title"
        title="Money"
        lede={`What the relayer holds, the fees it earned and what each relay cost it; refreshed every ${REFRESH_MS.money / 1000} s.`}
        {...(money.data ? { updatedAt: money.dataUpdatedAt, fetching: money.isFetching, stale: Boolean(money.error) } : {})}
      >
        <Segmented label="Range" options={RANGES} value={range} onChange={setRange} />
      </PageHeader>
      <QueryView query={money} loading="Adding up fees…">
        {(m) => (
          <>
            <FeePayers money={m} />
            <section className="panel" aria-labelledby="earned-title">
              <h2 id="earned-title">Fees earned</h2>
              {m.totals.length === 0 ? (
                <EmptyState title="No fee earned in this range">A fee is earned when a relay is confirmed.</EmptyState>
              ) : (
                <>
                  <table className="table" data-testid="money-totals">
                    <thead>
                      <tr>
                        <th scope="col">Pool</th>
                        <th scope="col">Relays</th>
                        <th scope="col">Volume</th>
                        <th scope="col">Fees</th>
                        <th scope="col">Network cost</th>
                      </tr>
                    </thead>
                    <tbody>
                      {m.totals.map((t) => (
                        <tr key={`${t.network}/${t.mint}`}>
                          <th scope="row" title={t.mint}>
                            {mintLabel(t.mint)} <span className="muted">{t.network}</span>
                          </th>
                          <td>{formatCount(t.relays)}</td>
                          <td className="num">{formatAmount(t.volume, t.mint)}</td>
                          <td className="num">{formatAmount(t.fees, t.mint)}</td>
                          <td className="num">{t.costLamports} lamports</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                  <div className="chart-grid-2">
                    {m.totals.map((t) => (
                      <BarChart
                        key={`${t.network}/${t.mint}`}
                        bars={earnedBars(m, t.network, t.mint, Date.now())}
                        bucketMs={m.bucketMs}
                        label={`Fees in ${mintLabel(t.mint)} on ${t.network}`}
                        unit={mintLabel(t.mint)}
                        format={(v) => (v === 0 ? "0" : v < 0.01 ? v.toPrecision(2) : v.toLocaleString("en-US", { maximumFractionDigits: 4 }))}
                      />
                    ))}
                  </div>
                </>
              )}
            </section>
            <RecentCosts money={m} />
          </>
        )}
      </QueryView>
    </section>
  );
}

function FeePayers({ money }: { money: AdminMoney }) {
  return (
    <section className="panel" aria-labelledby="payers-title">
      <h2 id="payers-title">Relayer accounts</h2>
      <div className="payer-grid">
        {money.feePayers.map((p) => (
          <article key={p.network} className="payer" data-network={p.network}>
            <header className="pool-card-header">
              <h3>{p.network}</h3>
              {p.sandbox ? <Badge tone="warn">sandbox</Badge> : null}
            </header>
            <p>
              <CopyValue value={p.address} label={`relayer address on ${p.network}`} />
            </p>
            {p.balances.length === 0 ? (
              <p className="muted">No balance reported.</p>
            ) : (
              <dl className="kv">
                {p.balances.map((b) => (
                  <div key={b.mint} className="kv-row">
                    <dt>{mintLabel(b.mint)}</dt>
                    <dd className="num">{formatAmount(b.amount, b.mint)}</dd>
                  </div>
                ))}
              </dl>
            )}
            <p className="muted">{p.note}</p>
          </article>
        ))}
      </div>
    </section>
  );
}

function RecentCosts({ money }: { money: AdminMoney }) {
  return (
    <section className="panel" aria-labelledby="costs-title">
      <h2 id="costs-title">What each recent relay earned and cost</h2>
      {money.recent.length === 0 ? (
        <EmptyState title="No relay yet" />
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Received</th>
              <th scope="col">Pool</th>
              <th scope="col">Status</th>
              <th scope="col">Fee earned</th>
              <th scope="col">Network cost</th>
            </tr>
          </thead>
          <tbody>
            {money.recent.map((r) => (
              <tr key={r.id}>
                <td>
                  <a href={hrefFor("relays", r.id)} title={formatDateTime(r.receivedAt)}>
                    {formatAgo(r.receivedAt, Date.now())}
                  </a>
                </td>
                <td>
                  {mintLabel(r.mint)} <span className="muted">{r.network}</span>
                </td>
                <td>
                  <StatusBadge status={r.status} />
                </td>
                <td className="num">{formatAmount(r.fee, r.mint)}</td>
                <td className="num">{r.costLamports} lamports</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
