import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { PageHeader, type HeaderQuery } from "./PageHeader";
import { QueryView } from "./QueryView";

interface PageProps {
  /** The heading's id, which labels the page. */
  id: string;
  title: string;
  lede: ReactNode;
  /** The page's main query: the header says when it last answered. */
  query?: HeaderQuery;
  /** Controls in the header's right corner (a range, a link). */
  actions?: ReactNode;
}

/** A dashboard: its header, then its content. */
export function Page({ id, title, lede, query, actions, children }: PageProps & { children: ReactNode }) {
  return (
    <section className="page" aria-labelledby={id}>
      <PageHeader id={id} title={title} lede={lede} query={query}>
        {actions}
      </PageHeader>
      {children}
    </section>
  );
}

/** A dashboard that shows one query: its header over the query's data, or its loading or error view; `after` follows either. */
export function QueryPage<T>({
  query,
  loading,
  children,
  after,
  ...page
}: PageProps & { query: UseQueryResult<T>; loading: string; children: (data: T) => ReactNode; after?: ReactNode }) {
  return (
    <Page {...page} query={query}>
      <QueryView query={query} loading={loading}>
        {children}
      </QueryView>
      {after}
    </Page>
  );
}
