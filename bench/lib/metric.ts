import { fmtNum } from "./stats";

/**
 * One report line: our figure, the peer measured in the same run, and the
 * target. `ratio` is always ours / peer; `better` says which way is good.
 */
export interface Metric {
  name: string;
  ours: number;
  unit: string;
  peerLabel: string;
  peer: number | null;
  better: "higher" | "lower";
  /** "ratio>=" / "ratio<=" compare ours/peer; "<" / "<=" / ">=" compare ours itself (in `unit`). */
  target: { kind: "ratio>=" | "ratio<="; value: number } | { kind: "<" | "<=" | ">="; value: number } | null;
  /** Free text appended in brackets: repetitions, sizes, breakdown. */
  detail?: string;
}

export interface CaseResult {
  metrics: Metric[];
  /** Extra lines printed under the case (breakdowns, checks, caveats). */
  notes: string[];
}

export type Verdict = "OK" | "MISSED" | "n/a";

export function verdict(m: Metric): Verdict {
  if (!m.target) return "n/a";
  if (m.target.kind === "<") return m.ours < m.target.value ? "OK" : "MISSED";
  if (m.target.kind === "<=") return m.ours <= m.target.value ? "OK" : "MISSED";
  if (m.target.kind === ">=") return m.ours >= m.target.value ? "OK" : "MISSED";
  if (m.peer === null || m.peer === 0) return "n/a";
  if (m.target.kind === "ratio<=") return m.ours / m.peer <= m.target.value ? "OK" : "MISSED";
  return m.ours / m.peer >= m.target.value ? "OK" : "MISSED";
}

export function formatMetric(m: Metric): string {
  const ratio = m.peer ? m.ours / m.peer : null;
  const peer = m.peer === null ? `${m.peerLabel} n/a` : `${m.peerLabel} ${fmtNum(m.peer)} ${m.unit}`;
  const ratioText = ratio === null ? "ratio n/a" : `ratio ${fmtNum(ratio, 2)}x${m.better === "lower" ? " (lower is better)" : ""}`;
  let target = "no target";
  if (m.target?.kind === "ratio>=") target = `target >= ${m.target.value.toFixed(1)}x`;
  if (m.target?.kind === "ratio<=") target = `target <= ${m.target.value.toFixed(1)}x`;
  if (m.target?.kind === "<") target = `target < ${fmtNum(m.target.value)} ${m.unit}`;
  if (m.target?.kind === "<=") target = `target <= ${fmtNum(m.target.value)} ${m.unit}`;
  if (m.target?.kind === ">=") target = `target >= ${fmtNum(m.target.value)} ${m.unit}`;
  const v = verdict(m);
  const detail = m.detail ? ` [${m.detail}]` : "";
  return `${m.name}: ours ${fmtNum(m.ours)} ${m.unit} | ${peer} | ${ratioText} (${target})${v === "n/a" ? "" : ` ${v}`}${detail}`;
}

/** Prefix of the JSON result line a worker prints on stdout. */
export const RESULT_MARKER = "@@bench-result@@ ";
