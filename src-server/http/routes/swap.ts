import { Router } from "express";
import { ErrorName } from "../../../src-shared/errors";
import { parseQuoteRequest, quoteJson } from "../../core/swap/quote";
import type { SwapRoutingService } from "../../services/swap-routing";
import type { RateLimits } from "../middleware/rate-limit";
import { invalidRequest, sendError } from "../respond";
import { httpStatus } from "../status";

/** POST /jupiter (the API's swap-quote helper): a swap quote from the network's venue. */
export function swapRoutes(deps: { swaps: SwapRoutingService; limits: RateLimits; log: (line: string) => void }): Router {
  const r = Router();

  r.post("/jupiter", ...deps.limits.middleware("jupiter"), async (req, res) => {
    const parsed = parseQuoteRequest(req.body);
    if (!parsed.ok) return invalidRequest(res, parsed.error.message);
    const quoted = await deps.swaps.quote(parsed.value);
    if (quoted.ok) return void res.status(200).json(quoteJson(quoted.value));
    const e = quoted.error;
    switch (e.kind) {
      case "InsufficientLiquidity":
        return sendError(res, httpStatus("client"), ErrorName.InsufficientLiquidity, e.detail);
      case "InvalidRequest":
      case "NetworkDisabled":
        return invalidRequest(res, e.detail);
      case "Unavailable":
        deps.log(`jupiter: ${parsed.value.network} venue unavailable: ${e.detail}`);
        return sendError(res, httpStatus("upstream"), ErrorName.SwapFailed, "the swap venue did not answer usably; try again");
    }
  });

  return r;
}
