import type { ReactNode } from "react";
import { formatClock } from "../lib/format";

/** What the header reads of the page's main query: when it last answered, whether it is asking again, and whether that failed. */
export interface HeaderQuery {
  data: unknown;
  dataUpdatedAt: number;
  isFetching: boolean;
  error: unknown;
}

/**
 * Every dashboard's title row: heading, one line on what it shows, when its query last
 * answered (once it has: a pulse while refreshing, grey when the last refresh failed),
 * and its actions.
 */
export function PageHeader({ id, title, lede, query, children }: { id: string; title: string; lede: ReactNode; query?: HeaderQuery; children?: ReactNode }) {
  const answered = query !== undefined && query.data !== undefined && query.dataUpdatedAt > 0;
  return (
    <header className="page-header">
      <div>
        <h1 id={id}>{title}</h1>
        <p className="page-lede">{lede}</p>
      </div>
      <div className="page-actions">
        {answered ? (
          <p className="page-meta" aria-live="polite">
            <span className={`pulse${query.isFetching ? " pulse-active" : ""}${query.error ? " pulse-stale" : ""}`} aria-hidden="true" />
            Updated {formatClock(query.dataUpdatedAt)}
          </p>
        ) : null}
        {children}
      </div>
    </header>
  );
}
