import { useIsFetching, useQueryClient } from "@tanstack/react-query";
import { queryKeys } from "../../api/keys";
import { DEFAULT_POOLS, POOL_NETWORKS } from "./defaults";
import { PoolCard } from "./PoolCard";

export function PoolsPage() {
  const queryClient = useQueryClient();
  const fetching = useIsFetching({ queryKey: queryKeys.pools() });
  return (
    <section className="page" aria-labelledby="pools-title">
      <header className="page-header">
        <div>
          <h1 id="pools-title">Pools</h1>
          <p className="page-lede">
            The Merkle tree behind each default pool: its current root, how many deposits it holds, and its account.
          </p>
        </div>
        <button
          type="button"
          className="button"
          onClick={() => void queryClient.invalidateQueries({ queryKey: queryKeys.pools() })}
          disabled={fetching > 0}
        >
          {fetching > 0 ? "Refreshing…" : "Refresh"}
        </button>
      </header>
      {POOL_NETWORKS.map((network) => (
        <section key={network} className="panel" aria-labelledby={`pools-${network}`}>
          <h2 id={`pools-${network}`}>{network}</h2>
          <div className="pool-grid">
            {DEFAULT_POOLS.map((pool) => (
              <PoolCard key={pool.mint} network={network} pool={pool} />
            ))}
          </div>
        </section>
      ))}
    </section>
  );
}
