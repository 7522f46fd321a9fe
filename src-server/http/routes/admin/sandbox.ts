import { adminFaultRequest, adminFaults, oneFaultSwitch } from "../../../../src-shared/api/admin";
import { Router } from "express";
import type { SandboxFaults } from "../../../services/admin/sandbox-faults";
import { decodedOr400 } from "../../request-body";
import { sendAnswer } from "../../respond";

/** GET and POST /admin/sandbox/faults: fault switches of sandbox networks (never a real chain). */
export function adminSandboxRoutes(faults: SandboxFaults): Router {
  const r = Router();

  r.get("/sandbox/faults", (_req, res) => {
    sendAnswer(res, adminFaults, { faults: faults.list() });
  });

  r.post("/sandbox/faults", (req, res) => {
    const b = decodedOr400(res, adminFaultRequest, req.body, {
      network: (d) => (d.network && !faults.isSandbox(d.network) ? `${d.network} is not a sandbox network: faults are for sandbox chains only` : null),
      feePayerLamports: oneFaultSwitch,
    });
    if (!b) return;
    const { network, chainDown, feePayerLamports } = b;
    let list = faults.list();
    if (chainDown !== null) list = faults.set(network, chainDown);
    if (feePayerLamports !== undefined) list = faults.setFeePayerLamports(network, feePayerLamports === null ? null : BigInt(feePayerLamports));
    sendAnswer(res, adminFaults, { faults: list });
  });

  return r;
}
