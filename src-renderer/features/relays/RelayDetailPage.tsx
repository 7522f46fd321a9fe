import type { AdminRelayDetail } from "../../../src-shared/api/admin";
import { useRelay } from "../../api/admin-hooks";
import { hrefFor } from "../../app/routes";
import { CopyValue } from "../../components/CopyValue";
import { DataTable, type Column } from "../../components/DataTable";
import { QueryPage } from "../../components/Page";
import { Panel } from "../../components/Panel";
import { StatusBadge } from "../../components/StatusBadge";
import { formatCount, shortHex } from "../../lib/format";
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
    <QueryPage id="relay-title" title="Relay" lede={<a href={hrefFor("relays")}>← All relays</a>} query={relay} loading="Reading the relay record…">
      {(r) => (
        <>
          <Facts r={r} />
          <Pipeline r={r} />
          {r.attempts.length ? <Attempts r={r} /> : null}
          <RelayLogPanel id={r.id} />
        </>
      )}
    </QueryPage>
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
        <dt>Withdrawn</dt>
        <dd title="The part of the note this withdrawal took (protocol v3: the note's value stays private)">{formatAmount(r.depositSize, r.mint)}</dd>
        <dt>Change leaf</dt>
        <dd data-testid="change-leaf">
          <ChangeLeaf r={r} />
        </dd>
        <dt>Relayer fee</dt>
        <dd>
          {formatAmount(r.fee, r.mint)} <span className="muted">(network cost {r.costLamports} lamports)</span>
        </dd>
        <dt>Fee receiver</dt>
        <dd title="The key that signed the withdrawal and received the fee; the proof is bound to it">
          {r.relayer ? (
            <CopyValue value={r.relayer} label="fee receiver" display={r.relayer} />
          ) : (
            <span className="muted">not recorded (before protocol v2)</span>
          )}
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

/**
 * Protocol v3: every withdrawal inserts a change leaf for what is left of its note (also
 * when nothing is), so a whole withdrawal looks like a partial one. Its value is private.
 */
function ChangeLeaf({ r }: { r: AdminRelayDetail }) {
  if (r.changeCommitment === null) return <span className="muted">none (a record from before protocol v3)</span>;
  const commitment = <CopyValue value={`0x${r.changeCommitment}`} display={shortHex(`0x${r.changeCommitment}`)} label="change commitment" />;
  if (r.changeLeafIndex === null) {
    return (
      <>
        <span className="muted">{r.status === "failed" ? "not inserted: the withdrawal did not land" : "not inserted yet"}</span> {commitment}
      </>
    );
  }
  return (
    <>
      <a href={hrefFor("pools", r.network, r.mint, String(r.changeLeafIndex))} title="Open the leaf in the tree explorer">
        leaf {formatCount(r.changeLeafIndex)}
      </a>{" "}
      {commitment}
    </>
  );
}

/** Each step with its time since receipt and a bar as long as the step took. */
function Pipeline({ r }: { r: AdminRelayDetail }) {
  const total = Math.max(1, r.durationMs);
  return (
    <Panel id="pipeline-title" title={<>Pipeline · {formatDuration(r.durationMs)} in all</>}>
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
    </Panel>
  );
}

const ATTEMPTS: readonly Column<AdminRelayDetail["attempts"][number]>[] = [
  { header: "#", cell: (a) => a.n },
  {
    header: "Verdict",
    cell: (a) => (
      <>
        <code>{a.verdict}</code> {a.detail ? <span className="muted">{a.detail}</span> : null}
      </>
    ),
  },
  { header: "Signature", cell: (a) => <CopyValue value={a.signature} label={`attempt ${a.n} signature`} /> },
  { header: "Sends", cell: (a) => a.broadcasts },
  { header: "Compute", cell: (a) => `${a.computeUnitLimit.toLocaleString()} CU @ ${a.computeUnitPriceMicroLamports.toLocaleString()} µL` },
  { header: "Fee (lamports)", cell: (a) => a.networkFeeLamports.toLocaleString() },
  { header: "Sent", cell: (a) => formatDateTime(a.sentAt) },
  { header: "Verdict after", cell: (a) => (a.verdictAt !== null ? formatDuration(a.verdictAt - a.sentAt) : "pending") },
];

/** The landing engine's signed transactions: a relay on a busy cluster may need a fresh blockhash. */
function Attempts({ r }: { r: AdminRelayDetail }) {
  return (
    <Panel id="attempts-title" title={<>Transactions sent · {r.attempts.length}</>}>
      <DataTable columns={ATTEMPTS} rows={r.attempts} rowKey={(a) => a.n} rowData={(a) => ({ "data-verdict": a.verdict })} testId="attempts" />
    </Panel>
  );
}
