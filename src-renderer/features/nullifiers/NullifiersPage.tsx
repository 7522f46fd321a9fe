import { useState, type FormEvent } from "react";
import { REFRESH_MS, useNullifierSearch, useSpentNullifiers } from "../../api/admin-hooks";
import { hrefFor } from "../../app/routes";
import { Badge } from "../../components/Badge";
import { CopyValue } from "../../components/CopyValue";
import { PageHeader } from "../../components/PageHeader";
import { QueryView } from "../../components/QueryView";
import { EmptyState } from "../../components/StateViews";
import { StatusBadge } from "../../components/StatusBadge";
import { mintLabel } from "../../lib/mints";
import { formatAgo, formatDateTime } from "../../lib/time";

/** Accepts what an operator pastes: 64 hex characters (0x optional) or a JSON byte array. */
export function normalizeNullifierInput(text: string): string | null {
  const t = text.trim();
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(t)) return t.replace(/^0x/, "").toLowerCase();
  if (/^\[[\d\s,]+\]$/.test(t)) {
    const bytes = t.slice(1, -1).split(",").map((s) => Number(s.trim()));
    if (bytes.length === 32 && bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) return bytes.map((b) => b.toString(16).padStart(2, "0")).join("");
  }
  return null;
}

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
    <section className="page" aria-labelledby="nullifiers-title">
      <PageHeader
        id="nullifiers-title"
        title="Nullifiers"
        lede={`Whether a nullifier is spent in any pool, and which relay spent it. The spent list refreshes every ${REFRESH_MS.support / 1000} s.`}
        query={spent}
      />
      <section className="panel" aria-labelledby="search-title">
        <h2 id="search-title">Search</h2>
        <form className="search" onSubmit={submit} role="search">
          <input
            className="input input-wide"
            value={input}
            onChange={(e) => setInput(e.target.value)}
            placeholder="0x1f… or [31, 4, …]"
            aria-label="Nullifier hash"
            spellCheck={false}
          />
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
                <EmptyState title="Not spent">
                  No pool ({r.poolsChecked} checked) has this nullifier&apos;s account, and no relay carried it.
                </EmptyState>
              ) : (
                <ul className="results" data-testid="nullifier-results">
                  {r.results.map((x) => (
                    <li key={`${x.network}/${x.mint}`} className="result">
                      <p>
                        {x.spent ? <Badge tone="bad">spent</Badge> : <Badge tone="warn">not spent on chain</Badge>} in the {mintLabel(x.mint)} pool on {x.network}
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
      </section>
      <section className="panel" aria-labelledby="spent-title">
        <h2 id="spent-title">Spent through this relay</h2>
        <QueryView query={spent} loading="Reading spent nullifiers…">
          {(items) =>
            items.length === 0 ? (
              <EmptyState title="No nullifier spent yet">Each confirmed relay spends one; they appear here.</EmptyState>
            ) : (
              <div className="table-scroll">
                <table className="table" data-testid="spent-table">
                  <thead>
                    <tr>
                      <th scope="col">Nullifier hash</th>
                      <th scope="col">Pool</th>
                      <th scope="col">Spent</th>
                      <th scope="col">Relay</th>
                    </tr>
                  </thead>
                  <tbody>
                    {items.map((n) => (
                      <tr key={`${n.network}/${n.mint}/${n.nullifierHash}`}>
                        <td>
                          <CopyValue value={n.nullifierHash} label={`nullifier ${n.nullifierHash.slice(0, 8)}`} />
                        </td>
                        <td>
                          {mintLabel(n.mint)} <span className="muted">{n.network}</span>
                        </td>
                        <td title={formatDateTime(n.at)}>{formatAgo(n.at, Date.now())}</td>
                        <td>
                          <a href={hrefFor("relays", n.relayId)}>open</a>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </QueryView>
      </section>
    </section>
  );
}
