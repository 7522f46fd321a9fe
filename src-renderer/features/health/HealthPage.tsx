import { useApi } from "../../api/context";
import { HEALTH_REFRESH_MS, useHealthDetail, useVersion } from "../../api/hooks";
import type { HealthDetail } from "../../api/types";
import { CopyValue } from "../../components/CopyValue";
import { describeError, EmptyState, ErrorState, Loading } from "../../components/StateViews";
import { formatClock, formatUptime } from "../../lib/format";
import { ChecksList } from "./ChecksList";
import { DesktopFacts } from "./DesktopFacts";
import { NetworksPanel } from "./NetworksPanel";

export function HealthPage() {
  const health = useHealthDetail();
  const { data, error, isFetching, dataUpdatedAt } = health;

  return (
    <section className="page" aria-labelledby="health-title">
      <header className="page-header">
        <div>
          <h1 id="health-title">Health</h1>
          <p className="page-lede">
            What the relay reports about itself, refreshed every {HEALTH_REFRESH_MS / 1000} s.
          </p>
        </div>
        {data ? (
          <p className="page-meta" aria-live="polite">
            <span className={`pulse${isFetching ? " pulse-active" : ""}${error ? " pulse-stale" : ""}`} aria-hidden="true" />
            Updated {formatClock(dataUpdatedAt)}
          </p>
        ) : null}
      </header>

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
          <Facts detail={data} />
          <NetworksPanel networks={data.networks} />
          <section className="panel" aria-labelledby="checks-title">
            <h2 id="checks-title">Checks</h2>
            {data.checks.length === 0 ? (
              <EmptyState title="The relay reported no checks">
                Nothing is being monitored yet; the overall status above is all there is.
              </EmptyState>
            ) : (
              <ChecksList checks={data.checks} />
            )}
          </section>
          <DesktopFacts />
        </>
      )}
    </section>
  );
}

function StatusBanner({ detail, stale }: { detail: HealthDetail; stale: boolean }) {
  const failing = detail.checks.filter((c) => !c.ok);
  const ok = detail.status === "ok" && failing.length === 0;
  return (
    <div className={`banner ${ok ? "banner-ok" : "banner-bad"}${stale ? " banner-stale" : ""}`} role="status">
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

function Facts({ detail }: { detail: HealthDetail }) {
  const api = useApi();
  const version = useVersion(detail.version === "");
  const shownVersion = detail.version || version.data || "unknown";
  return (
    <dl className="facts">
      <div className="fact">
        <dt>Uptime</dt>
        <dd>{formatUptime(detail.uptimeSec)}</dd>
      </div>
      <div className="fact">
        <dt>Version</dt>
        <dd data-testid="relay-version">{shownVersion}</dd>
      </div>
      <div className="fact fact-wide">
        <dt>API address</dt>
        <dd>
          <CopyValue value={api.base} label="API address" display={api.base} />
        </dd>
      </div>
    </dl>
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
        <p className="banner-title">{title}: showing the report from {formatClock(since)}</p>
        <p className="banner-body">{detail}</p>
      </div>
    </div>
  );
}
