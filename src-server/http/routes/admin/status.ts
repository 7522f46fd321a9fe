import { adminFees, adminHealth, adminMoney, adminPauseRequest, adminPauses, adminSession, adminSettings } from "../../../../src-shared/api/admin";
import { Router } from "express";
import { parsePublicKey } from "../../../../src-shared/encoding/base58";
import { ErrorName } from "../../../../src-shared/errors";
import { isNetwork } from "../../../../src-shared/networks";
import type { AdminMoneyService } from "../../../services/admin/money-service";
import type { PauseService } from "../../../services/admin/pause-service";
import type { FeeSchedule } from "../../../services/fee-schedule";
import { parseU64 } from "../../../core/relay/request";
import type { AdminStatus } from "../../../services/admin/status";
import { invalidRequest, sendAnswer, sendError } from "../../respond";
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
    const b: unknown = req.body;
    if (typeof b !== "object" || b === null || Array.isArray(b))
      return invalidRequest(res, "body must be { network, mint?, bps, floor } or { network, mint?, reset: true }");
    const { network, mint, bps, floor, reset } = b as Record<string, unknown>;
    if (!isNetwork(network)) return sendError(res, 400, ErrorName.InvalidNetwork, "network must be mainnet or devnet");
    if (mint !== undefined && mint !== null && !parsePublicKey(mint).ok)
      return sendError(res, 400, ErrorName.InvalidMint, "mint must be a base58 public key, or null for the default");
    let policy: { bps: number; floor: bigint } | null = null;
    if (reset !== true) {
      if (typeof bps !== "number" || !Number.isInteger(bps) || bps < 0 || bps > 10_000) return invalidRequest(res, "bps: an integer from 0 to 10000");
      const f = parseU64(floor ?? 0, false);
      if (!f.ok) return invalidRequest(res, `floor: ${f.error}`);
      policy = { bps, floor: f.value };
    }
    const result = await deps.fees.set(network, (mint as string | null | undefined) ?? null, policy);
    if (!result.ok) return invalidRequest(res, result.error);
    sendAnswer(res, adminFees, deps.status.settings().fees);
  });

  r.get("/money", (req, res) => {
    const rg = range(req, res, "30d");
    if (!rg) return;
    sendAnswer(res, adminMoney, deps.money.report(rg));
  });

  return r;
}
