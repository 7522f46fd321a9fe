import { readFileSync } from "node:fs";
import path from "node:path";
import { NETWORKS } from "../../src-shared/networks";
import { repoPath } from "../repo-path";
import { ConfigError } from "./config-error";
import { isObj, type Obj } from "./decoders";
import { applyEnv, applySection, defaultsOf } from "./declare";
import { RELAY_CONFIG_KEYS } from "./keys";
import type { RelayConfig } from "./types";

export { ConfigError } from "./config-error";
export { MIN_OPERATOR_TOKEN_LENGTH } from "./constants";
export { allowedOrigins } from "./decoders";
export { describeConfig } from "./describe";

/** resources/ of the repository when run from source (headless, tests). */
const REPO_RESOURCES = repoPath("resources");

/** The JSON object of the RELAY_CONFIG file; none: empty. */
function readConfigFile(file: string | undefined): Obj {
  if (!file) return {};
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new ConfigError("RELAY_CONFIG", `cannot read ${file}: ${(e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ConfigError("RELAY_CONFIG", `${file} is not valid JSON: ${(e as Error).message}`);
  }
  if (!isObj(parsed)) throw new ConfigError("RELAY_CONFIG", "the file must hold a JSON object");
  return parsed;
}

/** A `solana` network cannot run without its RPC endpoint. */
function checkSolanaNetworks(cfg: RelayConfig): void {
  for (const n of NETWORKS) {
    const net = cfg.networks[n];
    if (!net.enabled || net.backend !== "solana") continue;
    if (!net.rpcUrls.length) throw new ConfigError(`networks.${n}.rpcUrl`, `(or rpcUrls) is required when backend is "solana"`);
  }
}

/**
 * RELAY_DATABASE_URL (or storage.url) alone means PostgreSQL. In that mode every network
 * must be a `solana` one: the sandbox's chain lives in one process's store and cannot be
 * shared (docs/decisions.md, "Scale-out serves solana networks only").
 */
function checkStorage(cfg: RelayConfig, given: ReadonlySet<string>): void {
  const { storage } = cfg;
  if (storage.url !== null && !given.has("storage.kind")) storage.kind = "postgres";
  if (storage.kind === "sqljs") {
    if (storage.url !== null) throw new ConfigError("storage.url", 'is only read with storage.kind "postgres"');
    return;
  }
  if (storage.url === null) throw new ConfigError("storage.url", 'is required when storage.kind is "postgres" (or set RELAY_DATABASE_URL)');
  for (const n of NETWORKS) {
    const net = cfg.networks[n];
    if (net.enabled && net.backend === "sandbox") {
      throw new ConfigError(
        `networks.${n}`,
        'a sandbox network cannot run on PostgreSQL storage: its chain lives in one instance; set backend "solana" or enabled false (docs/decisions.md)',
      );
    }
  }
}

/**
 * The one place configuration is read: defaults, then the RELAY_CONFIG file,
 * then RELAY_* variables, each key as keys.ts declares it. Validated once; the result is frozen.
 */
export function loadConfig(env: NodeJS.ProcessEnv, opts: { defaultDataDir?: string; resourcesDir?: string } = {}): RelayConfig {
  // Bundled builds (Electron) pass their resources folder; headless runs from the repository.
  const defaults = defaultsOf(RELAY_CONFIG_KEYS, {
    dataDir: path.resolve(opts.defaultDataDir ?? "data"),
    resourcesDir: path.resolve(opts.resourcesDir ?? REPO_RESOURCES),
  });
  const given = new Set<string>();
  const cfg = applySection(RELAY_CONFIG_KEYS, "", defaults, readConfigFile(env.RELAY_CONFIG), given);
  // Environment wins over the file.
  applyEnv(RELAY_CONFIG_KEYS, "", cfg, env, given);
  // A default port that is taken is skipped with a warning; a port the operator chose stops the start.
  cfg.metrics.portConfigured = given.has("metrics.port");
  checkSolanaNetworks(cfg);
  checkStorage(cfg, given);
  return Object.freeze(cfg);
}
