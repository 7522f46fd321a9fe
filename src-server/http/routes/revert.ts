import { Router } from "express";
import type { Network } from "../../../src-shared/networks";
import type { RevertService } from "../../services/revert-service";
import type { RateLimits } from "../middleware/rate-limit";
import { parseNetworkParam } from "../params";
import { sendError } from "../respond";
import { httpStatus } from "../status";

/** POST /revert/{network}/{id}/{txn_sig}: 200 plain text (the revert transaction's signature), else `{ error, message }`. */
export function revertRoutes(deps: { reverts: RevertService; limits: RateLimits; enabled: (n: Network) => boolean }): Router {
  const r = Router();

  r.post("/revert/:network/:id/:txn_sig", ...deps.limits.middleware("revert"), async (req, res) => {
    const network = parseNetworkParam(req.params.network, deps.enabled);
    if (!network.ok) return sendError(res, network.error.status, network.error.error, network.error.message);
    const outcome = await deps.reverts.revert({ network: network.value, token: String(req.params.id), txnSig: String(req.params.txn_sig), body: req.body });
    if (outcome.ok) return void res.status(200).type("text/plain").send(outcome.signature);
    if (outcome.retryAfterSec !== undefined) res.setHeader("Retry-After", String(outcome.retryAfterSec));
    sendError(res, httpStatus(outcome.fault), outcome.error, outcome.message);
  });

  return r;
}
