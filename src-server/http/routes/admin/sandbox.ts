import { Router } from "express";
import { ErrorName } from "../../../../src-shared/errors";
import { isNetwork } from "../../../../src-shared/networks";
import type { SandboxFaults } from "../../../services/admin-faults";
import { invalidRequest, sendError } from "../../respond";

/** GET and POST /admin/sandbox/faults: fault switches of sandbox networks (never a real chain). */
export function adminSandboxRoutes(faults: SandboxFaults): Router {
  const r = Router();

  r.get("/sandbox/faults", (_req, res) => {
    res.json({ faults: faults.list() });
  });

  r.post("/sandbox/faults", (req, res) => {
    const b: unknown = req.body;
    if (typeof b !== "object" || b === null || Array.isArray(b)) return invalidRequest(res, "body must be { network, chainDown }");
    const { network, chainDown } = b as Record<string, unknown>;
    if (!isNetwork(network)) return sendError(res, 400, ErrorName.InvalidNetwork, "network must be mainnet or devnet");
    if (!faults.isSandbox(network)) return sendError(res, 400, ErrorName.InvalidNetwork, `${network} is not a sandbox network: faults are for sandbox chains only`);
    if (typeof chainDown !== "boolean") return invalidRequest(res, "chainDown must be true or false");
    res.json({ faults: faults.set(network, chainDown) });
  });

  return r;
}
