import { readFileSync } from "node:fs";
import { Exit } from "../context";
import { str, type CommandSpec } from "../spec";

/** The SDK ships in this package, so its version is the package's. */
export function cliVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

export const health: CommandSpec = {
  name: "health",
  summary:
    "the relay's health (GET /health), its networks (GET /networks) and, with the operator token, every check (GET /health/detail); exit 1 when unhealthy",
  details:
    "Every check is listed only with the relay's operator token: --operator-token <token> or $RELAY_OPERATOR_TOKEN (the relay answers /health/detail 401 otherwise). Without it the command prints the spec's /health answer and the networks.",
  options: {
    "operator-token": { type: "string", value: "token", help: "the relay's operator token, for every check (default $RELAY_OPERATOR_TOKEN)" },
  },
  async run(ctx, values) {
    const h = await ctx.client.health();
    if (!h.ok) return ctx.apiFailure("health", h);
    const token = str(values, "operator-token") ?? ctx.io.env.RELAY_OPERATOR_TOKEN;
    // /health/detail and /networks are this relay's additions; a relay without them still answers the spec's /health.
    const d = token ? await ctx.client.healthDetail(token) : null;
    if (d && !d.ok && d.status === 401) ctx.note("the relay did not accept the operator token: checks not shown");
    const checks = d?.ok ? d.value.checks : [];
    const n = d?.ok && d.value.networks ? { ok: true as const, value: d.value.networks } : await ctx.client.networks();
    const networks = n.ok ? n.value : null;
    const lines = [h.value.healthy ? "ok" : h.value.text || `unhealthy (HTTP ${h.value.status})`];
    for (const c of checks) lines.push(`  ${c.ok ? "ok  " : "FAIL"} ${c.name}${c.detail ? `: ${c.detail}` : ""}`);
    for (const net of networks ?? [])
      lines.push(`  network ${net.name}: ${net.sandbox ? "sandbox chain (test funds only)" : `${net.backend} backend`}, program ${net.programId}`);
    const json = {
      healthy: h.value.healthy,
      status: h.value.status,
      text: h.value.text,
      checks: d?.ok ? checks.map((c) => ({ ...c })) : null,
      networks: networks ? networks.map((x) => ({ ...x })) : null,
    };
    return ctx.done(lines, json, h.value.healthy ? Exit.Ok : Exit.Refused);
  },
};

export const version: CommandSpec = {
  name: "version",
  summary: "the relay's version (GET /version) and this CLI's",
  options: {},
  async run(ctx) {
    const r = await ctx.client.version();
    if (!r.ok) return ctx.apiFailure("version", r);
    const client = cliVersion();
    return ctx.done([`relay ${r.value}`, `relay-cli ${client}`], { relay: r.value, cli: client });
  },
};
