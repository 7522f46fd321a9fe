import type { HealthCheck } from "../ports/chain";

export type CheckSource = () => Promise<HealthCheck[]> | HealthCheck[];

export interface HealthReport {
  status: "ok" | "degraded";
  checks: HealthCheck[];
}

/** DESIGN §4: healthy only when every check passes; a check that throws counts as failed. */
export class HealthService {
  private readonly sources: [string, CheckSource][] = [];

  add(name: string, source: CheckSource): void {
    this.sources.push([name, source]);
  }

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
