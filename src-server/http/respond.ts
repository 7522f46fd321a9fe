import type { ServerResponse } from "node:http";
import type { Response } from "express";
import type { Decoder } from "../../src-shared/api/decode";
import { ErrorName, type ErrorNameValue } from "../../src-shared/errors";
import { STORE_UNAVAILABLE } from "../ports/store-errors";

/**
 * A JSON answer written with Node's own writeHead/end, so it works on a request
 * Express never saw (http/front-door.ts): the bytes and headers of Express's
 * `res.status(status).json(value)` with the app's settings (no ETag, no JSON
 * spacing; a POST is never answered 304).
 */
export function writeJson(res: ServerResponse, status: number, value: unknown): void {
  writeJsonText(res, status, JSON.stringify(value));
}

const HELD = Symbol("held-headers");
type Held = ServerResponse & { [HELD]?: string[] };

/**
 * Headers every answer carries (X-Request-Id, nosniff), held until the answer's own writeHead
 * writes them with its Content-Type and Content-Length in one list. A setHeader before writeHead
 * puts Node on its slow path, where every header is validated and stored twice: a tenth of a
 * get_proof's CPU. Only for an answer written through {@link writeJson} or {@link sendJsonText}
 * (the front door's reads); a header set with setHeader meanwhile (Retry-After) still goes out.
 */
export function holdHeader(res: ServerResponse, name: string, value: string): void {
  const held = res as Held;
  // The answer's own two headers lead the list (their values filled in when it is written), so the
  // list is writeHead's as it stands: no second array, no shifting, per answer.
  (held[HELD] ??= ["Content-Type", JSON_CONTENT_TYPE, "Content-Length", ""]).push(name, value);
}

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

function writeJsonText(res: ServerResponse, status: number, json: string | Uint8Array): void {
  const body = typeof json === "string" ? Buffer.from(json, "utf8") : json;
  const held = (res as Held)[HELD];
  if (held) {
    held[3] = String(body.length);
    res.writeHead(status, held);
  } else res.writeHead(status, { "Content-Type": JSON_CONTENT_TYPE, "Content-Length": body.length });
  res.end(body);
}

/** Indexer, auth, sandbox and helper errors: `{ error, message? }` with the status. */
export function sendError(res: ServerResponse, status: number, error: ErrorNameValue, message?: string): void {
  writeJson(res, status, message ? { error, message } : { error });
}

/**
 * 503 ServerBusy with `Retry-After` while the database cannot be reached (StoreUnavailable): nothing
 * was decided, and the same request may succeed once it is back. Relay endpoints carry the status in the body too.
 */
export function sendStoreUnavailable(res: ServerResponse, shape: "relay" | "plain"): void {
  const { error, message, retryAfterSec } = STORE_UNAVAILABLE;
  res.setHeader("Retry-After", String(retryAfterSec));
  writeJson(res, 503, shape === "relay" ? { status: 503, error, message } : { error, message });
}

/** Relay endpoints: the body carries the status too, and the HTTP status equals it. */
export function sendRelayError(res: Response, status: number, error: ErrorNameValue, message?: string): void {
  res.status(status).json(message ? { status, error, message } : { status, error });
}

/**
 * A 200 answer built as the type of its wire contract (src-shared/api/), the declaration the SDK and
 * the console decode it with: a route whose answer drifts from the contract fails typecheck.
 */
export function sendAnswer<T>(res: Response, _contract: Decoder<T>, body: NoInfer<T>): void {
  res.status(200).json(body);
}

export const invalidRequest = (res: ServerResponse, message: string): void => sendError(res, 400, ErrorName.InvalidRequest, message);

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

/** A 200 with a JSON text built by the route (the indexer's reads), written as {@link writeJson} writes. */
export function sendJsonText(res: ServerResponse, json: string | Uint8Array): void {
  writeJsonText(res, 200, json);
}

const BYTE_DIGITS = Array.from({ length: 256 }, (_, i) => Buffer.from(String(i), "latin1"));

/**
 * Builds an ASCII JSON answer straight into one buffer: a get_proof answer is
 * 1,024 numbers, and string concatenation was most of its cost.
 */
export class JsonBytes {
  private buf: Buffer;
  private pos = 0;

  constructor(capacity = 8192) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  /** Literal ASCII text (keys, punctuation, base58 addresses, decimal numbers). */
  text(s: string): this {
    this.ensure(s.length);
    this.pos += this.buf.write(s, this.pos, "latin1");
    return this;
  }

  /** A byte array as a JSON number array. */
  bytes(bytes: Uint8Array): this {
    this.ensure(bytes.length * 4 + 2);
    const b = this.buf;
    b[this.pos++] = 0x5b; // [
    for (let i = 0; i < bytes.length; i++) {
      if (i) b[this.pos++] = 0x2c; // ,
      const d = BYTE_DIGITS[bytes[i]!]!;
      for (let k = 0; k < d.length; k++) b[this.pos++] = d[k]!;
    }
    b[this.pos++] = 0x5d; // ]
    return this;
  }

  done(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
}
