import { useState, type FormEvent } from "react";
import type { AdminCompliance } from "../../../src-shared/api/admin";
import { REFRESH_MS, useCompliance, useSetOverride } from "../../api/admin-hooks";
import { Badge } from "../../components/Badge";
import { Address } from "../../components/cells";
import { DataTable, type Column } from "../../components/DataTable";
import { Fact, Facts } from "../../components/Facts";
import { QueryPage } from "../../components/Page";
import { Panel } from "../../components/Panel";
import { Select, type SelectOption } from "../../components/SelectField";
import { EmptyState } from "../../components/StateViews";
import { StatusBadge } from "../../components/StatusBadge";
import { formatCount } from "../../lib/format";
import { formatAgo, formatDateTime } from "../../lib/time";
import { TextInput } from "../../components/TextInput";

const PURPOSE: Record<string, string> = { ofac_signature: "compliance signature", relay_recipient: "relay recipient" };

/** Every screening decision with the list version that made it, the list in force, and the operator's overrides. */
export function CompliancePage() {
  const [filter, setFilter] = useState("");
  const [address, setAddress] = useState("");
  const log = useCompliance(address);
  return (
    <QueryPage
      id="compliance-title"
      title="Compliance"
      lede={`Sanctions screening: the list in force, every decision, and overrides with their reasons; refreshed every ${REFRESH_MS.support / 1000} s.`}
      query={log}
      loading="Reading the compliance log…"
    >
      {(c) => (
        <>
          <ListPanel c={c} />
          <SignatureCounts c={c} />
          <Panel id="decisions-title" title="Decisions">
            <form
              className="search"
              role="search"
              onSubmit={(e) => {
                e.preventDefault();
                setAddress(filter.trim());
              }}
            >
              <TextInput wide value={filter} onValue={setFilter} placeholder="Filter by address" label="Address" />
              <button type="submit" className="button">
                Filter
              </button>
              {address ? (
                <button type="button" className="button" onClick={() => (setFilter(""), setAddress(""))}>
                  Clear
                </button>
              ) : null}
            </form>
            <DataTable
              columns={DECISIONS}
              rows={c.decisions}
              rowKey={(d) => d.id}
              empty={
                <EmptyState title="No decision recorded">
                  {c.signatures.auditLog
                    ? "Every compliance signature and every relay recipient screened is recorded here."
                    : "Every relay recipient screened and every refused compliance signature is recorded here; issued signatures are counted above."}
                </EmptyState>
              }
              scroll
              testId="decisions-table"
            />
          </Panel>
          <Overrides c={c} />
        </>
      )}
    </QueryPage>
  );
}

const DECISIONS: readonly Column<AdminCompliance["decisions"][number]>[] = [
  { header: "When", title: (d) => formatDateTime(d.at), cell: (d) => formatAgo(d.at, Date.now()) },
  {
    header: "For",
    cell: (d) => (
      <>
        {PURPOSE[d.purpose] ?? d.purpose} {d.network ? <span className="muted">{d.network}</span> : null}
      </>
    ),
  },
  { header: "Address", cell: (d) => <Address value={d.address} /> },
  { header: "Outcome", cell: (d) => <StatusBadge status={d.outcome} /> },
  { header: "List version", cell: (d) => <code>{d.listVersion ?? "none"}</code> },
];

const OVERRIDES: readonly Column<AdminCompliance["overrides"][number]>[] = [
  { header: "Address", cell: (o) => <Address value={o.address} /> },
  { header: "Override", cell: (o) => (o.action === "add" ? <Badge tone="bad">listed</Badge> : <Badge tone="ok">unlisted</Badge>) },
  { header: "Reason", cell: (o) => o.reason },
  { header: "Since", cell: (o) => formatDateTime(o.createdAt) },
];

const ACTIONS: readonly SelectOption<"add" | "remove" | "clear">[] = [
  { value: "add", label: "List it" },
  { value: "remove", label: "Unlist it" },
  { value: "clear", label: "Drop its override" },
];

function ListPanel({ c }: { c: AdminCompliance }) {
  const l = c.list;
  return (
    <Facts>
      <Fact label="Addresses listed">{formatCount(l.count)}</Fact>
      <Fact label="List version">{l.version ? <code>{l.version}</code> : <Badge tone="bad">no list loaded</Badge>}</Fact>
      <Fact label={`Source (${l.kind})`} wide small>
        {l.source}
        {l.lastError ? <div className="field-error">{l.lastError}</div> : null}
        <div className="muted">
          {l.loadedAt ? `loaded ${formatDateTime(l.loadedAt)}` : "never loaded"} · overrides +{l.overrides.add} / −{l.overrides.remove}
        </div>
      </Fact>
    </Facts>
  );
}

/** The compliance signatures since start: without the audit log, issued ones exist only as this count. */
function SignatureCounts({ c }: { c: AdminCompliance }) {
  const s = c.signatures;
  return (
    <Panel id="signatures-title" title="Compliance signatures">
      <Facts>
        <Fact label="Issued">{formatCount(s.issued)}</Fact>
        <Fact label="Refused (listed)">{formatCount(s.refused)}</Fact>
        <Fact label="Errors (no list)">{formatCount(s.error)}</Fact>
        <Fact label="Audit log">{s.auditLog ? <Badge tone="ok">on</Badge> : <Badge tone="neutral">off</Badge>}</Fact>
      </Facts>
      <p className="muted" data-testid="signature-counts-note">
        Counted since the relay started {formatDateTime(s.since)}.{" "}
        {s.auditLog
          ? "Every signature issued is also stored in the decisions below (compliance.auditLog)."
          : "Issued signatures are counted, not stored: any fresh wallet can ask for one. Refusals are stored below. Turn on compliance.auditLog to store every signature."}
      </p>
    </Panel>
  );
}

function Overrides({ c }: { c: AdminCompliance }) {
  const set = useSetOverride();
  const [address, setAddress] = useState("");
  const [action, setAction] = useState<"add" | "remove" | "clear">("add");
  const [reason, setReason] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    set.mutate({ address: address.trim(), action, reason }, { onSuccess: () => (setAddress(""), setReason("")) });
  };
  return (
    <Panel id="overrides-title" title="Overrides">
      <p className="muted">Your additions to and removals from the loaded list, applied at once and kept across restarts. Each needs a reason.</p>
      <DataTable
        columns={OVERRIDES}
        rows={c.overrides}
        rowKey={(o) => o.address}
        empty={<p className="muted">No override: the loaded list decides alone.</p>}
        compact
      />
      <form className="override-form" onSubmit={submit}>
        <TextInput wide value={address} onValue={setAddress} placeholder="Solana address" label="Address to override" />
        <Select value={action} options={ACTIONS} onChange={setAction} label="Override" />
        <TextInput wide value={reason} onValue={setReason} placeholder="Reason (kept in the audit trail)" label="Reason" />
        <button type="submit" className="button button-primary" disabled={set.isPending || !address.trim() || reason.trim().length < 3}>
          Save
        </button>
      </form>
      {set.error ? (
        <p className="field-error" role="alert">
          {set.error.message}
        </p>
      ) : null}
    </Panel>
  );
}
