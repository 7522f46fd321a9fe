import { ApiError, type ApiClient } from "./client";
import type { HealthCheck, HealthDetail, NetworkStatus } from "./types";

/**
 * One function per relay endpoint the console uses. Answers are checked at the edge
 * so components can trust their types; a malformed answer is an ApiError, not a crash.
 */

function malformed(what: string): ApiError {
  return new ApiError(200, "UnexpectedResponse", `The relay's ${what} answer has an unexpected shape`);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export async function fetchHealthDetail(api: ApiClient, signal?: AbortSignal): Promise<HealthDetail> {
  // 503 still carries the report: it is how a degraded relay answers.
  const body = await api.getJson("/health/detail", { signal, acceptStatuses: [503] });
  if (!isRecord(body) || !Array.isArray(body.checks)) throw malformed("health");
  const checks: HealthCheck[] = body.checks.filter(isRecord).map((c) => ({
    name: String(c.name ?? "unnamed check"),
    ok: c.ok === true,
    detail: typeof c.detail === "string" ? c.detail : c.detail == null ? "" : String(c.detail),
  }));
  const networks: NetworkStatus[] = (Array.isArray(body.networks) ? body.networks : []).filter(isRecord).map((n) => ({
    name: String(n.name ?? "?"),
    backend: String(n.backend ?? "?"),
    sandbox: n.sandbox === true,
  }));
  return {
    status: body.status === "ok" ? "ok" : "degraded",
    checks,
    uptimeSec: typeof body.uptimeSec === "number" ? body.uptimeSec : 0,
    version: typeof body.version === "string" ? body.version : "",
    networks,
  };
}

export async function fetchVersion(api: ApiClient, signal?: AbortSignal): Promise<string> {
  return (await api.getText("/version", { signal })).trim();
}

