/**
 * What the HTTP methods and the websocket subscriptions share: JSON-RPC
 * errors, parameter checks, and accounts in the RPC's encodings.
 */
import { PublicKey } from "@solana/web3.js";
import bs58 from "bs58";
import type { Commitment } from "../ledger/types";
import type { AccountState } from "../ledger/engine";

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

export const invalidParams = (message: string) => new RpcError(-32602, message);

/** u64::MAX, what agave reports as the rent epoch of every rent-exempt account; as a double it rounds to 2^64, the value a JSON client reads. */
export const RENT_EPOCH = 2 ** 64;

export type Params = unknown[];

export function asParams(params: unknown): Params {
  if (params === undefined || params === null) return [];
  if (Array.isArray(params)) return params;
  return [params];
}

export function configAt(params: Params, index: number): Record<string, unknown> {
  const c = params[index];
  if (c === undefined || c === null) return {};
  if (typeof c !== "object" || Array.isArray(c)) throw invalidParams(`Invalid params: expected a config object at position ${index}`);
  return c as Record<string, unknown>;
}

export function pubkeyParam(value: unknown, what = "pubkey"): string {
  if (typeof value !== "string") throw invalidParams(`Invalid param: ${what} must be a base58 string`);
  try {
    const bytes = bs58.decode(value);
    if (bytes.length !== 32) throw new Error("length");
    return new PublicKey(bytes).toBase58();
  } catch {
    throw invalidParams("Invalid param: Invalid");
  }
}

export function commitmentParam(config: Record<string, unknown>, fallback: Commitment = "finalized"): Commitment {
  const c = config.commitment;
  if (c === undefined || c === null) return fallback;
  switch (c) {
    case "processed":
    case "recent":
      return "processed";
    case "confirmed":
    case "single":
    case "singleGossip":
      return "confirmed";
    case "finalized":
    case "max":
    case "root":
      return "finalized";
    default:
      throw invalidParams(`Invalid params: unknown commitment ${JSON.stringify(c)}`);
  }
}

export function atLeastConfirmed(commitment: Commitment): void {
  if (commitment === "processed") throw invalidParams("Method does not support commitment below `confirmed`");
}

export type AccountEncoding = "base64" | "base58" | "jsonParsed" | "base64+zstd";

export function encodingParam(config: Record<string, unknown>, fallback: AccountEncoding = "base64"): AccountEncoding {
  const e = config.encoding ?? fallback;
  if (e === "base64" || e === "base58" || e === "jsonParsed" || e === "base64+zstd") return e;
  if (e === "binary") return "base58";
  throw invalidParams(`Invalid params: unknown encoding ${JSON.stringify(e)}`);
}

export interface DataSlice {
  offset: number;
  length: number;
}

export function dataSliceParam(config: Record<string, unknown>): DataSlice | null {
  const d = config.dataSlice as Partial<DataSlice> | undefined;
  if (!d) return null;
  if (!Number.isInteger(d.offset) || !Number.isInteger(d.length) || d.offset! < 0 || d.length! < 0) throw invalidParams("Invalid params: dataSlice");
  return { offset: d.offset!, length: d.length! };
}

export interface EncodedAccount {
  data: [string, string];
  executable: boolean;
  lamports: number;
  owner: string;
  rentEpoch: number;
  space: number;
}

/** An account as getAccountInfo shows it. jsonParsed falls back to base64; base64+zstd is answered as base64 too. */
export function encodeAccount(account: AccountState, encoding: AccountEncoding = "base64", slice: DataSlice | null = null): EncodedAccount {
  const data = slice ? account.data.subarray(slice.offset, slice.offset + slice.length) : account.data;
  let encoded: [string, string];
  if (encoding === "base58") {
    if (data.length > 128) throw invalidParams("Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.");
    encoded = [bs58.encode(data), "base58"];
  } else {
    encoded = [Buffer.from(data).toString("base64"), "base64"];
  }
  return {
    data: encoded,
    executable: account.executable,
    lamports: Number(account.lamports),
    owner: account.owner,
    rentEpoch: RENT_EPOCH,
    space: account.data.length,
  };
}

/** A deleted account as notifications show it. */
export const EMPTY_ACCOUNT: AccountState = {
  lamports: 0n,
  owner: "11111111111111111111111111111111",
  data: new Uint8Array(0),
  executable: false,
};

export type AccountFilter = { memcmp: { offset: number; bytes: Uint8Array } } | { dataSize: number };

export function filtersParam(value: unknown): AccountFilter[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidParams("Invalid params: filters must be an array");
  if (value.length > 4) throw invalidParams("Too many filters provided; max 4");
  return value.map((f: Record<string, unknown>) => {
    if (f && typeof f === "object" && "dataSize" in f) {
      if (!Number.isInteger(f.dataSize)) throw invalidParams("Invalid params: dataSize");
      return { dataSize: f.dataSize as number };
    }
    if (f && typeof f === "object" && f.memcmp && typeof f.memcmp === "object") {
      const m = f.memcmp as { offset?: unknown; bytes?: unknown; encoding?: unknown };
      if (!Number.isInteger(m.offset) || typeof m.bytes !== "string") throw invalidParams("Invalid params: memcmp");
      let bytes: Uint8Array;
      try {
        bytes = m.encoding === "base64" ? new Uint8Array(Buffer.from(m.bytes, "base64")) : bs58.decode(m.bytes);
      } catch {
        throw invalidParams("Invalid params: memcmp bytes");
      }
      if (bytes.length > 128) throw invalidParams("Invalid params: memcmp bytes too long");
      return { memcmp: { offset: m.offset as number, bytes } };
    }
    throw invalidParams(`Invalid params: unknown filter ${JSON.stringify(f)}`);
  });
}

export function matchesFilters(account: AccountState, filters: readonly AccountFilter[]): boolean {
  for (const f of filters) {
    if ("dataSize" in f) {
      if (account.data.length !== f.dataSize) return false;
    } else {
      const { offset, bytes } = f.memcmp;
      if (offset + bytes.length > account.data.length) return false;
      for (let i = 0; i < bytes.length; i++) if (account.data[offset + i] !== bytes[i]) return false;
    }
  }
  return true;
}
