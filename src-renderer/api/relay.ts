import { ApiError, type ApiClient } from "./client";
import type { HealthCheck, HealthDetail, MerkleInfo, Network, NetworkStatus } from "./types";

/**
 * One function per relay endpoint the console uses. Answers are checked at the edge
 * so components can trust their types; a malformed answer is an ApiError, not a crash.
 */

const TREE_DEPTH = 32;

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

export async function fetchMerkle(api: ApiClient, network: Network, mint: string, signal?: AbortSignal): Promise<MerkleInfo> {
  const path = `/get_merkle/${encodeURIComponent(mint)}/${TREE_DEPTH}/${network}`;
  const body = await api.postJson(path, undefined, { signal });
  if (!isRecord(body) || !isRecord(body.json) || typeof body.address !== "string") throw malformed("get_merkle");
  const { root, nextIndex, depth } = body.json;
  if (!Array.isArray(root) || root.length !== 32 || !root.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
    throw malformed("get_merkle");
  }
  if (typeof nextIndex !== "number") throw malformed("get_merkle");
  return {
    address: body.address,
    root: root as number[],
    nextIndex,
    depth: typeof depth === "number" ? depth : TREE_DEPTH,
  };
}
