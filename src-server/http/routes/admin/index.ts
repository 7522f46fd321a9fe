import { Router } from "express";
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
import { adminAlertRoutes, type AlertsConsole } from "./alerts";
import { adminPoolRoutes } from "./pools";
import { adminRelayRoutes, type RelayLogLines } from "./relays";
import { adminSandboxRoutes } from "./sandbox";
import { adminStatusRoutes } from "./status";
import { adminSupportRoutes } from "./support";

export interface AdminRouteDeps {
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
  alerts: AlertsConsole;
  relayLog: RelayLogLines;
}

/**
 * Everything under /admin. Mounted once, behind the operator guard (auth.ts requireOperator):
 * app.use("/admin", guard, adminRoutes(...)) in http/app.ts.
 */
export function adminRoutes(deps: AdminRouteDeps): Router {
  const r = Router();
  r.use("/alerts", adminAlertRoutes(deps.alerts));
  r.use(adminStatusRoutes(deps));
  r.use(adminPoolRoutes(deps.pools));
  r.use(adminRelayRoutes(deps.relays, deps.relayLog));
  r.use(adminSandboxRoutes(deps.faults));
  if (deps.support) r.use(adminSupportRoutes(deps.support));
  // Inside the guard: an unknown admin path tells nothing to a caller without the token.
  r.use((_req, res) => sendError(res, 404, ErrorName.NotFound, "no such admin endpoint"));
  return r;
}
