import type { AdminHealth } from "../../../src-shared/api/admin";
import { REFRESH_MS, useAdminHealth } from "../../api/admin-hooks";
import { useApi } from "../../api/context";
import { useVersion } from "../../api/hooks";
import { CopyValue } from "../../components/CopyValue";
import { Fact, Facts } from "../../components/Facts";
import { Page } from "../../components/Page";
import { Panel } from "../../components/Panel";
import { describeError, EmptyState, ErrorState, Loading } from "../../components/StateViews";
import { hrefFor } from "../../app/routes";
import { formatClock, formatUptime } from "../../lib/format";
import { ChecksList } from "./ChecksList";
import { DesktopFacts } from "./DesktopFacts";
import { InstancesPanel } from "./InstancesPanel";
import { NetworksPanel } from "./NetworksPanel";
import { ProgramPanel } from "./ProgramPanel";
import { RpcEndpointsPanel } from "./RpcEndpointsPanel";
import { IndexerPanel, RateLimitsPanel, StorePanel } from "./DetailPanels";

export function HealthPage() {
  const health = useAdminHealth();
  const { data, error, isFetching, dataUpdatedAt } = health;

  return (
    <Page id="health-title" title="Health" lede={`What the relay reports about itself, refreshed every ${REFRESH_MS.health / 1000} s.`} query={health}>
      {data === undefined ? (
        error ? (
          <ErrorState error={error} onRetry={() => void health.refetch()} retrying={isFetching} />
        ) : (
          <Loading label="Asking the relay for its health…" />
        )
      ) : (
        <>
          {error ? <StaleNotice error={error} since={dataUpdatedAt} /> : null}
          <StatusBanner detail={data} stale={Boolean(error)} />
          {data.pauses.length > 0 ? (
            <div className="banner banner-warn" role="status" data-testid="paused-banner">
              <span className="banner-icon" aria-hidden="true">
                ‖
              </span>
              <div>
                <p className="banner-title">Relays paused by the operator</p>
                <p className="banner-body">
                  {data.pauses.map((p) => `${p.network}${p.mint ? ` / ${p.mint}` : " (all pools)"}: ${p.reason}`).join("; ")}.{" "}
                  <a href={hrefFor("settings")}>Pause switches</a>
                </p>
              </div>
            </div>
          ) : null}
          <HealthFacts detail={data} />
          <NetworksPanel networks={data.networks} />
          <ProgramPanel networks={data.networks} />
          <RpcEndpointsPanel networks={data.networks} />
          <Panel id="checks-title" title="Checks">
            {data.checks.length === 0 ? (
              <EmptyState title="The relay reported no checks">Nothing is being monitored yet; the overall status above is all there is.</EmptyState>
            ) : (
              <ChecksList checks={data.checks} />
            )}
          </Panel>
          <IndexerPanel indexer={data.indexer} />
          <InstancesPanel cluster={data.cluster} networks={data.networks.map((n) => n.name)} at={dataUpdatedAt} />
          <div className="two-columns">
            <StorePanel store={data.store} />
            <RateLimitsPanel limits={data.rateLimits} />
          </div>
          <DesktopFacts />
        </>
      )}
    </Page>
  );
}

function StatusBanner({ detail, stale }: { detail: AdminHealth; stale: boolean }) {
  const failing = detail.checks.filter((c) => !c.ok);
  const ok = detail.status === "ok" && failing.length === 0;
  return (
    <div className={`banner ${ok ? "banner-ok" : "banner-bad"}${stale ? " banner-stale" : ""}`} role="status" data-testid="health-status">
      <span className="banner-icon" aria-hidden="true">
        {ok ? "✓" : "!"}
      </span>
      <div>
        <p className="banner-title">
          {stale ? "Last known status: " : ""}
          {ok ? "Operational" : "Degraded"}
        </p>
        <p className="banner-body">
          {ok
            ? `All ${detail.checks.length} checks pass.`
            : failing.length > 0
              ? `${failing.length} of ${detail.checks.length} checks failing: ${failing.map((c) => c.name).join(", ")}.`
              : "The relay reports itself degraded."}
        </p>
      </div>
    </div>
  );
}

function HealthFacts({ detail }: { detail: AdminHealth }) {
  const api = useApi();
  const version = useVersion(detail.version === "");
  const shownVersion = detail.version || version.data || "unknown";
  const lastDay = Object.values(detail.relays.lastDay).reduce((s, n) => s + (n ?? 0), 0);
  return (
    <Facts>
      <Fact label="Uptime">{formatUptime(detail.uptimeSec)}</Fact>
      <Fact label="Version" testId="relay-version">
        {shownVersion}
      </Fact>
      <Fact label="Relays in flight">{detail.relays.inFlight}</Fact>
      <Fact
        label="Relays, last 24 h"
        title={Object.entries(detail.relays.lastDay)
          .map(([k, v]) => `${k}: ${v}`)
          .join(", ")}
      >
        {lastDay}
        {detail.relays.lastDay.failed ? <span className="muted fact-note"> ({detail.relays.lastDay.failed} failed)</span> : null}
      </Fact>
      <Fact label="API address" wide>
        <CopyValue value={api.base} label="API address" display={api.base} />
      </Fact>
    </Facts>
  );
}

function StaleNotice({ error, since }: { error: unknown; since: number }) {
  const { title, detail } = describeError(error);
  return (
    <div className="banner banner-warn" role="alert">
      <span className="banner-icon" aria-hidden="true">
        ?
      </span>
      <div>
        <p className="banner-title">
          {title}: showing the report from {formatClock(since)}
        </p>
        <p className="banner-body">{detail}</p>
      </div>
    </div>
  );
}
