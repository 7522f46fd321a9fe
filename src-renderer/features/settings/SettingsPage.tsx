import { Fragment } from "react";
import type { AdminSettings } from "../../../src-shared/api/admin";
import { REFRESH_MS, useSettings } from "../../api/admin-hooks";
import { Badge } from "../../components/Badge";
import { CopyValue } from "../../components/CopyValue";
import { PageHeader } from "../../components/PageHeader";
import { QueryView } from "../../components/QueryView";
import { formatCount } from "../../lib/format";
import { formatAmount, mintLabel } from "../../lib/mints";
import { AlertRulesEditor } from "./AlertRulesEditor";
import { FeeEditor } from "./FeeEditor";
import { PauseSwitches } from "./PauseSwitches";

export function SettingsPage() {
  const settings = useSettings();
  return (
    <section className="page" aria-labelledby="settings-title">
      <PageHeader
        id="settings-title"
        title="Settings"
        lede={`The configuration in force (change it in the config file and restart; fees also here), pause switches, and the keys the relay holds, by fingerprint only. Refreshed every ${REFRESH_MS.settings / 1000} s.`}
        query={settings}
      />
      <QueryView query={settings} loading="Reading the settings…">
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
      </QueryView>
    </section>
  );
}

function Networks({ s }: { s: AdminSettings }) {
  return (
    <section className="panel" aria-labelledby="set-networks-title">
      <h2 id="set-networks-title">Networks and backends</h2>
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Network</th>
            <th scope="col">Backend</th>
            <th scope="col">Program id</th>
            <th scope="col">Pools</th>
          </tr>
        </thead>
        <tbody>
          {s.networks.map((n) => (
            <tr key={n.name}>
              <th scope="row">{n.name}</th>
              <td>
                {n.enabled ? n.backend : <Badge tone="neutral">disabled</Badge>} {n.sandbox && n.enabled ? <Badge tone="warn">test funds only</Badge> : null}
                {n.rpcUrl ? <div className="muted">{n.rpcUrl}</div> : null}
              </td>
              <td>
                <CopyValue value={n.programId} label={`program id on ${n.name}`} />
              </td>
              <td>{n.pools.map(mintLabel).join(", ") || <span className="muted">none</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Fees({ s }: { s: AdminSettings }) {
  return (
    <section className="panel" aria-labelledby="fees-title">
      <h2 id="fees-title">Relayer fees</h2>
      <p className="muted">
        fee = max(floor, depositSize × bps / 10 000), fixed when a relay is received. Wallets prove for the fee and the fee receiver published at{" "}
        <code>GET /fees</code>: after a change the replaced fee is still accepted for {s.fees.graceSec} s, so proofs made just before it still land.
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
      <table className="table table-compact">
        <thead>
          <tr>
            <th scope="col">Applies to</th>
            <th scope="col">Rate</th>
            <th scope="col">Floor</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">every other pool</th>
            <td>{s.fees.default.bps} bps</td>
            <td>{s.fees.default.floor} base units</td>
          </tr>
          {s.fees.pools.map((p) => (
            <tr key={`${p.network}/${p.mint}`}>
              <th scope="row">
                {mintLabel(p.mint)} <span className="muted">{p.network}</span>
              </th>
              <td>{p.bps} bps</td>
              <td>{formatAmount(p.floor, p.mint)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <FeeEditor s={s} />
    </section>
  );
}

function Limits({ s }: { s: AdminSettings }) {
  const l = s.limits;
  return (
    <section className="panel" aria-labelledby="limits-set-title">
      <h2 id="limits-set-title">Limits</h2>
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
        <dd>valid {formatCount(l.tokenTtlSec / 3600)} h; /relay {l.requireRelayAuth ? "requires" : "does not require"} x-api-auth</dd>
        <dt>Relay records</dt>
        <dd>kept {s.retentionDays} days, then folded into daily totals</dd>
      </dl>
    </section>
  );
}

function Keys({ s }: { s: AdminSettings }) {
  return (
    <section className="panel" aria-labelledby="keys-title">
      <h2 id="keys-title">Keys</h2>
      <p className="muted">Fingerprints identify which key is in force; no secret ever leaves the relay.</p>
      <table className="table" data-testid="keys-table">
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Public key</th>
            <th scope="col">Fingerprint</th>
            <th scope="col">Kept</th>
          </tr>
        </thead>
        <tbody>
          {s.keys.map((k) => (
            <tr key={k.name}>
              <th scope="row">
                {k.name}
                <div className="muted cell-note">{k.purpose}</div>
              </th>
              <td>{k.publicKey ? <CopyValue value={k.publicKey} label={`${k.name} public key`} /> : <span className="muted">none (a secret)</span>}</td>
              <td>
                <code>{k.fingerprint}</code>
              </td>
              <td className="cell-note">{k.storage}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
