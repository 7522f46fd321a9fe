import { adminFaults } from "../../../../src-shared/api/admin";
import { Router } from "express";
import { ErrorName } from "../../../../src-shared/errors";
import { isNetwork } from "../../../../src-shared/networks";
import type { SandboxFaults } from "../../../services/admin/sandbox-faults";
import { invalidRequest, sendAnswer, sendError } from "../../respond";

/** GET and POST /admin/sandbox/faults: fault switches of sandbox networks (never a real chain). */
export function adminSandboxRoutes(faults: SandboxFaults): Router {
  const r = Router();

  r.get("/sandbox/faults", (_req, res) => {
    sendAnswer(res, adminFaults, { faults: faults.list() });
  });

  r.post("/sandbox/faults", (req, res) => {
    const b: unknown = req.body;
    if (typeof b !== "object" || b === null || Array.isArray(b)) return invalidRequest(res, "body must be { network, chainDown?, feePayerLamports? }");
    const { network, chainDown, feePayerLamports } = b as Record<string, unknown>;
    if (!isNetwork(network)) return sendError(res, 400, ErrorName.InvalidNetwork, "network must be mainnet or devnet");
    if (!faults.isSandbox(network))
      return sendError(res, 400, ErrorName.InvalidNetwork, `${network} is not a sandbox network: faults are for sandbox chains only`);
    if (chainDown === undefined && feePayerLamports === undefined)
      return invalidRequest(res, "send chainDown (true or false) or feePayerLamports (a decimal string, or null)");
    if (chainDown !== undefined && typeof chainDown !== "boolean") return invalidRequest(res, "chainDown must be true or false");
    if (feePayerLamports !== undefined && feePayerLamports !== null && !(typeof feePayerLamports === "string" && /^[0-9]{1,20}$/.test(feePayerLamports))) {
      return invalidRequest(res, "feePayerLamports must be a decimal string of lamports, or null to end the drill");
    }
    let list = faults.list();
    if (typeof chainDown === "boolean") list = faults.set(network, chainDown);
    if (feePayerLamports !== undefined) list = faults.setFeePayerLamports(network, feePayerLamports === null ? null : BigInt(feePayerLamports));
    sendAnswer(res, adminFaults, { faults: list });
  });

  return r;
}
