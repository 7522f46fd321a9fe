import { Router } from "express";
import { decodeBody } from "../../../src-shared/api/request-fields";
import { loginRequest } from "../../../src-shared/api/requests";
import { ErrorName } from "../../../src-shared/errors";
import type { AuthService } from "../../services/auth";
import { refuse, type RateLimits } from "../middleware/rate-limit";
import { sendError } from "../respond";

export function authRoutes(auth: AuthService, limits: RateLimits): Router {
  const r = Router();

  // By client address alone, before the body's signature is checked (docs/security.md, "Rate limits").
  r.post("/login", ...limits.middleware("login", "plain", "ip"), async (req, res) => {
    const body = decodeBody(loginRequest, req.body);
    if (!body.ok) return sendError(res, 400, body.error.error, body.error.message);
    const { wallet, message, signature } = body.value;
    const result = await auth.login({ wallet: wallet.text, walletBytes: wallet.bytes, signature: signature.bytes, message }, limits.tokenGate(req));
    if (result.ok) return void res.status(200).json({ id: result.value.id });
    if (result.error.kind === "TooManyTokens") return refuse(res, result.error.retryAfterSec, "plain", result.error.reason);
    if (result.error.kind === "InvalidSignature") return sendError(res, 400, ErrorName.InvalidLoginSignature);
    return sendError(res, 400, ErrorName.MessageTooOld, result.error.reason);
  });

  r.get("/is_logged/:id", ...limits.middleware("is_logged"), async (req, res) => {
    res.status(200).json((await auth.walletOf(req.params.id)) !== null);
  });

  return r;
}
