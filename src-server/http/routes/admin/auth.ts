import type { RequestHandler } from "express";
import { ErrorName } from "../../../../src-shared/errors";
import { SlidingWindowLimiter } from "../../../core/limits/sliding-window";
import { clientKeyOf } from "../../middleware/client-address";
import { sendError } from "../../respond";

/** Failed sign-ins allowed per client address and minute before 429 (a 256-bit token needs no more). */
export const ADMIN_FAILURES_PER_MINUTE = 20;

const BEARER = /^Bearer[ ]+([\x21-\x7e]{1,512})[ ]*$/i;

/**
 * Every /admin request carries `Authorization: Bearer <operator token>`; the
 * token is compared as a salted hash in constant time and never logged.
 * Wrong tokens are counted per client address (in memory only) and answered 429
 * once there are too many, so a weak configured token cannot be guessed fast.
 * A request that presents no token is answered 401 and not counted: it guesses
 * nothing, and any web page can make the operator's browser send one (an
 * `<img>`), which would otherwise lock the operator out (docs/security.md).
 */
export function requireOperator(verify: (token: string) => boolean, now: () => number = Date.now): RequestHandler {
  const failures = new SlidingWindowLimiter(ADMIN_FAILURES_PER_MINUTE, 60_000);
  const blocked = new Map<string, number>();
  return (req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    // The client address after the trusted proxies only (http.trustProxy), an IPv6 client by its /64:
    // a forged X-Forwarded-For does not make a new client.
    const client = clientKeyOf(req.ip ?? req.socket.remoteAddress);
    const until = blocked.get(client);
    if (until !== undefined && until > now()) {
      res.setHeader("Retry-After", String(Math.ceil((until - now()) / 1000)));
      return sendError(res, 429, ErrorName.RateLimited, "too many failed sign-ins; wait and try again");
    }
    const m = BEARER.exec(req.get("authorization") ?? "");
    if (m && verify(m[1]!)) return next();
    if (m) {
      const d = failures.take(client, now());
      if (!d.allowed || d.remaining === 0) blocked.set(client, now() + d.resetSec * 1000);
      else blocked.delete(client);
    }
    res.setHeader("WWW-Authenticate", 'Bearer realm="relay-admin"');
    sendError(res, 401, ErrorName.Unauthorized, m ? "the operator token is not valid" : "send Authorization: Bearer <operator token>");
  };
}
