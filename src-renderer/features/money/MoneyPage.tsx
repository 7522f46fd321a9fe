import { useState } from "react";
import { ADMIN_RANGES, type AdminMoney, type AdminRange } from "../../../src-shared/api/admin";
import { REFRESH_MS, useMoney } from "../../api/admin-hooks";
import { hrefFor } from "../../app/routes";
import { Badge } from "../../components/Badge";
import { BarChart, type ChartBar } from "../../components/BarChart";
import { CopyValue } from "../../components/CopyValue";
import { PoolName } from "../../components/cells";
import { DataTable, type Column } from "../../components/DataTable";
import { Panel } from "../../components/Panel";
import { QueryPage } from "../../components/Page";
import { Segmented } from "../../components/Segmented";
import { EmptyState } from "../../components/StateViews";
import { StatusBadge } from "../../components/StatusBadge";
import { formatCount } from "../../lib/format";
import { formatAmount, knownMint, mintLabel } from "../../lib/mints";
import { formatAgo, formatDateTime } from "../../lib/time";
import { RANGES } from "../../lib/ranges";

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
    <QueryPage
      id="money-title"
      title="Money"
      lede={`What the relayer holds, the fees it earned and what each relay cost it; refreshed every ${REFRESH_MS.money / 1000} s.`}
      query={money}
      loading="Adding up fees…"
      actions={<Segmented label="Range" options={RANGES} value={range} onChange={setRange} />}
    >
      {(m) => (
        <>
          <FeePayers money={m} />
          <Panel id="earned-title" title="Fees earned">
            {m.totals.length === 0 ? (
              <EmptyState title="No fee earned in this range">A fee is earned when a relay is confirmed.</EmptyState>
            ) : (
              <>
                <DataTable columns={TOTALS} rows={m.totals} rowKey={(t) => `${t.network}/${t.mint}`} testId="money-totals" />
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
          </Panel>
          <RecentCosts money={m} />
          <Panel id="reverted-title" title="Deposits paid back by reverts">
            <p className="muted">
              Failed deposits returned to their depositors, from the relay&apos;s revert records (all time). They reached the vault but never the pool&apos;s
              tree, so no withdrawal can spend them; an on-chain totalDeposited that still counts them is that much above what the pool holds for notes.
            </p>
            {m.reverted.length === 0 ? (
              <EmptyState title="No revert paid">No failed deposit has been paid back.</EmptyState>
            ) : (
              <DataTable columns={REVERTED} rows={m.reverted} rowKey={(r) => `${r.network}/${r.mint}`} testId="money-reverted" />
            )}
          </Panel>
        </>
      )}
    </QueryPage>
  );
}

const REVERTED: readonly Column<AdminMoney["reverted"][number]>[] = [
  { header: "Pool", rowHeader: true, title: (r) => r.mint, cell: (r) => <PoolName mint={r.mint} network={r.network} /> },
  { header: "Reverts paid", cell: (r) => formatCount(r.reverts) },
  { header: "Paid back (deposited, never in the tree)", numeric: true, cell: (r) => formatAmount(r.amount, r.mint) },
];

const TOTALS: readonly Column<AdminMoney["totals"][number]>[] = [
  { header: "Pool", rowHeader: true, title: (t) => t.mint, cell: (t) => <PoolName mint={t.mint} network={t.network} /> },
  { header: "Relays", cell: (t) => formatCount(t.relays) },
  { header: "Volume", numeric: true, title: () => "The parts of notes withdrawn", cell: (t) => formatAmount(t.volume, t.mint) },
  { header: "Fees", numeric: true, cell: (t) => formatAmount(t.fees, t.mint) },
  { header: "Network cost", numeric: true, cell: (t) => `${t.costLamports} lamports` },
];

const RECENT: readonly Column<AdminMoney["recent"][number]>[] = [
  {
    header: "Received",
    cell: (r) => (
      <a href={hrefFor("relays", r.id)} title={formatDateTime(r.receivedAt)}>
        {formatAgo(r.receivedAt, Date.now())}
      </a>
    ),
  },
  { header: "Pool", cell: (r) => <PoolName mint={r.mint} network={r.network} /> },
  { header: "Status", cell: (r) => <StatusBadge status={r.status} /> },
  { header: "Fee earned", numeric: true, cell: (r) => formatAmount(r.fee, r.mint) },
  { header: "Network cost", numeric: true, cell: (r) => `${r.costLamports} lamports` },
];

function FeePayers({ money }: { money: AdminMoney }) {
  return (
    <Panel id="payers-title" title="Relayer accounts">
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
    </Panel>
  );
}

function RecentCosts({ money }: { money: AdminMoney }) {
  return (
    <Panel id="costs-title" title="What each recent relay earned and cost">
      <DataTable columns={RECENT} rows={money.recent} rowKey={(r) => r.id} empty={<EmptyState title="No relay yet" />} />
    </Panel>
  );
}
