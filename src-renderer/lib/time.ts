/** Time display helpers: pure, unit-tested in time.test.ts. */

const pad = (n: number) => String(n).padStart(2, "0");

/** `2026-06-30 14:03:27`, local time: unambiguous in tables. */
export function formatDateTime(ms: number): string {
  const t = new Date(ms);
  return `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())} ${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())}`;
}

/** `just now`, `42 s ago`, `5 min ago`, `3 h ago`, `2 d ago`. */
export function formatAgo(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 5) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** A duration: `850 ms`, `2.4 s`, `1 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** Axis label of a chart bucket: hours for short ranges, dates for long ones. */
export function bucketLabel(ms: number, bucketMs: number): string {
  const t = new Date(ms);
  if (bucketMs >= 86_400_000) return `${pad(t.getMonth() + 1)}-${pad(t.getDate())}`;
  if (bucketMs >= 6 * 3_600_000) return `${pad(t.getMonth() + 1)}-${pad(t.getDate())} ${pad(t.getHours())}h`;
  return `${pad(t.getHours())}:00`;
}
