/**
 * Every config key, declared once: how its value is checked, its default, the RELAY_* variable
 * that sets it and a line for the docs. loadConfig, the defaults, the unknown-key checks, the
 * variables and the docs tables (README.md "Running it", docs/operations.md "Configuration keys")
 * all come from this table; schema.ts holds the types it is checked against.
 */
import path from "node:path";
import { NETWORKS, type Network } from "../../src-shared/networks";
import { isSlippageClass, pairKey, SLIPPAGE_CLASSES, type PairSlippage, type SlippageClass } from "../core/swap/slippage";
import { checkListUrl } from "../core/compliance/sanctions";
import { ConfigError } from "./config-error";
import { DEFAULT_PROGRAM_ID, WRAPPED_SOL_MINT } from "./constants";
import {
  allowedOrigins,
  apiKey,
  bool,
  feeSetting,
  filePath,
  int,
  lamports,
  lamportsPerUnit,
  listUrl,
  minimumDeposit,
  num,
  oneOf,
  operatorToken,
  pairSlippageSetting,
  perMint,
  postgresUrl,
  publicHostnames,
  pubkey,
  pubkeys,
  rpcUrl,
  rpcUrls,
  section,
  str,
  strictBool,
  trustProxy,
} from "./decoders";
import { ABSENT, group, setting, type Setting } from "./declare";
import type {
  AlertRuleThresholds,
  AlertsConfig,
  FeeSetting,
  FeesConfig,
  JupiterConfig,
  LogsConfig,
  MetricsConfig,
  NetworkConfig,
  RateLimitConfig,
  RateLimitedEndpoint,
  RelayConfig,
  SandboxNetworkConfig,
  SolanaNetworkConfig,
  SwapConfig,
} from "./types";

const intIn =
  (min: number, max: number) =>
  (key: string, v: unknown): number =>
    int(key, v, min, max);
const numIn =
  (min: number, max: number) =>
  (key: string, v: unknown): number =>
    num(key, v, min, max);
const orNull =
  <V>(decode: (key: string, v: unknown) => V) =>
  (key: string, v: unknown): V | null =>
    v === null ? null : decode(key, v);
const HTTP = ["http:", "https:"] as const;
const WS = ["ws:", "wss:"] as const;
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const USDT = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB";

const SOLANA = group<SolanaNetworkConfig>({
  commitment: setting(oneOf(["processed", "confirmed", "finalized"], false), "confirmed", "Commitment of reads and confirmations."),
  relayerKeypairPath: setting(
    orNull(filePath),
    null,
    "Solana CLI keypair file (JSON array of 64 bytes) of the fee payer; none: the relay's own key in the data dir.",
  ),
  computeUnitMargin: setting(
    (key, v) => {
      if (typeof v !== "number" || !(v >= 1 && v <= 4)) throw new ConfigError(key, "must be a number from 1 to 4");
      return v;
    },
    1.2,
    "Compute-unit limit = simulated units × this margin (1 to 4).",
  ),
  priorityFeePercentile: setting(intIn(0, 100), 75, "Percentile of getRecentPrioritizationFees over the touched accounts used as the compute-unit price."),
  maxPriorityMicroLamports: setting(intIn(0, 1_000_000_000), 1_000_000, "Hard cap of the compute-unit price, micro-lamports."),
  revertPriorityLamports: setting(intIn(0, 1_000_000_000), 10_000, "The most a revert's priority fee may cost, lamports (a revert earns no fee)."),
  maxAttempts: setting(intIn(1, 20), 3, "Fresh-blockhash attempts before a submission is given up as expired."),
  rebroadcastMs: setting(intIn(50, 60_000), 2000, "Rebroadcast interval of a signed transaction until it lands or its blockhash expires."),
  rpcTimeoutMs: setting(intIn(100, 120_000), 10_000, "Time-out of one RPC request."),
  rpcProbeMs: setting(intIn(100, 600_000), 5000, "How often every RPC endpoint is probed (getSlot) for health, latency and slot lag."),
  maxSlotLag: setting(intIn(1, 1_000_000), 150, "Health: the node must be within this many slots of the cluster."),
  minFeePayerLamports: setting(lamports, 10_000_000n, "Health: a fee-payer balance below this (lamports) is red.", { shownDefault: "`10000000`" }),
  maxIndexerLagSec: setting(intIn(1, 86_400), 120, "Health: seconds deposits seen on chain may wait for the tree, per pool, before /health turns red."),
  pollMs: setting(intIn(50, 600_000), 2000, "Live follow: poll interval when no websocket notification arrives."),
  programWatchMs: setting(intIn(50, 600_000), 5000, "How often the pool program's ProgramData header is read to catch an upgrade."),
  lamportsPerUnit: setting(
    perMint(lamportsPerUnit),
    { [WRAPPED_SOL_MINT]: "1" },
    "Per mint: price of one base unit in lamports (decimal string), to keep network cost under the fee.",
    {
      shownDefault: "wrapped SOL: `1`",
    },
  ),
  allowLoss: setting(bool, false, "Relay even when the network cost exceeds the fee (or the mint has no price)."),
  lookupTables: setting(
    pubkeys("a list of address lookup table addresses", { unique: "table" }),
    [],
    "The relay's own address lookup tables (`npm run pool:lookup-table`); each must be active at start (docs/solana.md).",
  ),
});

const SANDBOX = group<SandboxNetworkConfig>({
  minDeposit: setting(perMint(minimumDeposit), {}, "Per mint: the least a sandbox deposit must bring, base units (at least 1)."),
  defaultMinDeposit: setting(minimumDeposit, 1n, "The minimum of a mint not in `minDeposit`.", { shownDefault: "`1`" }),
});

const NETWORK = group<NetworkConfig>(
  {
    enabled: setting(bool, true, "Serve this network."),
    backend: setting(oneOf(["sandbox", "solana"]), "sandbox", "`sandbox` (in-process chain) or `solana` (a cluster over RPC, docs/solana.md)."),
    programId: setting(pubkey, DEFAULT_PROGRAM_ID, "Program id the tree and nullifier PDAs derive from (the variable sets both networks).", {
      env: { name: "RELAY_PROGRAM_ID" },
      shownDefault: "sandbox id",
    }),
    pools: setting(pubkeys("an array of mint addresses"), [WRAPPED_SOL_MINT, USDC], "Pools (mints) opened at start.", { shownDefault: "wrapped SOL, USDC" }),
    rpcUrl: setting((key, v) => rpcUrl(key, v, HTTP), null, "The cluster's JSON-RPC endpoint (one; or `rpcUrls`)."),
    rpcUrls: setting(rpcUrls, [], "JSON-RPC endpoints in order of preference, with failover; the first is `rpcUrl`."),
    wsUrl: setting((key, v) => rpcUrl(key, v, WS), null, "Websocket endpoint for subscriptions."),
    solana: SOLANA,
    allowDevelopmentVerifyingKey: setting<boolean | undefined>(
      bool,
      ABSENT,
      "Let a `solana` network start on the development verifying key (test clusters only).",
      {
        shownDefault: "`false`",
      },
    ),
    production: setting<boolean | undefined>(bool, ABSENT, "A network with real funds: the program's upgrade authority must be none or trusted.", {
      shownDefault: "`false`",
    }),
    trustedUpgradeAuthorities: setting<string[] | undefined>(
      pubkeys("an array of base58 public keys"),
      ABSENT,
      "Upgrade authorities a `production` network accepts.",
      {
        shownDefault: "`[]`",
      },
    ),
    sandbox: { kind: "optional", section: SANDBOX, doc: "A sandbox network's pool minimums (issue 25)." },
  },
  {
    before: (key, raw) => {
      if (raw.rpcUrl !== undefined && raw.rpcUrls !== undefined)
        throw new ConfigError(`${key}.rpcUrls`, "and rpcUrl are both set: list every endpoint in rpcUrls");
    },
    after: (_key, out, given) => {
      if (given.rpcUrl !== undefined) out.rpcUrls = out.rpcUrl ? [out.rpcUrl] : [];
      if (given.rpcUrls !== undefined) out.rpcUrl = out.rpcUrls[0]!;
    },
  },
);

const perEndpoint = (n: number, doc = "Requests per window.") => setting(intIn(1, 1_000_000), n, doc);

/** The spec's limit table is the default; the endpoints it leaves out are ours to set (DESIGN). */
const PER_ENDPOINT = group<Record<RateLimitedEndpoint, number>>({
  get_merkle: perEndpoint(60),
  get_proof: perEndpoint(60),
  get_node: perEndpoint(120),
  get_nullifier: perEndpoint(60),
  relay: perEndpoint(10),
  relay_swap: perEndpoint(10),
  revert: perEndpoint(5),
  login: perEndpoint(30),
  is_logged: perEndpoint(120),
  get_leaves: perEndpoint(60, "Requests per window (a wallet reads a pool's whole leaf list, 10,000 a page, before withdrawing without --rpc)."),
  get_ofac_signature: perEndpoint(30),
  jupiter: perEndpoint(60),
  sandbox: perEndpoint(120),
});

const RATE_LIMITS = group<RateLimitConfig>({
  enabled: setting(
    bool,
    true,
    "`off` turns off every per-client count: the per-endpoint limits, the token caps, the per-address verification cap and the connection cap (benchmarks, trusted networks; docs/security.md).",
    { env: { name: "RELAY_RATE_LIMITS" }, shownDefault: "`on`" },
  ),
  windowSec: setting(intIn(1, 3600), 60, "Length of the rate-limit window."),
  perEndpoint: PER_ENDPOINT,
  verificationsPerIp: setting(intIn(1, 10_000), 4, "Proofs one client address may have in the verifier at once (429 beyond)."),
  tokensPerIpPerHour: setting(intIn(1, 1_000_000), 120, "Tokens /login issues per client address per hour."),
  liveTokensPerWallet: setting(intIn(1, 100_000), 20, "Tokens a wallet may hold at once."),
  ipv6Per48Multiple: setting(intIn(1, 65_536), 8, "An IPv6 /48 may make this many times each per-client limit."),
});

const HTTP_SECTION = group<RelayConfig["http"]>(
  {
    bodyLimitBytes: setting(intIn(1024, 10 * 1024 * 1024), 32 * 1024, "Largest request body."),
    trustProxy: setting(
      trustProxy,
      false,
      "Whose X-Forwarded-For names the client: false, a number of proxies, or their addresses and CIDR ranges; `true` is refused.",
    ),
    publicHostnames: setting(publicHostnames, [], 'Host names a loopback-bound relay answers besides localhost (docs/security.md, "Loopback safety").'),
    allowedOrigins: setting(
      allowedOrigins,
      [],
      "Origins besides the relay's own whose requests are answered (comma-separated in the variable, e.g. https://relay.example.org).",
      {
        env: {
          name: "RELAY_ALLOWED_ORIGINS",
          parse: (_name, text) =>
            text
              .split(",")
              .map((o) => o.trim())
              .filter((o) => o !== ""),
        },
      },
    ),
    headersTimeoutMs: setting(intIn(100, 600_000), 10_000, "A request's headers must arrive within this many ms."),
    requestTimeoutMs: setting(intIn(100, 3_600_000), 30_000, "A whole request must arrive within this many ms."),
    keepAliveTimeoutMs: setting(intIn(100, 600_000), 10_000, "An idle keep-alive connection is closed after this many ms."),
    maxConnectionsPerIp: setting(intIn(0, 1_000_000), 64, "Open connections per client address (0: no cap)."),
  },
  {
    after: (_key, out) => {
      if (out.headersTimeoutMs > out.requestTimeoutMs)
        throw new ConfigError("http.headersTimeoutMs", `must not exceed http.requestTimeoutMs (${out.requestTimeoutMs})`);
    },
  },
);

const METRICS = group<MetricsConfig>(
  {
    enabled: setting(strictBool, true, "`false`: no `/metrics` anywhere (404 on the main port, no listener)."),
    host: setting(
      (key, v) => {
        if (typeof v !== "string" || v === "") throw new ConfigError(key, `must be a host address, got ${JSON.stringify(v)}`);
        return v;
      },
      "127.0.0.1",
      "The metrics listener's address (it takes no token: loopback or a private interface only).",
      { env: { name: "RELAY_METRICS_HOST", parse: str } },
    ),
    port: setting(
      (key, v) => (v === null || v === false ? null : num(key, v, 0, 65535)),
      9464,
      "The metrics listener's port; 0: a free one; null (`off` in the variable): no listener.",
      {
        env: { name: "RELAY_METRICS_PORT", parse: (name, text) => (text === "off" ? null : int(name, text, 0, 65535)) },
      },
    ),
    portConfigured: { kind: "derived", default: false },
    feePayerSampleSec: setting(numIn(1, 3600), 60, "How often each fee payer's balance is read."),
  },
  {
    retired: {
      // Removed: a stock reverse proxy on the same machine made "loopback" requests public. false is what
      // the main port does now; true would silently mean something else, so it stops the start.
      loopbackWithoutToken: (key, v) => {
        if (strictBool(key, v))
          throw new ConfigError(
            key,
            "true is no longer supported: /metrics on the main port always takes the operator token; a scraper on this machine reads metrics.host:metrics.port (default 127.0.0.1:9464) without one. Remove the setting",
          );
      },
    },
  },
);

/** A threshold that may be null (the rule is off). */
const threshold = (min: number, max: number) => (key: string, v: unknown) => (v === null ? null : num(key, v, min, max, false));
/** A count that qualifies another rule: never null. */
const qualifier = (min: number, max: number) => (key: string, v: unknown) => {
  if (v === null) throw new ConfigError(key, "cannot be null (it qualifies another rule)");
  return num(key, v, min, max);
};

/** The alert rules: read at start and again for each edit in the console's Settings (load-ops.ts). */
export const ALERT_RULES = group<AlertRuleThresholds>({
  feePayerRunwayHours: setting(threshold(0.1, 24 * 365), 24, "Fee payer's runway below this many hours (null: off)."),
  indexerLagSec: setting(threshold(1, 7 * 86_400), 300, "A pool's unindexed deposits older than this many seconds (null: off)."),
  relayFailurePercent: setting(threshold(1, 100), 50, "Failed relays above this percentage of the window's verdicts (null: off)."),
  relayFailureWindowMin: setting(qualifier(1, 24 * 60), 15, "The failure rule's window, minutes."),
  relayFailureMinRelays: setting(qualifier(1, 10_000), 5, "Verdicts the failure rule needs in its window."),
  healthRedMin: setting(threshold(0.1, 24 * 60), 5, "/health red for more than this many minutes (null: off)."),
  sanctionsAgeHours: setting(threshold(1, 24 * 365), 48, "The sanctions list last loaded more than this many hours ago (null: off)."),
  diskFreePercent: setting(threshold(0.1, 99), 5, "The data dir's disk with less than this percentage free (null: off)."),
});

const ALERTS = group<AlertsConfig>({
  enabled: setting(strictBool, true, "Evaluate the alert rules."),
  evaluateSec: setting(numIn(1, 3600), 30, "Seconds between evaluations of the rules."),
  repeatMin: setting(numIn(1, 7 * 24 * 60), 60, "A firing alert is notified again every this many minutes."),
  rules: ALERT_RULES,
  webhook: group({
    url: setting(
      (key, v) => {
        if (v === null) return null;
        if (typeof v !== "string") throw new ConfigError(key, "must be a URL or null");
        const checked = checkListUrl(v);
        if (!checked.ok) throw new ConfigError(key, checked.error);
        return v;
      },
      null,
      "JSON POST target (https; http only on loopback); none: no webhook.",
      { secret: true },
    ),
    format: setting(oneOf(["json", "slack", "discord"]), "json", "Body shape: our JSON, Slack's `text` or Discord's `content`."),
    timeoutMs: setting(numIn(100, 60_000), 5000, "Time-out of one delivery."),
    maxRetries: setting(numIn(0, 20), 5, "Attempts after the first, with exponential back-off."),
  }),
});

const LOGS = group<LogsConfig>({
  file: setting(strictBool, true, "Also write the JSON lines to <dataDir>/logs/relay.log, rotated by size."),
  maxFileMiB: setting(numIn(1, 1024), 10, "Size at which the log file is rotated."),
  maxFiles: setting(numIn(1, 100), 5, "Rotated files kept."),
  clientIps: setting(strictBool, false, "Client addresses in request lines."),
  requests: setting(oneOf(["changes", "all"]), "changes", "Which requests get a line: `changes` (all but successful reads) or `all`."),
});

const FEES = group<FeesConfig>({
  default: setting(feeSetting, { bps: 25, floor: 0n }, "The fee: `{ bps, floor }`, basis points of the deposit and a minimum in base units.", {
    shownDefault: '`{ "bps": 25, "floor": "0" }`',
  }),
  pools: group(
    Object.fromEntries(NETWORKS.map((n) => [n, setting(perMint(feeSetting), {}, "Per mint: a `{ bps, floor }` over the default.")])) as Record<
      Network,
      Setting<Record<string, FeeSetting>>
    >,
    { each: "<n>" },
  ),
  graceSec: setting(intIn(0, 86_400), 120, "After a fee change, the fee it replaced is still accepted this long."),
});

function defaultClass(key: string, v: unknown): SlippageClass {
  if (!isSlippageClass(v)) throw new ConfigError(key, `must be one of ${SLIPPAGE_CLASSES.join(", ")}`);
  return v;
}

/** Pairs are keyed "<mintA>/<mintB>" in either order in the file, sorted once loaded. */
function slippagePairs(_key: string, v: unknown, base: Record<string, PairSlippage>): Record<string, PairSlippage> {
  const out = { ...base };
  for (const [pair, setting_] of Object.entries(section("swap.pairs", v))) {
    const key = `swap.pairs.${pair}`;
    const mints = pair.split("/");
    if (mints.length !== 2) throw new ConfigError(key, `must be named "<mintA>/<mintB>"`);
    const [a, b] = [pubkey(key, mints[0]), pubkey(key, mints[1])];
    if (a === b) throw new ConfigError(key, "names the same mint twice");
    if (out[pairKey(a, b)]) throw new ConfigError(key, "is set twice (a pair is the same in either order)");
    out[pairKey(a, b)] = pairSlippageSetting(key, setting_);
  }
  return out;
}

const SWAP = group<SwapConfig>({
  stablecoins: setting(pubkeys("an array of mint addresses"), [USDC, USDT], "Mints counted as stablecoins (a pair of two is `stable`, 10 bps).", {
    shownDefault: "USDC, USDT",
  }),
  defaultClass: setting(defaultClass, "standard", "Slippage class of every other pair: stable 10, standard 50, volatile 100, lowLiquidity 300 bps."),
  pairs: setting(slippagePairs, {}, 'Per pair, `"<mintA>/<mintB>"`: a class or a number of bps.'),
});

const JUPITER = group<JupiterConfig>({
  baseUrl: setting(listUrl, "https://api.jup.ag/swap/v1", "Jupiter Swap API base, the venue of `solana` networks (https; http only on loopback).", {
    env: { name: "RELAY_JUPITER_URL" },
  }),
  apiKey: setting(apiKey, null, "Sent as `x-api-key`; never printed.", { env: { name: "RELAY_JUPITER_API_KEY" }, secret: true }),
  timeoutMs: setting(intIn(100, 120_000), 10_000, "Time-out of one request."),
  restrictIntermediateTokens: setting(bool, true, "Route only through Jupiter's stable intermediate tokens."),
  programIds: setting(
    pubkeys("a non-empty list of program ids", { nonEmpty: true }),
    ["JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4"],
    'Aggregator programs a route may call (docs/security.md "Swap venue").',
    {
      shownDefault: "Jupiter v6",
    },
  ),
});

/** The whole file. Key order is the order of the loaded config's keys. */
export const RELAY_CONFIG_KEYS = group<RelayConfig>({
  host: setting(str, "127.0.0.1", "Address to listen on.", { env: { name: "RELAY_HOST" } }),
  port: setting(intIn(0, 65535), 8080, "Port; `0` picks a free one (read it from the `listening on` line).", { env: { name: "RELAY_PORT" } }),
  dataDir: setting(filePath, (ctx) => ctx.dataDir, "Store, journal, keys.", { env: { name: "RELAY_DATA_DIR" }, shownDefault: "`./data`" }),
  operatorToken: setting(
    operatorToken,
    null,
    "The console's operator token (at least 24 characters); when unset one is generated on first start and printed once.",
    { env: { name: "RELAY_OPERATOR_TOKEN" }, secret: true, shownDefault: "generated" },
  ),
  networks: group(Object.fromEntries(NETWORKS.map((n) => [n, NETWORK])) as Record<Network, typeof NETWORK>, { each: "<n>" }),
  auth: group({
    tokenTtlSec: setting(intIn(1, 365 * 86400), 24 * 3600, "Lifetime of a login token."),
    loginMaxAgeSec: setting(intIn(1, 86400), 300, "A login message may be this old."),
    loginMaxFutureSec: setting(intIn(0, 3600), 60, "A login message may be this far in the future."),
    requireRelayAuth: setting(bool, true, "Whether /relay and /relay_swap need `x-api-auth`.", {
      env: { name: "RELAY_REQUIRE_RELAY_AUTH" },
      shownDefault: "`on`",
    }),
  }),
  rateLimits: RATE_LIMITS,
  http: HTTP_SECTION,
  storage: group({
    kind: setting(
      oneOf(["sqljs", "postgres"]),
      "sqljs",
      "`sqljs` (the embedded store in the data dir, one instance) or `postgres` (shared by every instance, docs/scale-out.md); RELAY_DATABASE_URL sets `postgres`.",
    ),
    url: setting(orNull(postgresUrl), null, "PostgreSQL connection URL (postgres://user:password@host:port/db) when kind is `postgres`.", {
      env: { name: "RELAY_DATABASE_URL", parse: (_name, text) => (text === "" ? null : text) },
      secret: true,
    }),
    poolSize: setting(intIn(1, 1000), 10, "PostgreSQL connections each instance keeps open at most."),
    snapshotIntervalSec: setting(intIn(0, 86400), 30, "Seconds between snapshots of the database."),
    snapshotJournalMiB: setting(intIn(1, 4096), 64, "A journal this large forces a snapshot."),
  }),
  console: group({ retentionDays: setting(intIn(1, 3650), 30, "Relay records older than this are folded into daily aggregates.") }),
  metrics: METRICS,
  alerts: ALERTS,
  logs: LOGS,
  reverts: group({ perDepositorPerDay: setting(intIn(1, 1_000_000), 3, "Reverts that pay out per depositor in any 24 hours.") }),
  compliance: group({ auditLog: setting(bool, false, "Store every compliance signature issued (off: counted only; refusals are always stored).") }),
  fees: FEES,
  swap: SWAP,
  jupiter: JUPITER,
  verifier: group({
    vkeyPath: setting(filePath, (ctx) => path.join(ctx.resourcesDir, "zk", "verification_key.json"), "Groth16 verifying key file.", {
      shownDefault: "`resources/zk/verification_key.json`",
    }),
    threads: setting(intIn(0, 64), 0, "Verifier worker threads (0: one fewer than the machine's cores, at least 1)."),
    maxQueue: setting(intIn(0, 1_000_000), 1024, "Verifications waiting for a worker in all (503 ServerBusy beyond)."),
    minContributions: setting(intIn(1, 100_000), 3, "Contributors a ceremony key's transcript must hold before a solana network starts on it."),
  }),
  sanctions: group({
    file: setting(
      filePath,
      (ctx) => path.join(ctx.resourcesDir, "sanctions", "sanctioned_addresses_SOL.txt"),
      "Sanctions list file (one address per line with `#` comments, or a JSON array), re-read when it changes.",
      { env: { name: "RELAY_SANCTIONS_FILE" }, shownDefault: "bundled OFAC SOL list" },
    ),
    url: setting(orNull(listUrl), null, "Fetch the list from this https URL instead (http only on loopback); the last good copy is kept.", {
      env: { name: "RELAY_SANCTIONS_URL", parse: (_name, text) => (text === "" ? null : text) },
    }),
    refreshIntervalSec: setting(intIn(1, 7 * 86400), 3600, "Seconds between fetches of `url`."),
    filePollSec: setting(intIn(1, 3600), 2, "Seconds between checks of `file` for a change."),
    fetchTimeoutSec: setting(intIn(1, 300), 15, "Time-out of one fetch of `url`."),
  }),
});
