import { useState } from "react";
import type { AdminRange } from "../../../src-shared/api/admin";
import { REFRESH_MS, usePools } from "../../api/admin-hooks";
import { NETWORKS, type Network } from "../../../src-shared/networks";
import { QueryPage } from "../../components/Page";
import { Segmented } from "../../components/Segmented";
import { EmptyState } from "../../components/StateViews";
import { RANGES } from "../../lib/ranges";
import { ArchivedPools } from "./ArchivedPools";
import { PoolCard } from "./PoolCard";
import { TreeExplorer } from "./TreeExplorer";

/** `#/pools` or `#/pools/<network>/<mint>[/<leaf>]` (that pool's tree explorer open, at the leaf when given). */
export function PoolsPage({ selected }: { selected: { network: Network; mint: string; leaf: number | null } | null }) {
  const [range, setRange] = useState<AdminRange>("24h");
  const pools = usePools(range);

  return (
    <QueryPage
      id="pools-title"
      title="Pools"
      lede={`Each pool's Merkle tree: root, deposit and change leaves, the anonymity set of each standard amount, deposits over time; refreshed every ${REFRESH_MS.pools / 1000} s.`}
      query={pools}
      loading="Reading the pools…"
      actions={<Segmented label="Chart range" options={RANGES} value={range} onChange={setRange} />}
      after={<ArchivedPools />}
    >
      {(list) =>
        list.length === 0 ? (
          <EmptyState title="No pools yet">
            A pool opens at start when its mint is listed in <code>networks.&lt;network&gt;.pools</code>, or with its first deposit.
          </EmptyState>
        ) : (
          <>
            {selected ? (
              <TreeExplorer
                network={selected.network}
                mint={selected.mint}
                leaf={selected.leaf}
                pool={list.find((p) => p.network === selected.network && p.mint === selected.mint) ?? null}
              />
            ) : null}
            {NETWORKS.filter((n) => list.some((p) => p.network === n)).map((network) => (
              <section key={network} className="panel" aria-labelledby={`pools-${network}`}>
                <h2 id={`pools-${network}`} className="network-heading">
                  {network}
                </h2>
                <div className="pool-grid">
                  {list
                    .filter((p) => p.network === network)
                    .map((pool) => (
                      <PoolCard key={pool.mint} pool={pool} exploring={selected?.network === network && selected.mint === pool.mint} />
                    ))}
                </div>
              </section>
            ))}
          </>
        )
      }
    </QueryPage>
  );
}
