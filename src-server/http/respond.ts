import type { Response } from "express";
import { ErrorName, type ErrorNameValue } from "../../src-shared/errors";

/** Indexer, auth, sandbox and helper errors: `{ error, message? }` with the status. */
export function sendError(res: Response, status: number, error: ErrorNameValue, message?: string): void {
  res.status(status).json(message ? { error, message } : { error });
}

/** Relay endpoints: the body carries the status too, and the HTTP status equals it (DESIGN §4). */
export function sendRelayError(res: Response, status: number, error: ErrorNameValue, message?: string): void {
  res.status(status).json(message ? { status, error, message } : { status, error });
}

export const invalidRequest = (res: Response, message: string): void => sendError(res, 400, ErrorName.InvalidRequest, message);

const BYTE_TEXT = Array.from({ length: 256 }, (_, i) => String(i));

/**
 * JSON of a byte array without building a number[] first: get_proof writes
 * 1,024 of these per answer, and this is most of its cost.
 */
export function byteArrayJson(bytes: Uint8Array): string {
  let s = "[";
  for (let i = 0; i < bytes.length; i++) s += (i ? "," : "") + BYTE_TEXT[bytes[i]!]!;
  return s + "]";
}

export function sendJsonText(res: Response, json: string): void {
  res.status(200).type("application/json").send(json);
}
