import { Fragment, type ReactNode } from "react";
import type { AdminSettings } from "../../../src-shared/api/admin";
import { REFRESH_MS, useSettings } from "../../api/admin-hooks";
import { Badge } from "../../components/Badge";
import { CopyValue } from "../../components/CopyValue";
import { PoolName } from "../../components/cells";
import { DataTable, type Column } from "../../components/DataTable";
import { QueryPage } from "../../components/Page";
import { Panel } from "../../components/Panel";
import { formatCount } from "../../lib/format";
import { formatAmount, mintLabel } from "../../lib/mints";
import { AlertRulesEditor } from "./AlertRulesEditor";
import { FeeEditor } from "./FeeEditor";
import { PauseSwitches } from "./PauseSwitches";

export function SettingsPage() {
  const settings = useSettings();
  return (
    <QueryPage
      id="settings-title"
      title="Settings"
      lede={`The configuration in force (change it in the config file and restart; fees also here), pause switches, and the keys the relay holds, by fingerprint only. Refreshed every ${REFRESH_MS.settings / 1000} s.`}
      query={settings}
      loading="Reading the settings…"
    >
      {(s) => (
        <>
          <PauseSwitches settings={s} />
          <Networks s={s} />
          <div className="two-columns">
            <Fees s={s} />
            <Limits s={s} />
          </div>
          <AlertRulesEditor />
          <Keys s={s} />
        </>
      )}
    </QueryPage>
  );
}

const NETWORKS: readonly Column<AdminSettings["networks"][number]>[] = [
  { header: "Network", rowHeader: true, cell: (n) => n.name },
  {
    header: "Backend",
    cell: (n) => (
      <>
        {n.enabled ? n.backend : <Badge tone="neutral">disabled</Badge>} {n.sandbox && n.enabled ? <Badge tone="warn">test funds only</Badge> : null}
        {n.rpcUrl ? <div className="muted">{n.rpcUrl}</div> : null}
      </>
    ),
  },
  { header: "Program id", cell: (n) => <CopyValue value={n.programId} label={`program id on ${n.name}`} /> },
  { header: "Pools", cell: (n) => n.pools.map(mintLabel).join(", ") || <span className="muted">none</span> },
];

/** A fee rule as the fee table shows it: the pool it applies to, its rate and its floor. */
interface FeeRow {
  key: string;
  pool: ReactNode;
  bps: number;
  floor: string;
}

const FEES: readonly Column<FeeRow>[] = [
  { header: "Applies to", rowHeader: true, cell: (f) => f.pool },
  { header: "Rate", cell: (f) => `${f.bps} bps` },
  { header: "Floor", cell: (f) => f.floor },
];

const KEYS: readonly Column<AdminSettings["keys"][number]>[] = [
  {
    header: "Key",
    rowHeader: true,
    cell: (k) => (
      <>
        {k.name}
        <div className="muted cell-note">{k.purpose}</div>
      </>
    ),
  },
  {
    header: "Public key",
    cell: (k) => (k.publicKey ? <CopyValue value={k.publicKey} label={`${k.name} public key`} /> : <span className="muted">none (a secret)</span>),
  },
  { header: "Fingerprint", cell: (k) => <code>{k.fingerprint}</code> },
  { header: "Kept", className: "cell-note", cell: (k) => k.storage },
];

function Networks({ s }: { s: AdminSettings }) {
  return (
    <Panel id="set-networks-title" title="Networks and backends">
      <DataTable columns={NETWORKS} rows={s.networks} rowKey={(n) => n.name} />
    </Panel>
  );
}

function Fees({ s }: { s: AdminSettings }) {
  return (
    <Panel id="fees-title" title="Relayer fees">
      <p className="muted">
        fee = max(floor, depositSize × bps / 10 000), on the part of the note withdrawn (depositSize), fixed when a relay is received. Wallets prove for the fee
        and the fee receiver published at <code>GET /fees</code>: after a change the replaced fee is still accepted for {s.fees.graceSec} s, so proofs made just
        before it still land.
      </p>
      <dl className="kv">
        {s.fees.relayers.map((r) => (
          <Fragment key={r.network}>
            <dt>Fee receiver on {r.network}</dt>
            <dd>
              <CopyValue value={r.address} label={`fee receiver on ${r.network}`} />
            </dd>
          </Fragment>
        ))}
      </dl>
      <DataTable
        columns={FEES}
        rows={[
          { key: "default", pool: "every other pool", bps: s.fees.default.bps, floor: `${s.fees.default.floor} base units` },
          ...s.fees.pools.map((p) => ({
            key: `${p.network}/${p.mint}`,
            pool: <PoolName mint={p.mint} network={p.network} />,
            bps: p.bps,
            floor: formatAmount(p.floor, p.mint),
          })),
        ]}
        rowKey={(f) => f.key}
        compact
      />
      <FeeEditor s={s} />
    </Panel>
  );
}

function Limits({ s }: { s: AdminSettings }) {
  const l = s.limits;
  return (
    <Panel id="limits-set-title" title="Limits">
      <dl className="kv">
        <dt>Rate limits</dt>
        <dd>{l.rateLimitsEnabled ? `on, per ${l.windowSec} s window` : <Badge tone="warn">off</Badge>}</dd>
        <dt>Per endpoint</dt>
        <dd className="limit-list">
          {Object.entries(l.perEndpoint).map(([k, v]) => (
            <span key={k}>
              <code>{k}</code> {formatCount(v)}
            </span>
          ))}
        </dd>
        <dt>Request body</dt>
        <dd>{formatCount(l.bodyLimitBytes / 1024)} KiB at most</dd>
        <dt>Login tokens</dt>
        <dd>
          valid {formatCount(l.tokenTtlSec / 3600)} h; /relay {l.requireRelayAuth ? "requires" : "does not require"} x-api-auth
        </dd>
        <dt>Relay records</dt>
        <dd>kept {s.retentionDays} days, then folded into daily totals</dd>
      </dl>
    </Panel>
  );
}

function Keys({ s }: { s: AdminSettings }) {
  return (
    <Panel id="keys-title" title="Keys">
      <p className="muted">Fingerprints identify which key is in force; no secret ever leaves the relay.</p>
      <DataTable columns={KEYS} rows={s.keys} rowKey={(k) => k.name} testId="keys-table" />
    </Panel>
  );
}
