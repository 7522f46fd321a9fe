import { readFileSync } from "node:fs";
import { Exit } from "../context";
import type { CommandSpec } from "../spec";

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
  summary: "the relay's health (GET /health and /health/detail); exit 1 when unhealthy",
  options: {},
  async run(ctx) {
    const h = await ctx.client.health();
    if (!h.ok) return ctx.apiFailure("health", h);
    // /health/detail is this relay's addition; a relay without it still answers the spec's /health.
    const d = await ctx.client.healthDetail();
    const checks = d.ok ? d.value.checks : [];
    const lines = [h.value.healthy ? "ok" : h.value.text || `unhealthy (HTTP ${h.value.status})`];
    for (const c of checks) lines.push(`  ${c.ok ? "ok  " : "FAIL"} ${c.name}${c.detail ? `: ${c.detail}` : ""}`);
    if (d.ok && d.value.networks) {
      for (const n of d.value.networks) lines.push(`  network ${n.name}: ${n.sandbox ? "sandbox chain (test funds only)" : `${n.backend} backend`}, program ${n.programId}`);
    }
    const json = {
      healthy: h.value.healthy,
      status: h.value.status,
      text: h.value.text,
      checks: checks.map((c) => ({ ...c })),
      networks: d.ok && d.value.networks ? d.value.networks.map((n) => ({ ...n })) : null,
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
