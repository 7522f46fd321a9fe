import type { ReactNode } from "react";
import { formatClock } from "../lib/format";

/** Every dashboard's title row: heading, one line on what it shows, when it was refreshed, and its actions. */
export function PageHeader({
  id,
  title,
  lede,
  updatedAt,
  fetching,
  stale,
  children,
}: {
  id: string;
  title: string;
  lede: ReactNode;
  updatedAt?: number;
  fetching?: boolean;
  stale?: boolean;
  children?: ReactNode;
}) {
  return (
    <header className="page-header">
      <div>
        <h1 id={id}>{title}</h1>
        <p className="page-lede">{lede}</p>
      </div>
      <div className="page-actions">
        {updatedAt ? (
          <p className="page-meta" aria-live="polite">
            <span className={`pulse${fetching ? " pulse-active" : ""}${stale ? " pulse-stale" : ""}`} aria-hidden="true" />
            Updated {formatClock(updatedAt)}
          </p>
        ) : null}
        {children}
      </div>
    </header>
  );
}
