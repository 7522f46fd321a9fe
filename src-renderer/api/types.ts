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


