import type { AdminRelayDetail } from "../../../src-shared/admin-api";
import { useRelay } from "../../api/admin-hooks";
import { hrefFor } from "../../app/routes";
import { CopyValue } from "../../components/CopyValue";
import { PageHeader } from "../../components/PageHeader";
import { QueryView } from "../../components/QueryView";
import { StatusBadge } from "../../components/StatusBadge";
import { formatAmount, mintLabel } from "../../lib/mints";
import { formatDateTime, formatDuration } from "../../lib/time";
import { RelayLogPanel } from "./RelayLogPanel";

const STEP_TEXT: Record<string, string> = {
  received: "Received: request parsed, fee fixed (recorded once the proof verified)",
  verified: "Proof verified off the event loop",
  submitted: "Transaction submitted to the chain",
  confirmed: "Confirmed on chain",
  failed: "Failed",
};

export function RelayDetailPage({ id }: { id: string }) {
  const relay = useRelay(id);
  return (
    <section className="page" aria-labelledby="relay-title">
      <PageHeader
        id="relay-title"
        title="Relay"
        lede={<a href={hrefFor("relays")}>← All relays</a>}
        {...(relay.data ? { updatedAt: relay.dataUpdatedAt, fetching: relay.isFetching } : {})}
      />
      <QueryView query={relay} loading="Reading the relay record…">
        {(r) => (
          <>
            <Facts r={r} />
            <Pipeline r={r} />
            {r.attempts.length ? <Attempts r={r} /> : null}
            <RelayLogPanel id={r.id} />
          </>
        )}
      </QueryView>
    </section>
  );
}

function Facts({ r }: { r: AdminRelayDetail }) {
  return (
    <section className="panel" aria-label="Relay record">
      <dl className="kv kv-wide">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={r.status} /> {r.error ? <code>{r.error}</code> : null}
        </dd>
        <dt>Pool</dt>
        <dd title={r.mint}>
          {mintLabel(r.mint)} on {r.network} {r.kind === "swap" && r.outputMint ? `(swap to ${mintLabel(r.outputMint)})` : ""}
        </dd>
        <dt>Deposit size</dt>
        <dd>{formatAmount(r.depositSize, r.mint)}</dd>
        <dt>Relayer fee</dt>
        <dd>
          {formatAmount(r.fee, r.mint)} <span className="muted">(network cost {r.costLamports} lamports)</span>
        </dd>
        <dt>Fee receiver</dt>
        <dd title="The key that signed the withdrawal and received the fee; the proof is bound to it">
          {r.relayer ? <CopyValue value={r.relayer} label="fee receiver" display={r.relayer} /> : <span className="muted">not recorded (before protocol v2)</span>}
        </dd>
        {r.kind === "swap" ? (
          <>
            <dt>Minimum output</dt>
            <dd title="The least the recipient must receive of the output mint; the proof is bound to it">
              {r.minOut !== null && r.outputMint ? formatAmount(r.minOut, r.outputMint) : <span className="muted">not recorded (before protocol v2)</span>}
            </dd>
          </>
        ) : null}
        <dt>Recipient</dt>
        <dd>
          <CopyValue value={r.recipient} label="recipient" display={r.recipient} />
        </dd>
        <dt>Nullifier hash</dt>
        <dd>
          <CopyValue value={r.nullifierHash} label="nullifier hash" />
        </dd>
        <dt>Transaction</dt>
        <dd>{r.signature ? <CopyValue value={r.signature} label="transaction signature" /> : <span className="muted">none</span>}</dd>
        <dt>Received</dt>
        <dd>{formatDateTime(r.receivedAt)}</dd>
        <dt>Relay id</dt>
        <dd>
          <code>{r.id}</code>
        </dd>
      </dl>
    </section>
  );
}

/** Each step with its time since receipt and a bar as long as the step took. */
function Pipeline({ r }: { r: AdminRelayDetail }) {
  const total = Math.max(1, r.durationMs);
  return (
    <section className="panel" aria-labelledby="pipeline-title">
      <h2 id="pipeline-title">Pipeline · {formatDuration(r.durationMs)} in all</h2>
      <ol className="pipeline" data-testid="pipeline">
        {r.steps.map((s) => (
          <li key={`${s.kind}-${s.at}`} className={`pipeline-step pipeline-${s.kind}`} data-step={s.kind}>
            <span className="pipeline-dot" aria-hidden="true" />
            <div className="pipeline-text">
              <p className="pipeline-name">
                {STEP_TEXT[s.kind] ?? s.kind} <span className="muted">+{formatDuration(s.sinceStartMs)}</span>
              </p>
              <p className="muted">
                {formatDateTime(s.at)}
                {s.verifyMs !== undefined ? ` · verification ${formatDuration(s.verifyMs)}` : ""}
                {s.durationMs !== null ? ` · next step after ${formatDuration(s.durationMs)}` : ""}
              </p>
              {s.error ? (
                <p className="pipeline-error">
                  <code>{s.error}</code> {s.detail}
                </p>
              ) : null}
              {s.signature ? <CopyValue value={s.signature} label="confirmed transaction" /> : null}
            </div>
            {s.durationMs !== null ? (
              <span className="pipeline-bar" style={{ width: `${Math.max(2, (s.durationMs / total) * 100)}%` }} aria-hidden="true" />
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The landing engine's signed transactions: a relay on a busy cluster may need a fresh blockhash. */
function Attempts({ r }: { r: AdminRelayDetail }) {
  return (
    <section className="panel" aria-labelledby="attempts-title">
      <h2 id="attempts-title">Transactions sent · {r.attempts.length}</h2>
      <table className="table" data-testid="attempts">
        <thead>
          <tr>
            <th>#</th>
            <th>Verdict</th>
            <th>Signature</th>
            <th>Sends</th>
            <th>Compute</th>
            <th>Fee (lamports)</th>
            <th>Sent</th>
            <th>Verdict after</th>
          </tr>
        </thead>
        <tbody>
          {r.attempts.map((a) => (
            <tr key={a.n} data-verdict={a.verdict}>
              <td>{a.n}</td>
              <td>
                <code>{a.verdict}</code> {a.detail ? <span className="muted">{a.detail}</span> : null}
              </td>
              <td>
                <CopyValue value={a.signature} label={`attempt ${a.n} signature`} />
              </td>
              <td>{a.broadcasts}</td>
              <td>
                {a.computeUnitLimit.toLocaleString()} CU @ {a.computeUnitPriceMicroLamports.toLocaleString()} µL
              </td>
              <td>{a.networkFeeLamports.toLocaleString()}</td>
              <td>{formatDateTime(a.sentAt)}</td>
              <td>{a.verdictAt !== null ? formatDuration(a.verdictAt - a.sentAt) : "pending"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
