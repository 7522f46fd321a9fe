/**
 * The config as the rest of the relay imports it: the types (types.ts), the defaults the key
 * table declares (keys.ts) and the names both use (constants.ts).
 */
import { defaultsOf } from "./declare";
import { RELAY_CONFIG_KEYS } from "./keys";
import type { NetworkConfig, RelayConfig, SolanaNetworkConfig } from "./types";

export type * from "./types";
export { ALERT_RULE_KEYS, DEFAULT_PROGRAM_ID, RATE_LIMITED_ENDPOINTS, WRAPPED_SOL_MINT } from "./constants";

/** A sandbox pool's minimum deposit under this network's settings. */
export function sandboxMinDeposit(net: NetworkConfig, mint: string): bigint {
  return net.sandbox?.minDeposit[mint] ?? net.sandbox?.defaultMinDeposit ?? 1n;
}

/** Every key's default (keys.ts). The spec's limit table is the rate-limit default. */
export function defaultConfig(dataDir: string, resourcesDir: string): RelayConfig {
  return defaultsOf(RELAY_CONFIG_KEYS, { dataDir, resourcesDir });
}

/** A `solana` network's landing settings, by default. */
export function defaultSolanaConfig(): SolanaNetworkConfig {
  return defaultConfig("", "").networks.mainnet.solana;
}
