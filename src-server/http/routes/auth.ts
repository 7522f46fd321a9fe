import { Router } from "express";
import { parsePublicKey, parseSignature } from "../../../src-shared/encoding/base58";
import { ErrorName } from "../../../src-shared/errors";
import type { AuthService } from "../../services/auth";
import { refuse, type RateLimits } from "../middleware/rate-limit";
import { invalidRequest, sendError } from "../respond";

export function authRoutes(auth: AuthService, limits: RateLimits): Router {
  const r = Router();

  // By client address alone, before the body's signature is checked (docs/security.md, "Rate limits").
  r.post("/login", ...limits.middleware("login", "plain", "ip"), async (req, res) => {
    const body: unknown = req.body;
    if (typeof body !== "object" || body === null || Array.isArray(body)) return invalidRequest(res, "body must be a JSON object");
    const { wallet, signature, message } = body as Record<string, unknown>;
    const walletBytes = parsePublicKey(wallet);
    if (!walletBytes.ok) return invalidRequest(res, `wallet: ${walletBytes.error}`);
    if (typeof message !== "number" || !Number.isSafeInteger(message) || message < 0) {
      return invalidRequest(res, "message must be the signed Unix timestamp in seconds, as a number");
    }
    const sig = parseSignature(signature);
    // A signature that is not even 64 base58 bytes cannot match: the spec's name for that is Invalid signature.
    if (!sig.ok) return sendError(res, 400, ErrorName.InvalidLoginSignature, `signature: ${sig.error}`);
    const result = await auth.login({ wallet: wallet as string, walletBytes: walletBytes.value, signature: sig.value, message }, limits.tokenGate(req));
    if (result.ok) return void res.status(200).json({ id: result.value.id });
    if (result.error.kind === "TooManyTokens") return refuse(res, result.error.retryAfterSec, "plain", result.error.reason);
    if (result.error.kind === "InvalidSignature") return sendError(res, 400, ErrorName.InvalidLoginSignature);
    return sendError(res, 400, ErrorName.MessageTooOld, result.error.reason);
  });

  r.get("/is_logged/:id", ...limits.middleware("is_logged"), (req, res) => {
    res.status(200).json(auth.walletOf(req.params.id) !== null);
  });

  return r;
}
