import type { HealthCheck } from "../ports/chain";

export type CheckSource = () => Promise<HealthCheck[]> | HealthCheck[];

export interface HealthReport {
  status: "ok" | "degraded";
  checks: HealthCheck[];
}

/** A report as the public health endpoints serve it: with the time its checks ran (Unix ms). */
export interface CachedHealthReport extends HealthReport {
  checkedAt: number;
}

/**
 * How long the public /health and /health/detail reuse one report. Each report
 * asks every chain's RPC (slot, fee payer balance, ...), so an unauthenticated
 * caller must not be able to turn requests into RPC calls (docs/security.md, "Health").
 */
export const HEALTH_CACHE_MS = 5_000;

/** Healthy only when every check passes; a check that throws counts as failed. */
export class HealthService {
  private readonly sources: [string, CheckSource][] = [];
  private last: CachedHealthReport | null = null;
  private refreshing: Promise<CachedHealthReport> | null = null;
  private refreshes = 0;

  constructor(
    private readonly cacheMs: number = HEALTH_CACHE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  add(name: string, source: CheckSource): void {
    this.sources.push([name, source]);
  }

  /** Reports computed since start by {@link cached} (each one ran every check once). */
  get refreshCount(): number {
    return this.refreshes;
  }

  /**
   * The last report while it is younger than the cache window, else a fresh
   * one; callers that arrive while a refresh runs share it. So the checks run
   * at most once per window however many requests come in.
   */
  cached(): Promise<CachedHealthReport> {
    const last = this.last;
    if (last && this.now() - last.checkedAt < this.cacheMs) return Promise.resolve(last);
    if (this.refreshing) return this.refreshing;
    this.refreshes += 1;
    const started = this.now();
    const refresh = this.report().then(
      (r) => ({ ...r, checkedAt: started }),
      (e: unknown) => ({ status: "degraded" as const, checks: [{ name: "health", ok: false, detail: (e as Error).message }], checkedAt: started }),
    );
    this.refreshing = refresh;
    void refresh.then((r) => {
      this.last = r;
      this.refreshing = null;
    });
    return refresh;
  }

  /** Every check, now (the operator's /admin/health). */
  async report(timeoutMs = 4000): Promise<HealthReport> {
    const results = await Promise.all(
      this.sources.map(async ([name, source]) => {
        try {
          return await withTimeout(Promise.resolve(source()), timeoutMs);
        } catch (e) {
          return [{ name, ok: false, detail: (e as Error).message }];
        }
      }),
    );
    const checks = results.flat();
    return { status: checks.every((c) => c.ok) ? "ok" : "degraded", checks };
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e: unknown) => (clearTimeout(t), reject(e instanceof Error ? e : new Error(String(e)))),
    );
  });
}
