import type { ServerResponse } from "node:http";
import { decodeBody, type CrossRules, type ParsedOf, type RequestBody, type Shape } from "../../src-shared/api/request-fields";
import { sendError } from "./respond";

/**
 * A body decoded by its declaration (src-shared/api/), with the route's own rules, or null
 * once the 400 naming the field is answered: `{ error, message }` with the field's error name.
 */
export function decodedOr400<S extends Shape>(
  res: ServerResponse,
  decl: RequestBody<S>,
  body: unknown,
  rules: CrossRules<S> = {},
): ParsedOf<{ shape: S }> | null {
  const decoded = decodeBody(decl, body, rules);
  if (decoded.ok) return decoded.value;
  sendError(res, 400, decoded.error.error, decoded.error.message);
  return null;
}
