/**
 * The start-up description of the config: one line per area, as an operator reads it. Secrets
 * (keys.ts marks them) are reduced to whether they are set and URLs to their origin; a test
 * (describe.test.ts) sets every secret the table declares and checks none is printed.
 */
import path from "node:path";
import { NETWORKS } from "../../src-shared/networks";
import { redactUrl } from "../../src-shared/redact-url";
import type { RelayConfig } from "./types";

type Line = (cfg: RelayConfig) => string;

const networks: Line = (cfg) =>
  NETWORKS.map((n) => {
    const c = cfg.networks[n];
    const rpc = c.enabled && c.backend === "solana" && c.rpcUrls.length ? ` rpc=${c.rpcUrls.map(redactUrl).join(",")} commitment=${c.solana.commitment}` : "";
    return `${n}=${c.enabled ? c.backend : "disabled"} program=${c.programId} pools=${c.pools.length}${rpc}`;
  }).join("; ");

const rateLimits: Line = ({ rateLimits: rl }) => {
  if (!rl.enabled) return "off";
  const limits = Object.entries(rl.perEndpoint)
    .map(([k, v]) => `${k}:${v}`)
    .join(",");
  return `${limits}/${rl.windowSec}s; per address: ${rl.tokensPerIpPerHour} tokens/h, ${rl.verificationsPerIp} proofs in the verifier; ${rl.liveTokensPerWallet} live tokens per wallet`;
};

const http: Line = ({ http: h, rateLimits: rl, verifier }) =>
  `trustProxy=${JSON.stringify(h.trustProxy)} maxConnectionsPerIp=${rl.enabled && h.maxConnectionsPerIp > 0 ? h.maxConnectionsPerIp : "off"} timeouts headers=${h.headersTimeoutMs}ms request=${h.requestTimeoutMs}ms keepAlive=${h.keepAliveTimeoutMs}ms; verifier queue ${verifier.maxQueue}; origins answered: own${h.allowedOrigins.map((o) => `, ${o}`).join("")}`;

const metrics: Line = ({ metrics: m }) => {
  if (!m.enabled) return "off";
  const listener = m.port === null ? "no listener" : `listener ${m.host}:${m.port === 0 ? "(a free port)" : m.port} (no token)`;
  return `${listener}, /metrics on the main port with the operator token`;
};

const alertsAndLogs: Line = (cfg) => {
  const { webhook } = cfg.alerts;
  const alerts = cfg.alerts.enabled ? `on, webhook ${webhook.url ? `${redactUrl(webhook.url)} (${webhook.format})` : "not set"}` : "off";
  const file = cfg.logs.file ? ` and ${path.join(cfg.dataDir, "logs", "relay.log")}` : "";
  return `alerts: ${alerts}; logs: JSON to stdout${file}, client IPs ${cfg.logs.clientIps ? "logged" : "not logged"}`;
};

/** Each line after `config: `, in the order they are printed. */
const LINES: readonly Line[] = [
  (c) => `host=${c.host} port=${c.port} dataDir=${c.dataDir}`,
  (c) => `networks: ${networks(c)}`,
  ({ auth: a }) => `auth: tokenTtl=${a.tokenTtlSec}s loginWindow=-${a.loginMaxAgeSec}s/+${a.loginMaxFutureSec}s relayAuth=${a.requireRelayAuth ? "on" : "off"}`,
  (c) => `rateLimits: ${rateLimits(c)}`,
  (c) => `http: ${http(c)}`,
  ({ fees }) =>
    `fees: default ${fees.default.bps} bps, floor ${fees.default.floor}; ${NETWORKS.map((n) => `${n} overrides ${Object.keys(fees.pools[n]).length}`).join(", ")}`,
  ({ sanctions: s }) => `sanctions list: ${s.url ? `${redactUrl(s.url)} every ${s.refreshIntervalSec}s` : `${s.file} (checked every ${s.filePollSec}s)`}`,
  ({ swap, jupiter }) =>
    `swap: slippage ${swap.defaultClass} by default, ${swap.stablecoins.length} stablecoins, ${Object.keys(swap.pairs).length} pair settings; jupiter ${redactUrl(jupiter.baseUrl)} (api key ${jupiter.apiKey ? "set, hidden" : "not set"})`,
  (c) => `metrics: ${metrics(c)}; ${alertsAndLogs(c)}`,
  (c) => `operatorToken: ${c.operatorToken ? "set (hidden)" : "not set"}`,
];

/** The configuration as an operator may see it: secrets reduced to whether they are set. */
export function describeConfig(cfg: RelayConfig): string {
  return LINES.map((line) => `config: ${line(cfg)}`).join("\n");
}
