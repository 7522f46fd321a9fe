import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { DataTable, type Column } from "./DataTable";

interface Row {
  id: string;
  pool: string;
  amount: string;
}

const COLUMNS: readonly Column<Row>[] = [
  { header: "Pool", rowHeader: true, title: (r) => `pool ${r.id}`, cell: (r) => r.pool },
  { header: "Amount", numeric: true, cell: (r) => r.amount },
  { header: "", className: "muted", cell: (r) => r.id },
];
const ROWS: Row[] = [
  { id: "a", pool: "USDC", amount: "1.5" },
  { id: "b", pool: "SOL", amount: "20" },
];

const render = (props: Partial<Parameters<typeof DataTable<Row>>[0]>) =>
  renderToStaticMarkup(createElement(DataTable<Row>, { columns: COLUMNS, rows: ROWS, rowKey: (r: Row) => r.id, ...props }));

describe("DataTable", () => {
  it("heads each column, names each row in a row header, and marks numeric cells for tabular figures", () => {
    const html = render({});
    expect(html).toContain('<thead><tr><th scope="col">Pool</th><th scope="col">Amount</th><th scope="col"></th></tr></thead>');
    expect(html).toContain('<tr><th scope="row" title="pool a">USDC</th><td class="num">1.5</td><td class="muted">a</td></tr>');
    expect(html.match(/<tbody>.*<\/tbody>/)?.[0].match(/<tr>/g)).toHaveLength(2);
  });

  it("shows the empty view instead of a table without rows, and a bare table when no empty view is given", () => {
    expect(render({ rows: [], empty: createElement("p", null, "Nothing yet") })).toBe("<p>Nothing yet</p>");
    expect(render({ rows: [] })).toContain("<tbody></tbody>");
  });

  it("shows the loading view while the rows are not known yet", () => {
    const html = render({ rows: undefined, loading: "Reading the pools…" });
    expect(html).toContain('aria-busy="true"');
    expect(html).toContain("Reading the pools…");
    expect(html).not.toContain("<table");
  });

  it("adds data attributes, a detail row spanning every column, the compact class and the scrolling wrapper when asked", () => {
    const html = render({
      rowData: (r) => ({ "data-pool": r.id }),
      rowDetail: (r) => (r.id === "b" ? createElement("p", null, "details of b") : null),
      compact: true,
      scroll: true,
      testId: "pools",
    });
    expect(html.startsWith('<div class="table-scroll"><table class="table table-compact" data-testid="pools">')).toBe(true);
    expect(html).toContain('<tr data-pool="a">');
    expect(html).toContain('<tr class="row-detail"><td colSpan="3"><p>details of b</p></td></tr>');
    expect(html.match(/row-detail/g)).toHaveLength(1);
  });
});
