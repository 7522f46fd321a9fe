import type { AdminAlerts, AlertItem } from "../../../src-shared/api/alerts";
import { ALERTS_REFRESH_MS, useAlerts, useTestWebhook } from "../../api/alerts";
import { Badge } from "../../components/Badge";
import { DataTable, type Column } from "../../components/DataTable";
import { QueryPage } from "../../components/Page";
import { Panel } from "../../components/Panel";
import { EmptyState } from "../../components/StateViews";
import { hrefFor } from "../../app/routes";
import { formatDateTime, formatDuration } from "../../lib/time";

/** The relay's own alerts: what fires now, the history, and where notifications go (docs/operations.md, "Alerts"). */
export function AlertsPage() {
  const alerts = useAlerts();
  return (
    <QueryPage
      id="alerts-title"
      title="Alerts"
      lede={`Rules the relay checks by itself; an alert fires once, repeats while it lasts and resolves. Refreshed every ${ALERTS_REFRESH_MS / 1000} s.`}
      query={alerts}
      loading="Reading the alerts…"
    >
      {(a) => (
        <>
          {!a.enabled ? (
            <div className="banner banner-warn" role="status">
              <div>
                <p className="banner-title">Alerts are off</p>
                <p className="banner-body">
                  Set <code>alerts.enabled</code> to true in the config file and restart.
                </p>
              </div>
            </div>
          ) : null}
          <Active items={a.active} />
          <Delivery a={a} />
          <History items={a.history} />
        </>
      )}
    </QueryPage>
  );
}

function Active({ items }: { items: AlertItem[] }) {
  return (
    <Panel id="alerts-active-title" title="Firing now">
      {items.length === 0 ? (
        <EmptyState title="Nothing is firing">Every rule's condition is within its threshold.</EmptyState>
      ) : (
        <ul className="checks" data-testid="alerts-active">
          {items.map((a) => (
            <li key={a.id} className="check check-bad" data-alert={a.rule}>
              <Badge tone="bad">Firing</Badge>
              <div className="check-text">
                <p className="check-name">
                  {a.summary} <code className="check-id">{a.rule}</code>
                </p>
                <p className="check-detail">{a.detail}</p>
                <p className="muted">
                  Since {formatDateTime(a.startedAt)}; {a.notifications} notification{a.notifications === 1 ? "" : "s"}, the last at{" "}
                  {formatDateTime(a.lastNotifiedAt)}
                </p>
              </div>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}

function Delivery({ a }: { a: AdminAlerts }) {
  const test = useTestWebhook();
  const w = a.webhook;
  return (
    <Panel id="alerts-delivery-title" title="Where notifications go">
      <dl className="kv">
        <dt>Console</dt>
        <dd>This page and the badge next to Alerts on every page.</dd>
        <dt>Desktop</dt>
        <dd>A notification of each new alert while the desktop app is open.</dd>
        <dt>Webhook</dt>
        <dd>
          {w.configured ? (
            <>
              <code>{w.origin}</code> ({w.format} body){" "}
              {w.last ? (
                w.last.ok ? (
                  <Badge tone="ok">last delivered {formatDateTime(w.last.at)}</Badge>
                ) : (
                  <Badge tone="bad">
                    last attempt failed {formatDateTime(w.last.at)}: {w.last.error ?? `HTTP ${w.last.status}`}
                  </Badge>
                )
              ) : (
                <span className="muted">nothing sent yet</span>
              )}
              {w.pending > 0 ? <span className="muted"> ({w.pending} waiting for a retry)</span> : null}
            </>
          ) : (
            <span className="muted">
              none: set <code>alerts.webhook.url</code> (Slack, Discord or any JSON endpoint) in the config file
            </span>
          )}
        </dd>
        <dt>Repeats</dt>
        <dd>every {a.repeatMin} min while an alert fires</dd>
      </dl>
      <p className="inline-actions">
        <button type="button" className="button" disabled={test.isPending || !w.configured} onClick={() => test.mutate()}>
          {test.isPending ? "Sending…" : "Send a test notification"}
        </button>
        <a href={hrefFor("settings")}>Change the thresholds</a>
      </p>
      {test.data ? (
        <p role="status" className={test.data.ok ? "muted" : "field-error"} data-testid="webhook-test-result">
          {test.data.ok
            ? `The webhook accepted it (HTTP ${test.data.status}).`
            : `The webhook did not accept it: ${test.data.error ?? `HTTP ${test.data.status}`}; it is retried with back-off.`}
        </p>
      ) : null}
      {test.error ? (
        <p className="field-error" role="alert">
          The test could not be sent: {test.error.message}
        </p>
      ) : null}
    </Panel>
  );
}

const HISTORY: readonly Column<AlertItem>[] = [
  {
    header: "Alert",
    rowHeader: true,
    title: (a) => a.detail,
    cell: (a) => (
      <>
        {a.summary} <span className="muted">{a.rule}</span>
      </>
    ),
  },
  { header: "Started", cell: (a) => formatDateTime(a.startedAt) },
  { header: "Lasted", cell: (a) => (a.resolvedAt === null ? <span className="muted">ongoing</span> : formatDuration(a.resolvedAt - a.startedAt)) },
  { header: "State", cell: (a) => (a.resolvedAt === null ? <Badge tone="bad">firing</Badge> : <Badge tone="ok">resolved</Badge>) },
];

function History({ items }: { items: AlertItem[] }) {
  return (
    <Panel id="alerts-history-title" title="History">
      <DataTable columns={HISTORY} rows={items} rowKey={(a) => a.id} empty={<EmptyState title="No alert has fired yet" />} testId="alerts-history" />
    </Panel>
  );
}
