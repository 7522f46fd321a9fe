import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ErrorState, Loading } from "./StateViews";

/**
 * Loading, error, or the data: the one way dashboards render a query. A failed
 * refresh over data already shown keeps the data and says it is stale.
 */
export function QueryView<T>({ query, loading, children }: { query: UseQueryResult<T>; loading: string; children: (data: T) => ReactNode }) {
  if (query.data === undefined) {
    return query.error ? <ErrorState error={query.error} onRetry={() => void query.refetch()} retrying={query.isFetching} /> : <Loading label={loading} />;
  }
  return (
    <>
      {query.error ? (
        <p className="stale-note" role="status">
          Showing the last answer: the latest refresh failed ({query.error instanceof Error ? query.error.message : String(query.error)}).
        </p>
      ) : null}
      {children(query.data)}
    </>
  );
}
