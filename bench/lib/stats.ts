import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Small numeric helpers shared by the benchmark cases. */

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Runs `fn` and returns its wall time in ms. */
/** The p-th percentile by nearest rank (upper). */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export async function timeMs(fn: () => unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export function timeSyncMs(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

/** ops/s from a count and a duration in ms. */
export const rate = (count: number, ms: number): number => (count * 1000) / ms;

export function fmtNum(n: number, digits?: number): string {
  if (!Number.isFinite(n)) return String(n);
  const d = digits ?? (Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 10 ? 1 : 2);
  return n.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
}

let collect: (() => void) | null = null;

/**
 * A full GC between phases. Enabled at run time rather than with
 * `--expose-gc` on the command line, because the verifier's worker pool
 * forwards process.execArgv to its threads and Worker refuses that flag.
 */
export function gc(): void {
  if (!collect) {
    setFlagsFromString("--expose-gc");
    collect = runInNewContext("gc") as () => void;
  }
  collect();
}
