import { parsePublicKey } from "../../src-shared/encoding/base58";
import { ErrorName, type ErrorNameValue } from "../../src-shared/errors";
import { isNetwork, type Network } from "../../src-shared/networks";
import { err, ok, type Result } from "../../src-shared/result";

/** A path's parameters by name, as Express's `req.params` holds them. */
export type PathParams = Readonly<Record<string, string | string[]>>;

export interface ParamError {
  status: number;
  error: ErrorNameValue;
  message: string;
}

const bad = (error: ErrorNameValue, message: string): { ok: false; error: ParamError } => err({ status: 400, error, message });

export function parseNetworkParam(value: unknown, enabled: (n: Network) => boolean): Result<Network, ParamError> {
  if (!isNetwork(value)) return bad(ErrorName.InvalidNetwork, "network must be mainnet or devnet");
  if (!enabled(value)) return bad(ErrorName.InvalidNetwork, `network ${value} is not enabled on this relay`);
  // The literal, not the path's copy of it: maps keyed by network then hash a string whose hash V8 keeps.
  return ok(value === "mainnet" ? "mainnet" : "devnet");
}

export function parseDepthParam(value: unknown): Result<32, ParamError> {
  return value === "32" || value === 32 ? ok(32) : bad(ErrorName.InvalidDepth, "depth must be 32");
}

export function parseMintParam(value: unknown): Result<{ mint: string; bytes: Uint8Array }, ParamError> {
  const parsed = parsePublicKey(value);
  if (!parsed.ok) return bad(ErrorName.InvalidMint, `mint: ${parsed.error}`);
  return ok({ mint: value as string, bytes: parsed.value });
}

/** A non-negative integer index below `limit`, from a path segment. */
export function parseIndexParam(value: unknown, limit: number): Result<number, ParamError> {
  if (typeof value !== "string" || value.length === 0 || value.length > 16) return bad(ErrorName.InvalidRequest, "index must be a non-negative integer");
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const d = value.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return bad(ErrorName.InvalidRequest, "index must be a non-negative integer");
    n = n * 10 + d;
  }
  if (!Number.isSafeInteger(n) || n >= limit) return bad(ErrorName.IndexOutOfRange, `index must be below ${limit}`);
  return ok(n);
}
