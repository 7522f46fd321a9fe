import { Router } from "express";
import { ErrorName } from "../../../src-shared/errors";
import type { Network } from "../../../src-shared/networks";
import type { ComplianceService } from "../../services/compliance";
import type { RateLimits } from "../middleware/rate-limit";
import { parseNetworkParam } from "../params";
import { sendError, sendStoreUnavailable } from "../respond";
import { httpStatus } from "../status";

/** The compliance endpoint (POST /get_ofac_signature), plus the public key verifiers check its signatures against. */
export function complianceRoutes(deps: { compliance: ComplianceService; limits: RateLimits; enabled: (n: Network) => boolean }): Router {
  const r = Router();

  r.post("/get_ofac_signature/:network/:id", ...deps.limits.middleware("get_ofac_signature"), async (req, res) => {
    const network = parseNetworkParam(req.params.network, deps.enabled);
    if (!network.ok) return sendError(res, network.error.status, network.error.error, network.error.message);
    const issued = await deps.compliance.issue(network.value, String(req.params.id));
    // Fresh for each withdrawal (spec): no cache may keep or replay one.
    res.setHeader("Cache-Control", "no-store");
    if (issued.ok) return void res.status(200).type("text/plain").send(issued.value.body);
    switch (issued.error.kind) {
      case "Unauthorized":
        return sendError(res, httpStatus("unauthorized"), ErrorName.Unauthorized);
      case "Listed":
        return void res.status(httpStatus("forbidden")).type("text/plain").send(ErrorName.OfacRefused);
      case "Unavailable":
        return void res.status(httpStatus("server")).type("text/plain").send(ErrorName.ComplianceError);
      case "StoreUnavailable":
        return sendStoreUnavailable(res, "plain");
    }
  });

  r.get("/compliance/public_key", (_req, res) => {
    res.status(200).json(deps.compliance.publicKey);
  });

  return r;
}
