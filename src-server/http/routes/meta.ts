import { Router, type RequestHandler } from "express";
import type { HealthDetail, NetworksAnswer, RelayNetwork } from "../../../src-shared/api/public";
import type { HealthService } from "../../services/health";

export interface MetaInfo {
  version: string;
  startedAt: number;
  networks: RelayNetwork[];
}

/**
 * /health, /health/detail, /networks and /version. Both health endpoints answer from one
 * report refreshed at most every 5 s (HealthService.cached); /health/detail names
 * the fee payer's balance and server paths, so it takes the operator token
 * (`operatorOnly`, the /admin guard) (docs/security.md, "Health").
 */
export function metaRoutes(health: HealthService, info: MetaInfo, operatorOnly: RequestHandler): Router {
  const r = Router();

  r.get("/health", async (_req, res) => {
    const report = await health.cached();
    if (report.status === "ok") return void res.status(200).type("text/plain").send("ok");
    const failed = report.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`);
    res
      .status(503)
      .type("text/plain")
      .send(`unhealthy: ${failed.join("; ")}`);
  });

  r.get("/health/detail", operatorOnly, async (_req, res) => {
    const report = await health.cached();
    const body: HealthDetail = {
      status: report.status,
      checks: report.checks,
      checkedAt: report.checkedAt,
      uptimeSec: Math.floor((Date.now() - info.startedAt) / 1000),
      version: info.version,
      networks: info.networks,
    };
    res.status(report.status === "ok" ? 200 : 503).json(body);
  });

  // What each enabled network runs on (sandbox ledger or a program on a Solana cluster): public
  // facts a wallet checks before depositing, from the configuration (no RPC call).
  r.get("/networks", (_req, res) => {
    const body: NetworksAnswer = { networks: info.networks };
    res.status(200).json(body);
  });

  r.get("/version", (_req, res) => {
    res.status(200).type("text/plain").send(info.version);
  });

  return r;
}
