import {
  adminFeeRequest,
  adminFees,
  adminHealth,
  adminMoney,
  adminPauseRequest,
  adminPauses,
  adminSession,
  adminSettings,
} from "../../../../src-shared/api/admin";
import { Router } from "express";
import type { AdminMoneyService } from "../../../services/admin/money-service";
import type { PauseService } from "../../../services/admin/pause-service";
import type { FeeSchedule } from "../../../services/fee-schedule";
import type { AdminStatus } from "../../../services/admin/status";
import { invalidRequest, sendAnswer } from "../../respond";
import { decodedOr400 } from "../../request-body";
import { range } from "./query";

/** GET /admin/session, /admin/health, /admin/settings, /admin/money; GET and POST /admin/pauses */
export function adminStatusRoutes(deps: {
  status: AdminStatus;
  pauses: PauseService;
  fees: FeeSchedule;
  money: AdminMoneyService;
  tokenSource: string;
}): Router {
  const r = Router();

  /** The console's sign-in check: 200 only with a valid token (the guard answered 401 otherwise). */
  r.get("/session", (_req, res) => {
    sendAnswer(res, adminSession, { ok: true, tokenSource: deps.tokenSource });
  });

  r.get("/health", async (_req, res) => {
    sendAnswer(res, adminHealth, await deps.status.healthDetail());
  });

  r.get("/settings", (_req, res) => {
    sendAnswer(res, adminSettings, deps.status.settings());
  });

  r.get("/pauses", (_req, res) => {
    sendAnswer(res, adminPauses, { pauses: deps.pauses.list() });
  });

  r.post("/pauses", async (req, res) => {
    const b = decodedOr400(res, adminPauseRequest, req.body);
    if (!b) return;
    const result = await deps.pauses.set(b.network, b.mint?.text ?? null, b.paused, b.reason ?? undefined);
    if (!result.ok) return invalidRequest(res, result.error);
    sendAnswer(res, adminPauses, { pauses: result.value });
  });

  /**
   * Changes a pool's fee (or, mint null, the default of pools without their own); `reset: true`
   * goes back to the config file's. The fee replaced stays acceptable for fees.graceSec.
   */
  r.post("/fees", async (req, res) => {
    const b = decodedOr400(res, adminFeeRequest, req.body);
    if (!b) return;
    const policy = b.bps !== null && b.floor !== null ? { bps: b.bps, floor: b.floor } : null;
    const result = await deps.fees.set(b.network, b.mint?.text ?? null, policy);
    if (!result.ok) return invalidRequest(res, result.error);
    sendAnswer(res, adminFees, deps.status.settings().fees);
  });

  r.get("/money", async (req, res) => {
    const rg = range(req, res, "30d");
    if (!rg) return;
    sendAnswer(res, adminMoney, await deps.money.report(rg));
  });

  return r;
}
