import { Fragment, type ReactNode } from "react";
import { Loading } from "./StateViews";

/** One column of a {@link DataTable}: its header and how a row fills its cell. */
export interface Column<T> {
  /** The header text; an empty string leaves the header cell empty (a column of buttons). */
  header: string;
  cell: (row: T) => ReactNode;
  /** The cell names its row (`<th scope="row">`), as the first column of a record usually does. */
  rowHeader?: boolean;
  /** Amounts, counts and durations: tabular figures that never wrap (the `num` class). */
  numeric?: boolean;
  /** A further class for the cell (e.g. `muted`, `cell-note`). */
  className?: string;
  /** The cell's tooltip: the full value behind a shortened one. */
  title?: (row: T) => string | undefined;
}

/** `data-*` attributes of a row, for tests and styles: `{ "data-status": "confirmed" }`. */
export type RowData = Record<`data-${string}`, string | undefined>;

/**
 * The console's one table: a header row from the column definitions, a row per item,
 * a loading view while `rows` is undefined and `empty` (if given) instead of a table
 * without rows. `scroll` wraps it for tables wider than the page.
 */
export function DataTable<T>({
  columns,
  rows,
  rowKey,
  rowData,
  rowDetail,
  empty,
  loading = "Loading…",
  compact,
  scroll,
  testId,
}: {
  columns: readonly Column<T>[];
  rows: readonly T[] | undefined;
  rowKey: (row: T, index: number) => string | number;
  rowData?: (row: T) => RowData;
  /** A full-width row under a row (an opened record's details); null for none. */
  rowDetail?: (row: T) => ReactNode;
  empty?: ReactNode;
  loading?: string;
  compact?: boolean;
  scroll?: boolean;
  testId?: string;
}) {
  if (rows === undefined) return <Loading label={loading} />;
  if (rows.length === 0 && empty !== undefined) return <>{empty}</>;
  const table = (
    <table className={compact ? "table table-compact" : "table"} data-testid={testId}>
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={i} scope="col">
              {c.header === "" ? undefined : c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, i) => {
          const detail = rowDetail?.(row);
          return (
            <Fragment key={rowKey(row, i)}>
              <tr {...rowData?.(row)}>
                {columns.map((c, j) => (
                  <Cell key={j} column={c} row={row} />
                ))}
              </tr>
              {detail == null ? null : (
                <tr className="row-detail">
                  <td colSpan={columns.length}>{detail}</td>
                </tr>
              )}
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
  return scroll ? <div className="table-scroll">{table}</div> : table;
}

function Cell<T>({ column: c, row }: { column: Column<T>; row: T }) {
  const className = [c.numeric ? "num" : "", c.className ?? ""].filter(Boolean).join(" ") || undefined;
  const props = { className, title: c.title?.(row) };
  return c.rowHeader ? (
    <th scope="row" {...props}>
      {c.cell(row)}
    </th>
  ) : (
    <td {...props}>{c.cell(row)}</td>
  );
}
