import { bucketLabel, formatDateTime } from "../lib/time";

export interface ChartBar {
  at: number;
  value: number;
}

const W = 720;
const H = 170;
const PAD = { top: 12, right: 8, bottom: 26, left: 44 };

/** A nice round ceiling for the y axis: 1, 2, 5 × 10^n. */
export function niceMax(max: number): number {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

/**
 * A hand-rolled SVG bar chart over time buckets: no chart library, scales
 * with its container, every bar titled with its exact value and time.
 */
export function BarChart({
  bars,
  bucketMs,
  label,
  unit,
  format = (v) => String(v),
}: {
  bars: readonly ChartBar[];
  bucketMs: number;
  label: string;
  /** What the values count: one word, or [singular, plural]. */
  unit: string | readonly [string, string];
  format?: (v: number) => string;
}) {
  const max = niceMax(Math.max(0, ...bars.map((b) => b.value)));
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const slot = innerW / Math.max(1, bars.length);
  const barW = Math.max(1, slot * 0.72);
  const labelEvery = Math.max(1, Math.ceil(bars.length / 8));
  const y = (v: number) => PAD.top + innerH - (v / max) * innerH;
  const total = bars.reduce((s, b) => s + b.value, 0);
  const unitOf = (v: number) => (typeof unit === "string" ? unit : v === 1 ? unit[0] : unit[1]);

  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${label}: ${format(total)} ${unitOf(total)} over ${bars.length} bars`}>
        {[0, 0.5, 1].map((f) => (
          <g key={f} className="chart-grid">
            <line x1={PAD.left} x2={W - PAD.right} y1={y(max * f)} y2={y(max * f)} />
            <text x={PAD.left - 6} y={y(max * f) + 4} textAnchor="end">
              {format(max * f)}
            </text>
          </g>
        ))}
        {bars.map((b, i) => {
          const x = PAD.left + i * slot + (slot - barW) / 2;
          const h = PAD.top + innerH - y(b.value);
          return (
            <g key={b.at}>
              <rect
                className={b.value > 0 ? "chart-bar" : "chart-bar chart-bar-empty"}
                x={x}
                y={y(b.value) - (b.value > 0 ? 0 : 1)}
                width={barW}
                height={Math.max(h, 1)}
                rx={2}
              >
                <title>{`${formatDateTime(b.at)}: ${format(b.value)} ${unitOf(b.value)}`}</title>
              </rect>
              {i % labelEvery === 0 ? (
                <text className="chart-x" x={x + barW / 2} y={H - 8} textAnchor="middle">
                  {bucketLabel(b.at, bucketMs)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption className="muted">
        {label}: {format(total)} {unitOf(total)}
      </figcaption>
    </figure>
  );
}
