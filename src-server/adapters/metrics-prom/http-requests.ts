/**
 * relay_http_requests_total and relay_http_request_seconds, tallied in plain
 * arrays per route and turned into Prometheus series only when scraped:
 * prom-client's own counter and histogram hash their labels on every
 * observation, a microsecond and a half of each get_proof.
 */
import type { Metric, Registry } from "prom-client";

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

interface RouteTally {
  /** status → answers per method (keyed by the number: a method + status key was a new string to hash per request). */
  counts: Map<number, { method: string; status: number; n: number }[]>;
  /** Observations per bucket (not cumulative; the last slot is +Inf). */
  buckets: number[];
  sum: number;
  count: number;
}

interface Series {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

export class HttpRequestTally {
  private readonly routes = new Map<string, RouteTally>();

  observe(method: string, route: string, status: number, seconds: number): void {
    let t = this.routes.get(route);
    if (!t) {
      t = { counts: new Map(), buckets: new Array<number>(BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
      this.routes.set(route, t);
    }
    let byMethod = t.counts.get(status);
    if (!byMethod) t.counts.set(status, (byMethod = []));
    let i = 0;
    while (i < byMethod.length && byMethod[i]!.method !== method) i++;
    if (i < byMethod.length) byMethod[i]!.n++;
    else byMethod.push({ method, status, n: 1 });
    let b = 0;
    while (b < BUCKETS.length && seconds > BUCKETS[b]!) b++;
    t.buckets[b]!++;
    t.sum += seconds;
    t.count++;
  }

  /** Registers both series on the registry /metrics serves. */
  register(registry: Registry): void {
    const tally = this.routes;
    registry.registerMetric(
      custom("relay_http_requests_total", "HTTP requests answered, by method, route pattern (never the path's own text) and status", "counter", () => {
        const values: Series[] = [];
        for (const [route, t] of tally)
          for (const byMethod of t.counts.values())
            for (const c of byMethod) values.push({ labels: { method: c.method, route, status: c.status }, value: c.n });
        return values;
      }),
    );
    registry.registerMetric(
      custom("relay_http_request_seconds", "Time from a request's arrival to its answer being sent, by route pattern", "histogram", () => {
        const values: Series[] = [];
        for (const [route, t] of tally) {
          let cumulative = 0;
          for (let b = 0; b <= BUCKETS.length; b++) {
            cumulative += t.buckets[b]!;
            values.push({
              metricName: "relay_http_request_seconds_bucket",
              labels: { route, le: b < BUCKETS.length ? BUCKETS[b]! : "+Inf" },
              value: cumulative,
            });
          }
          values.push({ metricName: "relay_http_request_seconds_sum", labels: { route }, value: t.sum });
          values.push({ metricName: "relay_http_request_seconds_count", labels: { route }, value: t.count });
        }
        return values;
      }),
    );
  }
}

/**
 * A metric prom-client's registry can serve: it asks any registered object
 * for get() (its name, help, type and series); its own types only name its
 * four classes, hence the cast.
 */
function custom(name: string, help: string, type: "counter" | "histogram", values: () => Series[]): Metric {
  const metric = {
    name,
    help,
    type,
    aggregator: "sum" as const,
    collect: () => undefined,
    get: () => Promise.resolve({ name, help, type, aggregator: "sum", values: values() }),
    reset: () => undefined,
  };
  return metric as unknown as Metric;
}
