import { liveLaneWorkers } from "../../src-server/adapters/frontier-lane/lane";
import { liveVerifierWorkers } from "../../src-server/adapters/verifier-groth16/worker-pool";

/**
 * Counts what a relay leaves running: timers (unref'd ones too, which neither
 * keep the process alive nor show in process.getActiveResourcesInfo()) and
 * worker threads (the verifier's and the frontier lane's). Timers are counted by wrapping the global timer
 * functions, which is what the server's code calls.
 */
export interface OpenResources {
  /** Intervals set and not cleared, and time-outs neither fired nor cleared, since `trackOpenResources`. */
  timers(): number;
  /** Intervals set since `trackOpenResources` (cleared or not). */
  intervalsCreated(): number;
  workers(): number;
  /** Puts the global timer functions back. */
  restore(): void;
}

export function trackOpenResources(): OpenResources {
  const g = globalThis as unknown as Record<"setInterval" | "clearInterval" | "setTimeout" | "clearTimeout", (...args: unknown[]) => unknown>;
  const original = { setInterval: g.setInterval, clearInterval: g.clearInterval, setTimeout: g.setTimeout, clearTimeout: g.clearTimeout };
  const live = new Set<unknown>();
  let intervals = 0;
  g.setInterval = (...args: unknown[]) => {
    const t = original.setInterval(...args);
    live.add(t);
    intervals++;
    return t;
  };
  g.setTimeout = (fn: unknown, ...rest: unknown[]) => {
    const t: unknown = original.setTimeout(
      (...a: unknown[]) => {
        live.delete(t);
        if (typeof fn === "function") (fn as (...x: unknown[]) => unknown)(...a);
      },
      ...rest,
    );
    live.add(t);
    return t;
  };
  const clear = (which: "clearInterval" | "clearTimeout") => (t: unknown) => {
    live.delete(t);
    return original[which](t);
  };
  g.clearInterval = clear("clearInterval");
  g.clearTimeout = clear("clearTimeout");
  return {
    timers: () => live.size,
    intervalsCreated: () => intervals,
    workers: () => liveVerifierWorkers() + liveLaneWorkers(),
    restore: () => Object.assign(g, original),
  };
}
