import { adminCompliance, adminOverrideRequest, adminRevert, adminReverts } from "../../../../src-shared/api/admin";
import { Router } from "express";
import { parsePublicKey } from "../../../../src-shared/encoding/base58";
import { isRevertStatus, type AdminSupport } from "../../../services/admin/support";
import { invalidRequest, sendAnswer } from "../../respond";
import { decodedOr400 } from "../../request-body";
import { getRecordById, optionalInt, optionalNetwork } from "./query";

/** GET /admin/reverts, /admin/reverts/{id}, /admin/compliance; POST /admin/sanctions/overrides */
export function adminSupportRoutes(support: AdminSupport): Router {
  const r = Router();

  r.get("/reverts", async (req, res) => {
    const network = optionalNetwork(req, res);
    if (network === undefined) return;
    const status = typeof req.query.status === "string" && req.query.status !== "" ? req.query.status : null;
    if (status !== null && !isRevertStatus(status)) return invalidRequest(res, "status must be requested, submitted, processed or failed");
    const limit = optionalInt(req, res, "limit", 1, 500);
    if (limit === undefined) return;
    sendAnswer(res, adminReverts, { items: await support.reverts({ ...(network ? { network } : {}), ...(status ? { status } : {}) }, limit ?? 100) });
  });

  getRecordById(r, "/reverts", "revert", (id) => support.revert(id), adminRevert, "no revert record with this id");

  r.get("/compliance", async (req, res) => {
    const address = typeof req.query.address === "string" && req.query.address !== "" ? req.query.address : null;
    if (address !== null && !parsePublicKey(address).ok) return invalidRequest(res, "address must be a base58 Solana address");
    const limit = optionalInt(req, res, "limit", 1, 500);
    if (limit === undefined) return;
    sendAnswer(res, adminCompliance, await support.compliance(address, limit ?? 100));
  });

  r.post("/sanctions/overrides", async (req, res) => {
    const b = decodedOr400(res, adminOverrideRequest, req.body);
    if (!b) return;
    const result = await support.override(b.address, b.action, b.reason);
    if (!result.ok) return invalidRequest(res, result.error);
    sendAnswer(res, adminCompliance, result.value);
  });

  return r;
}
