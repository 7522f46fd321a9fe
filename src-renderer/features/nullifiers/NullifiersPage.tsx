import { useState, type FormEvent } from "react";
import type { AdminSpentNullifier } from "../../../src-shared/api/admin";
import { REFRESH_MS, useNullifierSearch, useSpentNullifiers } from "../../api/admin-hooks";
import { hrefFor } from "../../app/routes";
import { Badge } from "../../components/Badge";
import { CopyValue } from "../../components/CopyValue";
import { PoolName } from "../../components/cells";
import { DataTable, type Column } from "../../components/DataTable";
import { Page } from "../../components/Page";
import { Panel } from "../../components/Panel";
import { QueryView } from "../../components/QueryView";
import { EmptyState } from "../../components/StateViews";
import { StatusBadge } from "../../components/StatusBadge";
import { mintLabel } from "../../lib/mints";
import { formatAgo, formatDateTime } from "../../lib/time";
import { TextInput } from "../../components/TextInput";

/** Accepts what an operator pastes: 64 hex characters (0x optional) or a JSON byte array. */
export function normalizeNullifierInput(text: string): string | null {
  const t = text.trim();
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(t)) return t.replace(/^0x/, "").toLowerCase();
  if (/^\[[\d\s,]+\]$/.test(t)) {
    const bytes = t
      .slice(1, -1)
      .split(",")
      .map((s) => Number(s.trim()));
    if (bytes.length === 32 && bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) return bytes.map((b) => b.toString(16).padStart(2, "0")).join("");
  }
  return null;
}

const SPENT: readonly Column<AdminSpentNullifier>[] = [
  { header: "Nullifier hash", cell: (n) => <CopyValue value={n.nullifierHash} label={`nullifier ${n.nullifierHash.slice(0, 8)}`} /> },
  { header: "Pool", cell: (n) => <PoolName mint={n.mint} network={n.network} /> },
  { header: "Spent", title: (n) => formatDateTime(n.at), cell: (n) => formatAgo(n.at, Date.now()) },
  { header: "Relay", cell: (n) => <a href={hrefFor("relays", n.relayId)}>open</a> },
];

export function NullifiersPage() {
  const [input, setInput] = useState("");
  const [query, setQuery] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const search = useNullifierSearch(query);
  const spent = useSpentNullifiers();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const hex = normalizeNullifierInput(input);
    if (!hex) return setProblem("Paste a nullifier hash: 64 hex characters, or a JSON array of 32 bytes.");
    setProblem(null);
    setQuery(hex);
  };

  return (
    <Page
      id="nullifiers-title"
      title="Nullifiers"
      lede={`Whether a nullifier is spent in any pool, and which relay spent it. The spent list refreshes every ${REFRESH_MS.support / 1000} s.`}
      query={spent}
    >
      <Panel id="search-title" title="Search">
        <form className="search" onSubmit={submit} role="search">
          <TextInput wide value={input} onValue={setInput} placeholder="0x1f… or [31, 4, …]" label="Nullifier hash" spellCheck={false} />
          <button type="submit" className="button button-primary">
            Search
          </button>
        </form>
        {problem ? (
          <p className="field-error" role="alert">
            {problem}
          </p>
        ) : null}
        {query ? (
          <QueryView query={search} loading="Asking every pool…">
            {(r) =>
              r.results.length === 0 ? (
                <EmptyState title="Not spent">No pool ({r.poolsChecked} checked) has this nullifier&apos;s account, and no relay carried it.</EmptyState>
              ) : (
                <ul className="results" data-testid="nullifier-results">
                  {r.results.map((x) => (
                    <li key={`${x.network}/${x.mint}`} className="result">
                      <p>
                        {x.spent ? <Badge tone="bad">spent</Badge> : <Badge tone="warn">not spent on chain</Badge>} in the {mintLabel(x.mint)} pool on{" "}
                        {x.network}
                      </p>
                      {x.address ? (
                        <p className="muted">
                          Nullifier account <CopyValue value={x.address} label="nullifier account" />
                        </p>
                      ) : null}
                      {x.relays.length === 0 ? (
                        <p className="muted">Not through this relay (or its record is older than the retention period).</p>
                      ) : (
                        x.relays.map((rel) => (
                          <p key={rel.id}>
                            Relay <a href={hrefFor("relays", rel.id)}>{formatDateTime(rel.receivedAt)}</a> <StatusBadge status={rel.status} />
                          </p>
                        ))
                      )}
                    </li>
                  ))}
                </ul>
              )
            }
          </QueryView>
        ) : null}
      </Panel>
      <Panel id="spent-title" title="Spent through this relay">
        <QueryView query={spent} loading="Reading spent nullifiers…">
          {(items) => (
            <DataTable
              columns={SPENT}
              rows={items}
              rowKey={(n) => `${n.network}/${n.mint}/${n.nullifierHash}`}
              empty={<EmptyState title="No nullifier spent yet">Each confirmed relay spends one; they appear here.</EmptyState>}
              scroll
              testId="spent-table"
            />
          )}
        </QueryView>
      </Panel>
    </Page>
  );
}
