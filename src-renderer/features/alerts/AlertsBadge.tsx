import { useEffect, useRef } from "react";
import { useAlerts } from "../../api/alerts";
import { desktopBridge } from "../../api/bridge";

/** The number of active alerts, next to the Alerts link on every page. */
export function AlertsBadge() {
  const { data } = useAlerts();
  const n = data?.active.length ?? 0;
  if (n === 0) return null;
  return (
    <span
      className="nav-badge"
      data-testid="alerts-badge"
      aria-label={`${n} active alert${n === 1 ? "" : "s"}`}
      title={data!.active.map((a) => a.summary).join("\n")}
    >
      {n}
    </span>
  );
}

/**
 * In the desktop app: a system notification for each alert that starts firing
 * while the console is open (through the preload bridge); the alerts already
 * firing when it opens are shown by the badge, not notified again.
 */
export function DesktopAlertNotifier() {
  const { data } = useAlerts();
  const seen = useRef<Set<number> | null>(null);
  useEffect(() => {
    if (!data) return;
    const bridge = desktopBridge();
    const first = seen.current === null;
    seen.current ??= new Set();
    for (const a of data.active) {
      if (seen.current.has(a.id)) continue;
      seen.current.add(a.id);
      if (!first && bridge?.notify) void bridge.notify({ title: a.summary, body: a.detail }).catch(() => {});
    }
  }, [data]);
  return null;
}
