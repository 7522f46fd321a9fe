import type { Request, Response, Router } from "express";
import type { Decoder } from "../../../../src-shared/api/decode";
import { isAdminRange, type AdminRange } from "../../../../src-shared/api/admin";
import { parsePublicKey } from "../../../../src-shared/encoding/base58";
import { ErrorName } from "../../../../src-shared/errors";
import { isNetwork, type Network } from "../../../../src-shared/networks";
import { invalidRequest, sendAnswer, sendError } from "../../respond";

/** Query and path readers for /admin: each answers the error itself and returns undefined on bad input. */

const first = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);

export function optionalNetwork(req: Request, res: Response, name = "network"): Network | null | undefined {
  const v = first(req.query[name] ?? req.params[name]);
  if (v === undefined || v === "") return null;
  if (!isNetwork(v)) return (sendError(res, 400, ErrorName.InvalidNetwork, `${name} must be mainnet or devnet`), undefined);
  return v;
}

export function optionalMint(req: Request, res: Response, name = "mint"): string | null | undefined {
  const v = first(req.query[name] ?? req.params[name]);
  if (v === undefined || v === "") return null;
  if (!parsePublicKey(v).ok) return (sendError(res, 400, ErrorName.InvalidMint, `${name} must be a base58 public key`), undefined);
  return v as string;
}

export function range(req: Request, res: Response, fallback: AdminRange): AdminRange | undefined {
  const v = first(req.query.range);
  if (v === undefined || v === "") return fallback;
  if (!isAdminRange(v)) return (invalidRequest(res, "range must be 24h, 7d or 30d"), undefined);
  return v;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * GET `<path>/:id` for one record by its UUID (any case): 400 InvalidRequest for
 * another id, 404 NotFound with `missing` when there is no such record.
 */
export function getRecordById<T>(r: Router, path: string, what: string, find: (id: string) => Promise<T | null>, contract: Decoder<T>, missing: string): void {
  r.get(`${path}/:id`, async (req, res) => {
    const id = String(req.params.id ?? "").toLowerCase();
    if (!UUID.test(id)) return invalidRequest(res, `id must be a ${what} id (UUID)`);
    const found = await find(id);
    if (!found) return sendError(res, 404, ErrorName.NotFound, missing);
    sendAnswer(res, contract, found);
  });
}

export function optionalInt(req: Request, res: Response, name: string, min: number, max: number): number | null | undefined {
  const v = first(req.query[name]);
  if (v === undefined || v === "") return null;
  const n = typeof v === "string" && /^-?[0-9]{1,16}$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) return (invalidRequest(res, `${name} must be an integer from ${min} to ${max}`), undefined);
  return n;
}
