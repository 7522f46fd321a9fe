/**
 * Wire shapes the console reads. They mirror the relay's answers; when the server's
 * wire types land in src-shared/, these should be imported from there instead.
 */

export type Network = "mainnet" | "devnet";
export const NETWORKS: readonly Network[] = ["mainnet", "devnet"];

export interface HealthCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface NetworkStatus {
  name: string;
  backend: string;
  sandbox: boolean;
}

/** GET /health/detail */
export interface HealthDetail {
  status: "ok" | "degraded";
  checks: HealthCheck[];
  uptimeSec: number;
  version: string;
  networks: NetworkStatus[];
}

/** POST /get_merkle/{mint}/32/{network} */
export interface MerkleInfo {
  /** The pool's tree account (PDA ["merkle_tree", mint]). */
  address: string;
  /** 32 bytes, big-endian. */
  root: number[];
  nextIndex: number;
  depth: number;
}
