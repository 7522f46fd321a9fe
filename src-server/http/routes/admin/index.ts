import { Router, type RequestHandler } from "express";
import { ErrorName } from "../../../../src-shared/errors";
import type { SandboxFaults } from "../../../services/admin/sandbox-faults";
import type { AdminMoneyService } from "../../../services/admin/money-service";
import type { PauseService } from "../../../services/admin/pause-service";
import type { FeeSchedule } from "../../../services/fee-schedule";
import type { AdminPools } from "../../../services/admin/pools";
import type { AdminRelays } from "../../../services/admin/relays";
import type { AdminStatus } from "../../../services/admin/status";
import type { AdminSupport } from "../../../services/admin/support";
import { sendError } from "../../respond";
import { adminPoolRoutes } from "./pools";
import { adminRelayRoutes } from "./relays";
import { adminSandboxRoutes } from "./sandbox";
import { adminStatusRoutes } from "./status";
import { adminSupportRoutes } from "./support";

export interface AdminRouteDeps {
  /** The operator-token guard (auth.ts requireOperator), shared with /health/detail so failures count once. */
  guard: RequestHandler;
  tokenSource: string;
  pools: AdminPools;
  relays: AdminRelays;
  status: AdminStatus;
  pauses: PauseService;
  fees: FeeSchedule;
  money: AdminMoneyService;
  faults: SandboxFaults;
  /** Revert queue and compliance log, when the relay has them. */
  support?: AdminSupport;
}

/** Everything under /admin, behind the operator token. Mount with app.use("/admin", ...). */
export function adminRoutes(deps: AdminRouteDeps): Router {
  const r = Router();
  r.use(deps.guard);
  r.use(adminStatusRoutes(deps));
  r.use(adminPoolRoutes(deps.pools));
  r.use(adminRelayRoutes(deps.relays));
  r.use(adminSandboxRoutes(deps.faults));
  if (deps.support) r.use(adminSupportRoutes(deps.support));
  // Inside the guard: an unknown admin path tells nothing to a caller without the token.
  r.use((_req, res) => sendError(res, 404, ErrorName.NotFound, "no such admin endpoint"));
  return r;
}
