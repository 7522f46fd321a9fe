import { Router, type RequestHandler } from "express";
import type { FeesAnswer } from "../../../src-shared/api/public";
import { ErrorName } from "../../../src-shared/errors";
import { NETWORKS } from "../../../src-shared/networks";
import type { Result } from "../../../src-shared/result";
import type { BodyProblem } from "../../../src-shared/api/request-fields";
import { parseSwapWithdrawalRequest, parseWithdrawalRequest } from "../../core/relay/request";
import type { RelayOutcome } from "../../core/relay/states";
import type { RelayConfig } from "../../config/schema";
import type { Network } from "../../../src-shared/networks";
import type { ChainBackend } from "../../ports/chain";
import type { FeeSchedule } from "../../services/fee-schedule";
import type { AuthService } from "../../services/auth";
import type { RelayService, VerificationGate } from "../../services/relay-service";
import type { RateLimits } from "../middleware/rate-limit";
import { sendRelayError } from "../respond";
import { httpStatus } from "../status";

export function relayRoutes(deps: {
  relay: RelayService;
  fees: FeeSchedule;
  chains: ReadonlyMap<Network, ChainBackend>;
  auth: AuthService;
  limits: RateLimits;
  config: RelayConfig;
}): Router {
  const r = Router();

  /** /relay and /relay_swap: parse, authenticate, run the pipeline; the HTTP status equals the body's. */
  const relayEndpoint =
    <R>(parse: (body: unknown) => Result<R, BodyProblem>, run: (request: R, gate: VerificationGate) => Promise<RelayOutcome>): RequestHandler =>
    async (req, res) => {
      const parsed = parse(req.body);
      if (!parsed.ok) return sendRelayError(res, 400, parsed.error.error, parsed.error.message);
      if (deps.config.auth.requireRelayAuth && (await deps.auth.walletOf(req.get("x-api-auth"))) === null) {
        return sendRelayError(res, 401, ErrorName.Unauthorized, "x-api-auth must carry a valid token from /login");
      }
      const outcome = await run(parsed.value, deps.limits.verificationGate(req));
      if (!("fault" in outcome)) return void res.status(200).json(outcome);
      // Refused for load (or while the database is away), not for what was sent: the same request may be sent again shortly.
      const retryAfterSec = outcome.retryAfterSec ?? (outcome.error === ErrorName.RateLimited || outcome.error === ErrorName.ServerBusy ? 1 : null);
      if (retryAfterSec !== null) res.setHeader("Retry-After", String(retryAfterSec));
      const status = httpStatus(outcome.fault);
      res.status(status).json({ status, error: outcome.error, message: outcome.message });
    };

  r.post(
    "/relay",
    ...deps.limits.middleware("relay", "relay"),
    relayEndpoint(parseWithdrawalRequest, (w, gate) => deps.relay.relay(w, gate)),
  );
  r.post(
    "/relay_swap",
    ...deps.limits.middleware("relay_swap", "relay"),
    relayEndpoint(parseSwapWithdrawalRequest, (w, gate) => deps.relay.relaySwap(w, gate)),
  );

  /**
   * Published before a client relays: a wallet proves for this fee and this
   * relayer (protocol v2 binds both), and the recipient receives depositSize minus the fee.
   */
  r.get("/fees", (_req, res) => {
    const schedule = deps.fees.schedule();
    const body: FeesAnswer = {
      formula: "fee = max(floor, floor(depositSize * bps / 10000)); recipient receives depositSize - fee",
      default: schedule.default,
      pools: schedule.pools,
      relayers: Object.fromEntries(NETWORKS.map((n) => [n, deps.chains.get(n)?.feePayer ?? null])),
      graceSec: deps.fees.graceSec,
    };
    res.status(200).json(body);
  });

  return r;
}
