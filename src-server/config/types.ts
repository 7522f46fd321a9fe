/**
 * The loaded config's types, one interface per section (the keys' declarations in keys.ts
 * are checked against them); schema.ts is what the rest of the relay imports them from.
 */
import type { Network } from "../../src-shared/networks";
import type { PairSlippage, SlippageClass } from "../core/swap/slippage";
import type { RATE_LIMITED_ENDPOINTS } from "./constants";

export type BackendKind = "sandbox" | "solana";

export interface NetworkConfig {
  enabled: boolean;
  backend: BackendKind;
  /** Base58 program id the tree and nullifier PDAs are derived under. */
  programId: string;
  /** Pools (mints) opened at start; the sandbox also opens a pool on its first deposit. */
  pools: string[];
  /** The first of rpcUrls (kept for the places that name one endpoint). */
  rpcUrl: string | null;
  /**
   * JSON-RPC endpoints of the cluster, in order of preference: requests go to
   * the healthiest and fail over to the next (adapters/chain-solana/rpc-failover.ts).
   * The file may give `rpcUrls` (a list) or `rpcUrl` (one).
   */
  rpcUrls: string[];
  /** Websocket endpoint of the first RPC endpoint (subscriptions). */
  wsUrl: string | null;
  /** Settings of a `solana` network (ignored by the sandbox). */
  solana: SolanaNetworkConfig;
  /**
   * A `solana` network refuses to start while the verifier's key is the development key from
   * the published seed (docs/security.md, "Development verifying key"); true lets it start,
   * for a test cluster or the local validator only. Absent: false.
   */
  allowDevelopmentVerifyingKey?: boolean;
  /**
   * A network holding real funds (docs/security.md, "The deployed program"): the relay refuses a
   * pool program whose upgrade authority is neither none nor one of `trustedUpgradeAuthorities`,
   * at start and after an upgrade, because an upgrade it signs for could take the relayer's funds.
   * Absent: false.
   */
  production?: boolean;
  /** Upgrade authorities (base58; a multisig with a timelock) a `production` network accepts. Absent: none. */
  trustedUpgradeAuthorities?: string[];
  /** Settings of a `sandbox` network (a `solana` network's pools keep theirs on chain). Absent: the defaults below. */
  sandbox?: SandboxNetworkConfig;
}

/**
 * The sandbox's pools as the pool program's initialize_pool sets them up
 * (issue 25). A deposit below its pool's minimum is refused: 400
 * InvalidRequest on /sandbox/deposit, naming the minimum.
 */
export interface SandboxNetworkConfig {
  /** Per mint: the least a deposit must bring, base units (at least 1). */
  minDeposit: Record<string, bigint>;
  /**
   * For a mint not in `minDeposit`. Default 1 (any positive amount): sandbox
   * tokens are free (/sandbox/airdrop), so a minimum here only models a
   * chain pool's; set it to try a wallet against one (a chain pool opened by
   * pool:init takes 0.01 SOL of wSOL, 1 USDC).
   */
  defaultMinDeposit: bigint;
}

/** How a `solana` network reaches its cluster and lands transactions (docs/solana.md). */
export interface SolanaNetworkConfig {
  commitment: "processed" | "confirmed" | "finalized";
  /** Solana CLI keypair file (JSON array of 64 bytes) of the fee payer; null: the relay's own relayer key in the data dir. */
  relayerKeypairPath: string | null;
  /** Compute-unit limit = simulated units × this margin (at least 1). */
  computeUnitMargin: number;
  /** Percentile of getRecentPrioritizationFees over the touched accounts used as the compute-unit price. */
  priorityFeePercentile: number;
  /** Hard cap of the compute-unit price, micro-lamports. */
  maxPriorityMicroLamports: number;
  /** The most a revert's priority fee may cost, lamports: a revert earns no fee, so this is its whole budget beyond the base fee and rent. */
  revertPriorityLamports: number;
  /** Fresh-blockhash attempts before a submission is given up as expired. */
  maxAttempts: number;
  /** Rebroadcast interval of a signed transaction until it lands or its blockhash expires. */
  rebroadcastMs: number;
  /** Per RPC request. */
  rpcTimeoutMs: number;
  /** How often every RPC endpoint is probed (getSlot) for health, latency and slot lag. */
  rpcProbeMs: number;
  /** Health: the node must be within this many slots of the cluster. */
  maxSlotLag: number;
  /** Health: fee-payer balance below this (lamports) is red. */
  minFeePayerLamports: bigint;
  /** Health: deposits seen on chain but not yet in the tree, per pool, before /health turns red. */
  maxIndexerLagSec: number;
  /** Live follow: poll interval when no websocket notification arrives. */
  pollMs: number;
  /** How often the pool program's ProgramData header is read to catch an upgrade (its hash is checked again when it changed). */
  programWatchMs: number;
  /** Price of one base unit of a pool mint in lamports (decimal string); wrapped SOL is 1. Used to keep network cost under the relay fee. */
  lamportsPerUnit: Record<string, string>;
  /** Relay even when the network cost exceeds the fee (or the mint has no price). */
  allowLoss: boolean;
  /**
   * The relay's own address lookup tables (base58), made by `npm run pool:lookup-table`: they hold
   * the pools' fixed accounts, so relay_swap has room for Jupiter routes of 32 accounts, not 12
   * (docs/solana.md "Swaps"). Each must exist and be active at start.
   */
  lookupTables: string[];
}

export interface RateLimitConfig {
  enabled: boolean;
  windowSec: number;
  /**
   * Requests per window, per endpoint: counted per client IP, and also per wallet when a
   * valid token is sent; either count over the limit refuses (docs/security.md, "Rate limits").
   */
  perEndpoint: Record<RateLimitedEndpoint, number>;
  /** Proof verifications one client IP may have running or queued at once; more are refused 429. */
  verificationsPerIp: number;
  /** Tokens /login issues per client IP per hour. */
  tokensPerIpPerHour: number;
  /** Tokens a wallet may hold at once (issued within auth.tokenTtlSec). */
  liveTokensPerWallet: number;
  /**
   * An IPv6 client is counted by its /64 and its /48 as well: the /48 (one site, 65,536
   * /64s) may make this many times each per-client limit (endpoint limits and tokens per
   * address) before every address in it is refused (docs/security.md, "Rate limits").
   */
  ipv6Per48Multiple: number;
}

/**
 * Which proxies' X-Forwarded-For is believed (docs/security.md, "Client address"):
 * false, none (the socket's address is the client); a number n, the n proxies
 * nearest the relay (the client is the n-th address from the right); a list of
 * proxy addresses or CIDR ranges (trusted only when the connection comes from one).
 */
export type TrustProxy = false | number | string[];

export type RateLimitedEndpoint = (typeof RATE_LIMITED_ENDPOINTS)[number];

export interface FeeSetting {
  /** Basis points of depositSize. */
  bps: number;
  /** Minimum fee, base units. */
  floor: bigint;
}

export interface FeesConfig {
  default: FeeSetting;
  /** Per network, per mint overrides. */
  pools: Record<Network, Record<string, FeeSetting>>;
  /**
   * After the operator changes a fee, the fee it replaced is still accepted
   * this long: wallets prove for the published fee (protocol v2 binds it).
   */
  graceSec: number;
}

/** relay_swap's allowed slippage per pair, by the spec's guidance (core/swap/slippage.ts). */
export interface SwapConfig {
  /** Mints counted as stablecoins: a pair of two of them is the `stable` class (10 bps). */
  stablecoins: string[];
  /** Class of every other pair: stable 10, standard 50, volatile 100, lowLiquidity 300 bps. */
  defaultClass: SlippageClass;
  /** Per pair, keyed "<mintA>/<mintB>" in either order in the file (sorted once loaded): a class or bps. */
  pairs: Record<string, PairSlippage>;
}

/** Jupiter's Swap API: the swap venue of networks whose backend is `solana`. */
export interface JupiterConfig {
  /** /quote and /swap-instructions are appended. https (http only on a loopback host). */
  baseUrl: string;
  /** Sent as `x-api-key`; RELAY_JUPITER_API_KEY. Secret. */
  apiKey: string | null;
  /** Per request. */
  timeoutMs: number;
  /** Route only through Jupiter's set of stable intermediate tokens. */
  restrictIntermediateTokens: boolean;
  /** The aggregator's program ids a swap route may call besides SPL Token, Associated Token, Compute Budget and System (docs/security.md "Swap venue"). Default: Jupiter v6. */
  programIds: string[];
}

export interface MetricsConfig {
  enabled: boolean;
  /**
   * The metrics listener's own address: GET /metrics without a token, for a scraper on this
   * machine (docs/operations.md, "Metrics"). On the main port /metrics always takes the
   * operator token. port null: no separate listener; 0: a free port (tests).
   */
  host: string;
  port: number | null;
  /** Whether `port` was set (file or RELAY_METRICS_PORT): a default port that is taken is skipped with a warning, a set one stops the start. */
  portConfigured: boolean;
  /** Seconds between reads of each fee payer's balance (runway = balance / the last 24 h's spend). */
  feePayerSampleSec: number;
}

/** Thresholds of the alert rules; null turns a rule off. The console's Settings may change them (kept in the store). */
export interface AlertRuleThresholds {
  /** Fee payer's runway (at the last 24 h's spend) below this many hours; an empty fee payer always fires. */
  feePayerRunwayHours: number | null;
  /** A pool's unindexed deposits older than this many seconds; a root drift always fires while the rule is on. */
  indexerLagSec: number | null;
  /** Failed relays above this percentage of the verdicts in the window (at least minRelays verdicts). */
  relayFailurePercent: number | null;
  relayFailureWindowMin: number;
  relayFailureMinRelays: number;
  /** /health red for more than this many minutes. */
  healthRedMin: number | null;
  /** The sanctions list last loaded more than this many hours ago. */
  sanctionsAgeHours: number | null;
  /** The data dir's disk with less than this percentage free. */
  diskFreePercent: number | null;
}

export type WebhookFormat = "json" | "slack" | "discord";

export interface AlertsConfig {
  enabled: boolean;
  /** Seconds between evaluations of the rules. */
  evaluateSec: number;
  /** A firing alert is notified again every this many minutes while it lasts. */
  repeatMin: number;
  rules: AlertRuleThresholds;
  webhook: {
    /** JSON POST target (https; http only on a loopback host); null: no webhook. Secret (it often carries a token). */
    url: string | null;
    /** Body shape: our JSON, Slack's incoming-webhook `text`, or Discord's `content`. */
    format: WebhookFormat;
    timeoutMs: number;
    /** Attempts after the first, with exponential back-off (1 s, 2 s, 4 s, …). */
    maxRetries: number;
  };
}

export interface LogsConfig {
  /** Also write the JSON lines to <dataDir>/logs/relay.log, rotated by size. */
  file: boolean;
  maxFileMiB: number;
  /** Rotated files kept (relay.log.1 … relay.log.N). */
  maxFiles: number;
  /** Client addresses in request lines: off unless the operator turns it on. */
  clientIps: boolean;
  /**
   * Which requests get a line: "changes" (default) every request except a
   * successful read (GET, and the spec's POST /get_* and /is_logged reads,
   * answered below 400), which /metrics counts instead; "all" every request.
   */
  requests: "changes" | "all";
}

export interface RelayConfig {
  host: string;
  port: number;
  dataDir: string;
  /** Set by RELAY_OPERATOR_TOKEN; otherwise generated on first start. Secret. */
  operatorToken: string | null;
  networks: Record<Network, NetworkConfig>;
  auth: {
    tokenTtlSec: number;
    loginMaxAgeSec: number;
    loginMaxFutureSec: number;
    requireRelayAuth: boolean;
  };
  rateLimits: RateLimitConfig;
  http: {
    bodyLimitBytes: number;
    /** Proxies whose X-Forwarded-For names the client; default false (none). `true` is refused at start. */
    trustProxy: TrustProxy;
    /** A request's headers must arrive within this many ms of its first byte (or of the connection). */
    headersTimeoutMs: number;
    /** A whole request (headers and body) must arrive within this many ms. */
    requestTimeoutMs: number;
    /** An idle keep-alive connection is closed after this many ms (behind a load balancer: more than its idle time-out). */
    keepAliveTimeoutMs: number;
    /** Open connections per client IP (the socket's address); more are closed at accept. 0: no cap. */
    maxConnectionsPerIp: number;
    /**
     * Host names (no port) a request's Host header may carry besides loopback names,
     * when `host` is a loopback address (docs/security.md, "Loopback safety"): e.g. the
     * public name a reverse proxy forwards unchanged. Default []: only localhost,
     * 127.0.0.0/8 and [::1] are answered; any other Host gets 421 (DNS rebinding).
     * Not consulted when `host` is not a loopback address.
     */
    publicHostnames: string[];
    /**
     * Origins (scheme://host[:port]) besides the relay's own whose requests are answered
     * (docs/security.md, "Cross-site requests"): e.g. the public https origin a TLS proxy
     * serves the console on while forwarding another Host. Default []: a request whose
     * Origin is not the relay's own is refused 403 CrossOriginRequest.
     */
    allowedOrigins: string[];
  };
  storage: {
    /** Where the relay keeps its state: the embedded sql.js store, or one PostgreSQL database shared by every instance. */
    kind: "sqljs" | "postgres";
    /** postgres: the connection URL (a secret: it may hold the password). */
    url: string | null;
    poolSize: number;
    snapshotIntervalSec: number;
    snapshotJournalMiB: number;
  };
  /** The operator console: relay records older than retentionDays are folded into daily aggregates. */
  console: { retentionDays: number };
  /** GET /metrics (docs/operations.md). */
  metrics: MetricsConfig;
  /** The relay's own alert rules and their delivery (docs/operations.md). */
  alerts: AlertsConfig;
  /** Structured JSON logs (docs/operations.md, "Logs"). */
  logs: LogsConfig;
  /** Reverts that pay out per depositor (wallet) in any 24 hours; each costs the relayer a fee and rent (docs/security.md). */
  reverts: { perDepositorPerDay: number };
  /**
   * compliance.auditLog: store every compliance signature issued (and every list error) in
   * the compliance log. Off (default): they are counted only, since any fresh wallet can ask
   * for one; refusals of listed wallets are always stored (docs/security.md, "What a stranger can write").
   */
  compliance: { auditLog: boolean };
  fees: FeesConfig;
  swap: SwapConfig;
  jupiter: JupiterConfig;
  /** Groth16 verification key and worker threads for proof verification. */
  verifier: {
    vkeyPath: string;
    threads: number;
    /** Verifications waiting for a worker (all clients together); more are answered 503 ServerBusy. */
    maxQueue: number;
    /**
     * A ceremony key's transcript (ceremony.json beside vkeyPath) must hold contributions of at
     * least this many announced contributors before a solana network starts on it.
     */
    minContributions: number;
  };
  /** The sanctions list (OFAC per-asset format): a file, or an https URL when `url` is set. */
  sanctions: {
    /** List file, polled for changes; the bundled SOL list by default. Ignored when `url` is set. */
    file: string;
    /** https URL of the list (http only on a loopback host); when set it is the source, cached in the data dir. */
    url: string | null;
    /** Seconds between fetches of `url`. */
    refreshIntervalSec: number;
    /** Seconds between checks of `file` for a change. */
    filePollSec: number;
    /** Time-out of one fetch of `url`. */
    fetchTimeoutSec: number;
  };
}
