import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import path from "node:path";
import { parsePublicKey } from "../../src-shared/encoding/base58";
import { checkListUrl } from "../core/compliance/sanctions";
import { isSlippageClass, pairKey, SLIPPAGE_CLASS_BPS, SLIPPAGE_CLASSES, type PairSlippage } from "../core/swap/slippage";
import { NETWORKS } from "../../src-shared/networks";
import { redactUrl } from "../../src-shared/redact-url";
import { fileURLToPath } from "node:url";
import { applyOpsConfig } from "./load-ops";
import {
  defaultConfig,
  RATE_LIMITED_ENDPOINTS,
  type TrustProxy,
  type NetworkConfig,
  type RelayConfig,
  type SolanaNetworkConfig,
  type SandboxNetworkConfig,
} from "./schema";

/** resources/ of the repository when run from source (headless, tests). */
const REPO_RESOURCES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../resources");

/** A bad setting stops start-up; the message names the key. */
export class ConfigError extends Error {
  constructor(
    readonly key: string,
    problem: string,
  ) {
    super(`config ${key}: ${problem}`);
    this.name = "ConfigError";
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function int(key: string, v: unknown, min: number, max: number): number {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(key, `must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  }
  return n;
}

function bool(key: string, v: unknown): boolean {
  if (typeof v === "boolean") return v;
  if (v === "on" || v === "true" || v === "1") return true;
  if (v === "off" || v === "false" || v === "0") return false;
  throw new ConfigError(key, `must be true/false (or on/off), got ${JSON.stringify(v)}`);
}

function str(key: string, v: unknown): string {
  if (typeof v !== "string" || v.length === 0) throw new ConfigError(key, "must be a non-empty string");
  return v;
}

function pubkey(key: string, v: unknown): string {
  const s = str(key, v);
  if (!parsePublicKey(s).ok) throw new ConfigError(key, "must be a base58 public key of 32 bytes");
  return s;
}

function url(key: string, v: unknown): string | null {
  if (v === null || v === undefined) return null;
  const s = str(key, v);
  try {
    new URL(s);
  } catch {
    throw new ConfigError(key, `must be a URL, got ${JSON.stringify(s)}`);
  }
  return s;
}

/** DESIGN: production lists come over https; plain http only from a loopback mirror. */
function listUrl(key: string, v: unknown): string {
  const checked = checkListUrl(str(key, v));
  if (!checked.ok) throw new ConfigError(key, checked.error);
  return checked.value.href;
}

function feeSetting(key: string, v: unknown): { bps: number; floor: bigint } {
  if (!isObj(v)) throw new ConfigError(key, "must be an object { bps, floor }");
  rejectUnknown(key, v, ["bps", "floor"]);
  const bps = int(`${key}.bps`, v.bps, 0, 10_000);
  const floorRaw = v.floor ?? "0";
  if (!(typeof floorRaw === "string" && /^[0-9]{1,20}$/.test(floorRaw)) && !(typeof floorRaw === "number" && Number.isSafeInteger(floorRaw) && floorRaw >= 0)) {
    throw new ConfigError(`${key}.floor`, "must be a non-negative integer (base units), as a number or a decimal string");
  }
  return { bps, floor: BigInt(floorRaw) };
}

/** A pair's slippage in the file: a class name, or an integer number of bps. */
function pairSlippageSetting(key: string, v: unknown): PairSlippage {
  if (isSlippageClass(v)) return { bps: SLIPPAGE_CLASS_BPS[v], class: v };
  if (typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 10_000) return { bps: v, class: "custom" };
  throw new ConfigError(key, `must be one of ${SLIPPAGE_CLASSES.join(", ")} or an integer number of bps from 0 to 10000, got ${JSON.stringify(v)}`);
}

/** An operator token guards the admin API and console: long enough that guessing it is not a plan. */
export const MIN_OPERATOR_TOKEN_LENGTH = 24;

function operatorToken(key: string, v: unknown): string {
  const t = str(key, v);
  if (t.length < MIN_OPERATOR_TOKEN_LENGTH) throw new ConfigError(key, `must be at least ${MIN_OPERATOR_TOKEN_LENGTH} characters, got ${t.length}`);
  return t;
}

/** An API key goes into a header: printable ASCII without spaces. */
function apiKey(key: string, v: unknown): string | null {
  if (v === null || v === "") return null;
  if (typeof v !== "string" || !/^[\x21-\x7e]{1,512}$/.test(v)) throw new ConfigError(key, "must be printable ASCII without spaces, at most 512 characters");
  return v;
}

/** Host names a loopback-bound relay also answers to (docs/security.md): DNS names or IP literals, no port. */
function publicHostnames(key: string, v: unknown): string[] {
  if (!Array.isArray(v)) throw new ConfigError(key, "must be an array of host names");
  return v.map((h, i) => {
    const s = str(`${key}[${i}]`, h).trim().toLowerCase();
    const bare = s.startsWith("[") && s.endsWith("]") ? s.slice(1, -1) : s;
    if (bare.length > 253 || !(/^[a-z0-9]([a-z0-9._-]*[a-z0-9])?\.?$/.test(bare) || isIP(bare) !== 0)) {
      throw new ConfigError(`${key}[${i}]`, `must be a host name without scheme or port (e.g. "relay.example.org"), got ${JSON.stringify(h)}`);
    }
    return bare;
  });
}

/**
 * Origins whose requests a relay answers besides its own (docs/security.md, "Cross-site
 * requests"): `http(s)://host[:port]` exactly as a browser sends it in `Origin`, kept in
 * that serialization (lower-case host, no default port, no path).
 */
export function allowedOrigins(key: string, v: unknown): string[] {
  if (!Array.isArray(v)) throw new ConfigError(key, "must be an array of origins");
  return v.map((o, i) => {
    const s = str(`${key}[${i}]`, o).trim();
    let u: URL | null;
    try {
      u = new URL(s);
    } catch {
      u = null;
    }
    const bare = u !== null && (u.protocol === "http:" || u.protocol === "https:") && !u.username && !u.password && !u.search && !u.hash && u.pathname === "/";
    if (!u || !bare || s.endsWith("?") || s.endsWith("#")) {
      throw new ConfigError(
        `${key}[${i}]`,
        `must be an origin: http(s)://host[:port] without path (e.g. "https://relay.example.org"), got ${JSON.stringify(o)}`,
      );
    }
    return u.origin;
  });
}

/** Names Express knows for address ranges (loopback, link-local, unique-local). */
const NAMED_RANGES = ["loopback", "linklocal", "uniquelocal"];

/**
 * Which proxies are believed (docs/security.md, "Client address"): false, a hop count,
 * or proxy addresses / CIDR ranges. `true` is refused: it would take the client's
 * address from whatever X-Forwarded-For a client sends, so every request could
 * claim a new address and no per-IP limit would hold.
 */
function trustProxy(key: string, v: unknown): TrustProxy {
  if (v === false || v === 0) return false;
  if (v === true) {
    throw new ConfigError(
      key,
      'true is refused: it believes any X-Forwarded-For a client sends, so every request could claim a new address and per-IP limits would not hold. Give the number of proxies in front of the relay (e.g. 1) or their addresses (e.g. ["10.0.0.5", "10.1.0.0/16"]); false when clients connect directly',
    );
  }
  if (typeof v === "number") return int(key, v, 0, 10);
  if (!Array.isArray(v) || v.length === 0)
    throw new ConfigError(key, "must be false, a number of proxies (1 to 10) or a non-empty list of proxy addresses or CIDR ranges");
  return v.map((entry, i) => {
    const s = str(`${key}[${i}]`, entry).trim();
    if (NAMED_RANGES.includes(s)) return s;
    const [addr, prefix, extra] = s.split("/");
    const family = isIP(addr ?? "");
    const maxPrefix = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
    if (family === 0 || !prefixOk || extra !== undefined) {
      throw new ConfigError(
        `${key}[${i}]`,
        `must be an IP address or CIDR range (e.g. "10.0.0.5", "10.1.0.0/16", "fd00::/8") or one of ${NAMED_RANGES.join(", ")}, got ${JSON.stringify(entry)}`,
      );
    }
    return s;
  });
}

function rejectUnknown(key: string, obj: Obj, known: readonly string[]): void {
  for (const k of Object.keys(obj)) {
    if (!known.includes(k)) throw new ConfigError(key ? `${key}.${k}` : k, "is not a known setting");
  }
}

function section(key: string, v: unknown): Obj {
  if (v === undefined) return {};
  if (!isObj(v)) throw new ConfigError(key, "must be an object");
  return v;
}

function applyNetwork(key: string, base: NetworkConfig, raw: Obj): NetworkConfig {
  rejectUnknown(key, raw, [
    "enabled",
    "backend",
    "programId",
    "pools",
    "rpcUrl",
    "rpcUrls",
    "wsUrl",
    "solana",
    "allowDevelopmentVerifyingKey",
    "production",
    "trustedUpgradeAuthorities",
    "sandbox",
  ]);
  const out: NetworkConfig = { ...base, rpcUrls: [...base.rpcUrls], solana: { ...base.solana, lamportsPerUnit: { ...base.solana.lamportsPerUnit } } };
  if (raw.enabled !== undefined) out.enabled = bool(`${key}.enabled`, raw.enabled);
  if (raw.allowDevelopmentVerifyingKey !== undefined)
    out.allowDevelopmentVerifyingKey = bool(`${key}.allowDevelopmentVerifyingKey`, raw.allowDevelopmentVerifyingKey);
  if (raw.production !== undefined) out.production = bool(`${key}.production`, raw.production);
  if (raw.trustedUpgradeAuthorities !== undefined) {
    if (!Array.isArray(raw.trustedUpgradeAuthorities)) throw new ConfigError(`${key}.trustedUpgradeAuthorities`, "must be an array of base58 public keys");
    out.trustedUpgradeAuthorities = raw.trustedUpgradeAuthorities.map((a, i) => pubkey(`${key}.trustedUpgradeAuthorities[${i}]`, a));
  }
  if (raw.backend !== undefined) {
    if (raw.backend !== "sandbox" && raw.backend !== "solana") {
      throw new ConfigError(`${key}.backend`, `must be "sandbox" or "solana", got ${JSON.stringify(raw.backend)}`);
    }
    out.backend = raw.backend;
  }
  if (raw.programId !== undefined) out.programId = pubkey(`${key}.programId`, raw.programId);
  if (raw.pools !== undefined) {
    if (!Array.isArray(raw.pools)) throw new ConfigError(`${key}.pools`, "must be an array of mint addresses");
    out.pools = raw.pools.map((m, i) => pubkey(`${key}.pools[${i}]`, m));
  }
  if (raw.rpcUrl !== undefined && raw.rpcUrls !== undefined) throw new ConfigError(`${key}.rpcUrls`, "and rpcUrl are both set: list every endpoint in rpcUrls");
  if (raw.rpcUrl !== undefined) {
    out.rpcUrl = rpcUrl(`${key}.rpcUrl`, raw.rpcUrl, ["http:", "https:"]);
    out.rpcUrls = out.rpcUrl ? [out.rpcUrl] : [];
  }
  if (raw.rpcUrls !== undefined) {
    if (!Array.isArray(raw.rpcUrls) || raw.rpcUrls.length === 0) throw new ConfigError(`${key}.rpcUrls`, "must be a non-empty list of http(s) URLs");
    out.rpcUrls = raw.rpcUrls.map((u, i) => {
      const s = rpcUrl(`${key}.rpcUrls[${i}]`, u, ["http:", "https:"]);
      if (s === null) throw new ConfigError(`${key}.rpcUrls[${i}]`, "must be an http(s) URL");
      return s;
    });
    if (new Set(out.rpcUrls).size !== out.rpcUrls.length) throw new ConfigError(`${key}.rpcUrls`, "lists the same URL twice");
    out.rpcUrl = out.rpcUrls[0]!;
  }
  if (raw.wsUrl !== undefined) out.wsUrl = rpcUrl(`${key}.wsUrl`, raw.wsUrl, ["ws:", "wss:"]);
  out.solana = applySolana(`${key}.solana`, out.solana, section(`${key}.solana`, raw.solana));
  if (raw.sandbox !== undefined) out.sandbox = applySandbox(`${key}.sandbox`, section(`${key}.sandbox`, raw.sandbox));
  return out;
}

/** `networks.<n>.sandbox`: the sandbox pools' minimum deposits (issue 25), base units as numbers or decimal strings. */
function applySandbox(key: string, raw: Obj): SandboxNetworkConfig {
  rejectUnknown(key, raw, ["minDeposit", "defaultMinDeposit"]);
  const minimum = (k: string, v: unknown): bigint => {
    const n = lamports(k, v);
    if (n < 1n || n > 18_446_744_073_709_551_615n) throw new ConfigError(k, "must be at least 1 and fit a u64 (base units)");
    return n;
  };
  const out: SandboxNetworkConfig = { minDeposit: {}, defaultMinDeposit: 1n };
  for (const [mint, v] of Object.entries(section(`${key}.minDeposit`, raw.minDeposit))) {
    pubkey(`${key}.minDeposit.${mint}`, mint);
    out.minDeposit[mint] = minimum(`${key}.minDeposit.${mint}`, v);
  }
  if (raw.defaultMinDeposit !== undefined) out.defaultMinDeposit = minimum(`${key}.defaultMinDeposit`, raw.defaultMinDeposit);
  return out;
}

/** An RPC endpoint: the scheme must fit (http(s) for JSON-RPC, ws(s) for subscriptions). */
function rpcUrl(key: string, v: unknown, schemes: readonly string[]): string | null {
  const s = url(key, v);
  if (s !== null && !schemes.includes(new URL(s).protocol)) throw new ConfigError(key, `must be a ${schemes.join(" or ")} URL`);
  return s;
}

function applySolana(key: string, base: SolanaNetworkConfig, raw: Obj): SolanaNetworkConfig {
  rejectUnknown(key, raw, [
    "commitment",
    "relayerKeypairPath",
    "computeUnitMargin",
    "priorityFeePercentile",
    "maxPriorityMicroLamports",
    "revertPriorityLamports",
    "maxAttempts",
    "rebroadcastMs",
    "rpcTimeoutMs",
    "rpcProbeMs",
    "maxSlotLag",
    "minFeePayerLamports",
    "maxIndexerLagSec",
    "pollMs",
    "programWatchMs",
    "lamportsPerUnit",
    "allowLoss",
    "lookupTables",
  ]);
  const out = { ...base };
  if (raw.commitment !== undefined) {
    if (raw.commitment !== "processed" && raw.commitment !== "confirmed" && raw.commitment !== "finalized") {
      throw new ConfigError(`${key}.commitment`, `must be "processed", "confirmed" or "finalized"`);
    }
    out.commitment = raw.commitment;
  }
  if (raw.relayerKeypairPath !== undefined)
    out.relayerKeypairPath = raw.relayerKeypairPath === null ? null : path.resolve(str(`${key}.relayerKeypairPath`, raw.relayerKeypairPath));
  if (raw.computeUnitMargin !== undefined) {
    const m = raw.computeUnitMargin;
    if (typeof m !== "number" || !(m >= 1 && m <= 4)) throw new ConfigError(`${key}.computeUnitMargin`, "must be a number from 1 to 4");
    out.computeUnitMargin = m;
  }
  if (raw.priorityFeePercentile !== undefined) out.priorityFeePercentile = int(`${key}.priorityFeePercentile`, raw.priorityFeePercentile, 0, 100);
  if (raw.maxPriorityMicroLamports !== undefined)
    out.maxPriorityMicroLamports = int(`${key}.maxPriorityMicroLamports`, raw.maxPriorityMicroLamports, 0, 1_000_000_000);
  if (raw.revertPriorityLamports !== undefined) out.revertPriorityLamports = int(`${key}.revertPriorityLamports`, raw.revertPriorityLamports, 0, 1_000_000_000);
  if (raw.maxAttempts !== undefined) out.maxAttempts = int(`${key}.maxAttempts`, raw.maxAttempts, 1, 20);
  if (raw.rebroadcastMs !== undefined) out.rebroadcastMs = int(`${key}.rebroadcastMs`, raw.rebroadcastMs, 50, 60_000);
  if (raw.rpcTimeoutMs !== undefined) out.rpcTimeoutMs = int(`${key}.rpcTimeoutMs`, raw.rpcTimeoutMs, 100, 120_000);
  if (raw.rpcProbeMs !== undefined) out.rpcProbeMs = int(`${key}.rpcProbeMs`, raw.rpcProbeMs, 100, 600_000);
  if (raw.maxSlotLag !== undefined) out.maxSlotLag = int(`${key}.maxSlotLag`, raw.maxSlotLag, 1, 1_000_000);
  if (raw.minFeePayerLamports !== undefined) out.minFeePayerLamports = lamports(`${key}.minFeePayerLamports`, raw.minFeePayerLamports);
  if (raw.maxIndexerLagSec !== undefined) out.maxIndexerLagSec = int(`${key}.maxIndexerLagSec`, raw.maxIndexerLagSec, 1, 86_400);
  if (raw.pollMs !== undefined) out.pollMs = int(`${key}.pollMs`, raw.pollMs, 50, 600_000);
  if (raw.programWatchMs !== undefined) out.programWatchMs = int(`${key}.programWatchMs`, raw.programWatchMs, 50, 600_000);
  for (const [mint, price] of Object.entries(section(`${key}.lamportsPerUnit`, raw.lamportsPerUnit))) {
    pubkey(`${key}.lamportsPerUnit.${mint}`, mint);
    if (typeof price !== "string" || !/^(0|[1-9][0-9]{0,17})(\.[0-9]{1,18})?$/.test(price)) {
      throw new ConfigError(`${key}.lamportsPerUnit.${mint}`, `must be a decimal string (lamports per base unit), got ${JSON.stringify(price)}`);
    }
    out.lamportsPerUnit = { ...out.lamportsPerUnit, [mint]: price };
  }
  if (raw.allowLoss !== undefined) out.allowLoss = bool(`${key}.allowLoss`, raw.allowLoss);
  if (raw.lookupTables !== undefined) {
    if (!Array.isArray(raw.lookupTables)) throw new ConfigError(`${key}.lookupTables`, "must be a list of address lookup table addresses");
    out.lookupTables = raw.lookupTables.map((t, i) => pubkey(`${key}.lookupTables[${i}]`, t));
    if (new Set(out.lookupTables).size !== out.lookupTables.length) throw new ConfigError(`${key}.lookupTables`, "lists the same table twice");
  }
  return out;
}

function lamports(key: string, v: unknown): bigint {
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === "string" && /^[0-9]{1,20}$/.test(v)) return BigInt(v);
  throw new ConfigError(key, "must be a non-negative integer number of lamports (number or decimal string)");
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
 * The one place configuration is read: defaults, then the RELAY_CONFIG file,
 * then RELAY_* variables. Validated once; the result is frozen.
 */
export function loadConfig(env: NodeJS.ProcessEnv, opts: { defaultDataDir?: string; resourcesDir?: string } = {}): RelayConfig {
  // Bundled builds (Electron) pass their resources folder; headless runs from the repository.
  const cfg = defaultConfig(path.resolve(opts.defaultDataDir ?? "data"), path.resolve(opts.resourcesDir ?? REPO_RESOURCES));

  let file: Obj = {};
  if (env.RELAY_CONFIG) {
    let text: string;
    try {
      text = readFileSync(env.RELAY_CONFIG, "utf8");
    } catch (e) {
      throw new ConfigError("RELAY_CONFIG", `cannot read ${env.RELAY_CONFIG}: ${(e as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw new ConfigError("RELAY_CONFIG", `${env.RELAY_CONFIG} is not valid JSON: ${(e as Error).message}`);
    }
    if (!isObj(parsed)) throw new ConfigError("RELAY_CONFIG", "the file must hold a JSON object");
    file = parsed;
  }

  rejectUnknown("", file, [
    "host",
    "port",
    "dataDir",
    "operatorToken",
    "networks",
    "auth",
    "rateLimits",
    "http",
    "storage",
    "fees",
    "verifier",
    "sanctions",
    "console",
    "swap",
    "jupiter",
    "reverts",
    "compliance",
    "metrics",
    "alerts",
    "logs",
  ]);
  if (file.host !== undefined) cfg.host = str("host", file.host);
  if (file.port !== undefined) cfg.port = int("port", file.port, 0, 65535);
  if (file.dataDir !== undefined) cfg.dataDir = path.resolve(str("dataDir", file.dataDir));
  if (file.operatorToken !== undefined) cfg.operatorToken = operatorToken("operatorToken", file.operatorToken);

  const networks = section("networks", file.networks);
  rejectUnknown("networks", networks, NETWORKS);
  for (const n of NETWORKS) cfg.networks[n] = applyNetwork(`networks.${n}`, cfg.networks[n], section(`networks.${n}`, networks[n]));

  const auth = section("auth", file.auth);
  rejectUnknown("auth", auth, ["tokenTtlSec", "loginMaxAgeSec", "loginMaxFutureSec", "requireRelayAuth"]);
  if (auth.tokenTtlSec !== undefined) cfg.auth.tokenTtlSec = int("auth.tokenTtlSec", auth.tokenTtlSec, 1, 365 * 86400);
  if (auth.loginMaxAgeSec !== undefined) cfg.auth.loginMaxAgeSec = int("auth.loginMaxAgeSec", auth.loginMaxAgeSec, 1, 86400);
  if (auth.loginMaxFutureSec !== undefined) cfg.auth.loginMaxFutureSec = int("auth.loginMaxFutureSec", auth.loginMaxFutureSec, 0, 3600);
  if (auth.requireRelayAuth !== undefined) cfg.auth.requireRelayAuth = bool("auth.requireRelayAuth", auth.requireRelayAuth);

  const rl = section("rateLimits", file.rateLimits);
  rejectUnknown("rateLimits", rl, [
    "enabled",
    "windowSec",
    "perEndpoint",
    "verificationsPerIp",
    "tokensPerIpPerHour",
    "liveTokensPerWallet",
    "ipv6Per48Multiple",
  ]);
  if (rl.ipv6Per48Multiple !== undefined) cfg.rateLimits.ipv6Per48Multiple = int("rateLimits.ipv6Per48Multiple", rl.ipv6Per48Multiple, 1, 65_536);
  if (rl.verificationsPerIp !== undefined) cfg.rateLimits.verificationsPerIp = int("rateLimits.verificationsPerIp", rl.verificationsPerIp, 1, 10_000);
  if (rl.tokensPerIpPerHour !== undefined) cfg.rateLimits.tokensPerIpPerHour = int("rateLimits.tokensPerIpPerHour", rl.tokensPerIpPerHour, 1, 1_000_000);
  if (rl.liveTokensPerWallet !== undefined) cfg.rateLimits.liveTokensPerWallet = int("rateLimits.liveTokensPerWallet", rl.liveTokensPerWallet, 1, 100_000);
  if (rl.enabled !== undefined) cfg.rateLimits.enabled = bool("rateLimits.enabled", rl.enabled);
  if (rl.windowSec !== undefined) cfg.rateLimits.windowSec = int("rateLimits.windowSec", rl.windowSec, 1, 3600);
  const per = section("rateLimits.perEndpoint", rl.perEndpoint);
  rejectUnknown("rateLimits.perEndpoint", per, RATE_LIMITED_ENDPOINTS);
  for (const e of RATE_LIMITED_ENDPOINTS) {
    if (per[e] !== undefined) cfg.rateLimits.perEndpoint[e] = int(`rateLimits.perEndpoint.${e}`, per[e], 1, 1_000_000);
  }

  const http = section("http", file.http);
  rejectUnknown("http", http, [
    "bodyLimitBytes",
    "trustProxy",
    "publicHostnames",
    "allowedOrigins",
    "headersTimeoutMs",
    "requestTimeoutMs",
    "keepAliveTimeoutMs",
    "maxConnectionsPerIp",
  ]);
  if (http.headersTimeoutMs !== undefined) cfg.http.headersTimeoutMs = int("http.headersTimeoutMs", http.headersTimeoutMs, 100, 600_000);
  if (http.requestTimeoutMs !== undefined) cfg.http.requestTimeoutMs = int("http.requestTimeoutMs", http.requestTimeoutMs, 100, 3_600_000);
  if (http.keepAliveTimeoutMs !== undefined) cfg.http.keepAliveTimeoutMs = int("http.keepAliveTimeoutMs", http.keepAliveTimeoutMs, 100, 600_000);
  if (http.maxConnectionsPerIp !== undefined) cfg.http.maxConnectionsPerIp = int("http.maxConnectionsPerIp", http.maxConnectionsPerIp, 0, 1_000_000);
  if (cfg.http.headersTimeoutMs > cfg.http.requestTimeoutMs)
    throw new ConfigError("http.headersTimeoutMs", `must not exceed http.requestTimeoutMs (${cfg.http.requestTimeoutMs})`);
  if (http.bodyLimitBytes !== undefined) cfg.http.bodyLimitBytes = int("http.bodyLimitBytes", http.bodyLimitBytes, 1024, 10 * 1024 * 1024);
  if (http.trustProxy !== undefined) cfg.http.trustProxy = trustProxy("http.trustProxy", http.trustProxy);
  if (http.publicHostnames !== undefined) cfg.http.publicHostnames = publicHostnames("http.publicHostnames", http.publicHostnames);
  if (http.allowedOrigins !== undefined) cfg.http.allowedOrigins = allowedOrigins("http.allowedOrigins", http.allowedOrigins);

  const storage = section("storage", file.storage);
  rejectUnknown("storage", storage, ["snapshotIntervalSec", "snapshotJournalMiB"]);
  if (storage.snapshotIntervalSec !== undefined) cfg.storage.snapshotIntervalSec = int("storage.snapshotIntervalSec", storage.snapshotIntervalSec, 0, 86400);
  if (storage.snapshotJournalMiB !== undefined) cfg.storage.snapshotJournalMiB = int("storage.snapshotJournalMiB", storage.snapshotJournalMiB, 1, 4096);

  const fees = section("fees", file.fees);
  rejectUnknown("fees", fees, ["default", "pools", "graceSec"]);
  if (fees.default !== undefined) cfg.fees.default = feeSetting("fees.default", fees.default);
  if (fees.graceSec !== undefined) cfg.fees.graceSec = int("fees.graceSec", fees.graceSec, 0, 86400);
  const feePools = section("fees.pools", fees.pools);
  rejectUnknown("fees.pools", feePools, NETWORKS);
  for (const n of NETWORKS) {
    const perMint = section(`fees.pools.${n}`, feePools[n]);
    for (const [mint, setting] of Object.entries(perMint)) {
      pubkey(`fees.pools.${n}.${mint}`, mint);
      cfg.fees.pools[n][mint] = feeSetting(`fees.pools.${n}.${mint}`, setting);
    }
  }

  const consoleSection = section("console", file.console);
  rejectUnknown("console", consoleSection, ["retentionDays"]);
  if (consoleSection.retentionDays !== undefined) cfg.console.retentionDays = int("console.retentionDays", consoleSection.retentionDays, 1, 3650);

  const reverts = section("reverts", file.reverts);
  rejectUnknown("reverts", reverts, ["perDepositorPerDay"]);
  if (reverts.perDepositorPerDay !== undefined) cfg.reverts.perDepositorPerDay = int("reverts.perDepositorPerDay", reverts.perDepositorPerDay, 1, 1_000_000);

  const compliance = section("compliance", file.compliance);
  rejectUnknown("compliance", compliance, ["auditLog"]);
  if (compliance.auditLog !== undefined) cfg.compliance.auditLog = bool("compliance.auditLog", compliance.auditLog);

  const verifier = section("verifier", file.verifier);
  rejectUnknown("verifier", verifier, ["vkeyPath", "threads", "maxQueue", "minContributions"]);
  if (verifier.minContributions !== undefined) cfg.verifier.minContributions = int("verifier.minContributions", verifier.minContributions, 1, 100_000);
  if (verifier.maxQueue !== undefined) cfg.verifier.maxQueue = int("verifier.maxQueue", verifier.maxQueue, 0, 1_000_000);
  if (verifier.vkeyPath !== undefined) cfg.verifier.vkeyPath = path.resolve(str("verifier.vkeyPath", verifier.vkeyPath));
  if (verifier.threads !== undefined) cfg.verifier.threads = int("verifier.threads", verifier.threads, 0, 64);

  const sanctions = section("sanctions", file.sanctions);
  rejectUnknown("sanctions", sanctions, ["file", "url", "refreshIntervalSec", "filePollSec", "fetchTimeoutSec"]);
  if (sanctions.file !== undefined) cfg.sanctions.file = path.resolve(str("sanctions.file", sanctions.file));
  if (sanctions.url !== undefined) cfg.sanctions.url = sanctions.url === null ? null : listUrl("sanctions.url", sanctions.url);
  if (sanctions.refreshIntervalSec !== undefined)
    cfg.sanctions.refreshIntervalSec = int("sanctions.refreshIntervalSec", sanctions.refreshIntervalSec, 1, 7 * 86400);
  if (sanctions.filePollSec !== undefined) cfg.sanctions.filePollSec = int("sanctions.filePollSec", sanctions.filePollSec, 1, 3600);
  if (sanctions.fetchTimeoutSec !== undefined) cfg.sanctions.fetchTimeoutSec = int("sanctions.fetchTimeoutSec", sanctions.fetchTimeoutSec, 1, 300);

  const swap = section("swap", file.swap);
  rejectUnknown("swap", swap, ["stablecoins", "defaultClass", "pairs"]);
  if (swap.stablecoins !== undefined) {
    if (!Array.isArray(swap.stablecoins)) throw new ConfigError("swap.stablecoins", "must be an array of mint addresses");
    cfg.swap.stablecoins = swap.stablecoins.map((m, i) => pubkey(`swap.stablecoins[${i}]`, m));
  }
  if (swap.defaultClass !== undefined) {
    if (!isSlippageClass(swap.defaultClass)) throw new ConfigError("swap.defaultClass", `must be one of ${SLIPPAGE_CLASSES.join(", ")}`);
    cfg.swap.defaultClass = swap.defaultClass;
  }
  for (const [pair, setting] of Object.entries(section("swap.pairs", swap.pairs))) {
    const key = `swap.pairs.${pair}`;
    const mints = pair.split("/");
    if (mints.length !== 2) throw new ConfigError(key, `must be named "<mintA>/<mintB>"`);
    const [a, b] = [pubkey(key, mints[0]), pubkey(key, mints[1])];
    if (a === b) throw new ConfigError(key, "names the same mint twice");
    if (cfg.swap.pairs[pairKey(a, b)]) throw new ConfigError(key, "is set twice (a pair is the same in either order)");
    cfg.swap.pairs[pairKey(a, b)] = pairSlippageSetting(key, setting);
  }

  const jupiter = section("jupiter", file.jupiter);
  rejectUnknown("jupiter", jupiter, ["baseUrl", "apiKey", "timeoutMs", "restrictIntermediateTokens", "programIds"]);
  if (jupiter.baseUrl !== undefined) cfg.jupiter.baseUrl = listUrl("jupiter.baseUrl", jupiter.baseUrl);
  if (jupiter.apiKey !== undefined) cfg.jupiter.apiKey = apiKey("jupiter.apiKey", jupiter.apiKey);
  if (jupiter.timeoutMs !== undefined) cfg.jupiter.timeoutMs = int("jupiter.timeoutMs", jupiter.timeoutMs, 100, 120_000);
  if (jupiter.restrictIntermediateTokens !== undefined)
    cfg.jupiter.restrictIntermediateTokens = bool("jupiter.restrictIntermediateTokens", jupiter.restrictIntermediateTokens);
  if (jupiter.programIds !== undefined) {
    if (!Array.isArray(jupiter.programIds) || jupiter.programIds.length === 0)
      throw new ConfigError("jupiter.programIds", "must be a non-empty list of program ids");
    cfg.jupiter.programIds = jupiter.programIds.map((id, i) => pubkey(`jupiter.programIds[${i}]`, id));
  }

  // Environment wins over the file.
  if (env.RELAY_HOST !== undefined) cfg.host = str("RELAY_HOST", env.RELAY_HOST);
  if (env.RELAY_PORT !== undefined) cfg.port = int("RELAY_PORT", env.RELAY_PORT, 0, 65535);
  if (env.RELAY_DATA_DIR !== undefined) cfg.dataDir = path.resolve(str("RELAY_DATA_DIR", env.RELAY_DATA_DIR));
  if (env.RELAY_OPERATOR_TOKEN !== undefined) cfg.operatorToken = operatorToken("RELAY_OPERATOR_TOKEN", env.RELAY_OPERATOR_TOKEN);
  if (env.RELAY_RATE_LIMITS !== undefined) cfg.rateLimits.enabled = bool("RELAY_RATE_LIMITS", env.RELAY_RATE_LIMITS);
  if (env.RELAY_REQUIRE_RELAY_AUTH !== undefined) cfg.auth.requireRelayAuth = bool("RELAY_REQUIRE_RELAY_AUTH", env.RELAY_REQUIRE_RELAY_AUTH);
  if (env.RELAY_SANCTIONS_FILE !== undefined) cfg.sanctions.file = path.resolve(str("RELAY_SANCTIONS_FILE", env.RELAY_SANCTIONS_FILE));
  if (env.RELAY_SANCTIONS_URL !== undefined)
    cfg.sanctions.url = env.RELAY_SANCTIONS_URL === "" ? null : listUrl("RELAY_SANCTIONS_URL", env.RELAY_SANCTIONS_URL);
  if (env.RELAY_JUPITER_URL !== undefined) cfg.jupiter.baseUrl = listUrl("RELAY_JUPITER_URL", env.RELAY_JUPITER_URL);
  if (env.RELAY_JUPITER_API_KEY !== undefined) cfg.jupiter.apiKey = apiKey("RELAY_JUPITER_API_KEY", env.RELAY_JUPITER_API_KEY);
  if (env.RELAY_PROGRAM_ID !== undefined) {
    const id = pubkey("RELAY_PROGRAM_ID", env.RELAY_PROGRAM_ID);
    for (const n of NETWORKS) cfg.networks[n].programId = id;
  }
  if (env.RELAY_ALLOWED_ORIGINS !== undefined)
    cfg.http.allowedOrigins = allowedOrigins(
      "RELAY_ALLOWED_ORIGINS",
      env.RELAY_ALLOWED_ORIGINS.split(",")
        .map((o) => o.trim())
        .filter((o) => o !== ""),
    );
  applyOpsConfig(cfg, file, (key, problem) => {
    throw new ConfigError(key, problem);
  });
  if (env.RELAY_METRICS_HOST !== undefined) cfg.metrics.host = str("RELAY_METRICS_HOST", env.RELAY_METRICS_HOST);
  if (env.RELAY_METRICS_PORT !== undefined) {
    cfg.metrics.port = env.RELAY_METRICS_PORT === "off" ? null : int("RELAY_METRICS_PORT", env.RELAY_METRICS_PORT, 0, 65535);
    cfg.metrics.portConfigured = true;
  }
  checkSolanaNetworks(cfg);
  return Object.freeze(cfg);
}

/** The configuration as an operator may see it: secrets reduced to whether they are set. */
export function describeConfig(cfg: RelayConfig): string {
  const nets = NETWORKS.map((n) => {
    const c = cfg.networks[n];
    const rpc = c.enabled && c.backend === "solana" && c.rpcUrls.length ? ` rpc=${c.rpcUrls.map(redactUrl).join(",")} commitment=${c.solana.commitment}` : "";
    return `${n}=${c.enabled ? c.backend : "disabled"} program=${c.programId} pools=${c.pools.length}${rpc}`;
  }).join("; ");
  const limits = cfg.rateLimits.enabled
    ? Object.entries(cfg.rateLimits.perEndpoint)
        .map(([k, v]) => `${k}:${v}`)
        .join(",") + `/${cfg.rateLimits.windowSec}s`
    : "off";
  return [
    `config: host=${cfg.host} port=${cfg.port} dataDir=${cfg.dataDir}`,
    `config: networks: ${nets}`,
    `config: auth: tokenTtl=${cfg.auth.tokenTtlSec}s loginWindow=-${cfg.auth.loginMaxAgeSec}s/+${cfg.auth.loginMaxFutureSec}s relayAuth=${cfg.auth.requireRelayAuth ? "on" : "off"}`,
    `config: rateLimits: ${limits}${cfg.rateLimits.enabled ? `; per address: ${cfg.rateLimits.tokensPerIpPerHour} tokens/h, ${cfg.rateLimits.verificationsPerIp} proofs in the verifier; ${cfg.rateLimits.liveTokensPerWallet} live tokens per wallet` : ""}`,
    `config: http: trustProxy=${JSON.stringify(cfg.http.trustProxy)} maxConnectionsPerIp=${cfg.rateLimits.enabled && cfg.http.maxConnectionsPerIp > 0 ? cfg.http.maxConnectionsPerIp : "off"} timeouts headers=${cfg.http.headersTimeoutMs}ms request=${cfg.http.requestTimeoutMs}ms keepAlive=${cfg.http.keepAliveTimeoutMs}ms; verifier queue ${cfg.verifier.maxQueue}; origins answered: own${cfg.http.allowedOrigins.map((o) => `, ${o}`).join("")}`,
    `config: fees: default ${cfg.fees.default.bps} bps, floor ${cfg.fees.default.floor}; ${NETWORKS.map((n) => `${n} overrides ${Object.keys(cfg.fees.pools[n]).length}`).join(", ")}`,
    `config: sanctions list: ${cfg.sanctions.url ? `${redactUrl(cfg.sanctions.url)} every ${cfg.sanctions.refreshIntervalSec}s` : `${cfg.sanctions.file} (checked every ${cfg.sanctions.filePollSec}s)`}`,
    `config: swap: slippage ${cfg.swap.defaultClass} by default, ${cfg.swap.stablecoins.length} stablecoins, ${Object.keys(cfg.swap.pairs).length} pair settings; jupiter ${redactUrl(cfg.jupiter.baseUrl)} (api key ${cfg.jupiter.apiKey ? "set, hidden" : "not set"})`,
    `config: metrics: ${cfg.metrics.enabled ? `${cfg.metrics.port === null ? "no listener" : `listener ${cfg.metrics.host}:${cfg.metrics.port === 0 ? "(a free port)" : cfg.metrics.port} (no token)`}, /metrics on the main port with the operator token` : "off"}; alerts: ${cfg.alerts.enabled ? `on, webhook ${cfg.alerts.webhook.url ? `${redactUrl(cfg.alerts.webhook.url)} (${cfg.alerts.webhook.format})` : "not set"}` : "off"}; logs: JSON to stdout${cfg.logs.file ? ` and ${path.join(cfg.dataDir, "logs", "relay.log")}` : ""}, client IPs ${cfg.logs.clientIps ? "logged" : "not logged"}`,
    `config: operatorToken: ${cfg.operatorToken ? "set (hidden)" : "not set"}`,
  ].join("\n");
}
