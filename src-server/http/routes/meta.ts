import { Router } from "express";
import type { HealthService } from "../../services/health";

export interface MetaInfo {
  version: string;
  startedAt: number;
  networks: { name: string; backend: string; sandbox: boolean; programId: string }[];
}

export function metaRoutes(health: HealthService, info: MetaInfo): Router {
  const r = Router();

  r.get("/health", async (_req, res) => {
    const report = await health.report();
    if (report.status === "ok") return void res.status(200).type("text/plain").send("ok");
    const failed = report.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`);
    res.status(503).type("text/plain").send(`unhealthy: ${failed.join("; ")}`);
  });

  r.get("/health/detail", async (_req, res) => {
    const report = await health.report();
    res.status(report.status === "ok" ? 200 : 503).json({
      ...report,
      uptimeSec: Math.floor((Date.now() - info.startedAt) / 1000),
      version: info.version,
      networks: info.networks,
    });
  });

  r.get("/version", (_req, res) => {
    res.status(200).type("text/plain").send(info.version);
  });

  return r;
}
