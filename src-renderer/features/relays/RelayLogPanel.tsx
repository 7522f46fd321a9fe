import { useQuery } from "@tanstack/react-query";
import { fetchRelayLog } from "../../api/admin";
import { useApi } from "../../api/context";
import { queryKeys } from "../../api/keys";
import { EmptyState } from "../../components/StateViews";
import { formatDateTime } from "../../lib/time";

/** GET /admin/relays/{id}/log: the relay's own log lines, kept in memory since the relay started. */
function useRelayLog(id: string) {
  const api = useApi();
  return useQuery({
    queryKey: [...queryKeys.admin.relays(), "log", id],
    queryFn: ({ signal }) => fetchRelayLog(api, id, { signal }),
    refetchInterval: 3_000,
  });
}

/** The Relay detail's log: one line per state change and any line the relay wrote about it (no recipient or client address). */
export function RelayLogPanel({ id }: { id: string }) {
  const log = useRelayLog(id);
  return (
    <section className="panel" aria-labelledby="relay-log-title">
      <h2 id="relay-log-title">Log</h2>
      {log.error ? (
        <p className="field-error" role="alert">
          The log could not be read: {log.error.message}
        </p>
      ) : !log.data ? null : log.data.lines.length === 0 ? (
        <EmptyState title="No log lines kept for this relay">
          The relay keeps the lines of recent relays in memory since it started; the full log is in its data dir (logs/relay.log).
        </EmptyState>
      ) : (
        <ol className="log-lines" data-testid="relay-log">
          {log.data.lines.map((l, i) => (
            <li key={i} className={`log-line log-${l.level}`}>
              <time className="muted">{formatDateTime(l.time)}</time> <code>{l.msg}</code>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
