import type { Decoder } from "../../src-shared/api/decode";

/**
 * The console's only way to the relay: a small fetch wrapper that turns every
 * failure into one of two errors the UI can explain.
 */

/** The relay answered, but not with success. `code` is the wire error name (`PoolNotFound`, ...). */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** The relay could not be reached at all (down, wrong address, connection reset). */
export class UnreachableError extends Error {
  override name = "UnreachableError";
  constructor(
    readonly base: string,
    cause: unknown,
  ) {
    super(`No answer from ${base}${cause instanceof Error && cause.message ? ` (${cause.message})` : ""}`);
  }
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Statuses besides 2xx whose body is still the answer (e.g. a 503 that carries a report). */
  acceptStatuses?: readonly number[];
}

export interface ApiClient {
  /** Origin of the relay, shown to the operator. */
  readonly base: string;
  getText(path: string, opts?: RequestOptions): Promise<string>;
  getJson(path: string, opts?: RequestOptions): Promise<unknown>;
  postJson(path: string, body?: unknown, opts?: RequestOptions): Promise<unknown>;
  /** POST with a JSON body, answered in plain text (e.g. /revert's transaction signature). */
  postText(path: string, body?: unknown, opts?: RequestOptions): Promise<string>;
}

type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** How the client authenticates to the admin API: the operator token, and what to do when it is refused. */
export interface OperatorAuth {
  token(): string | null;
  /** Called on a 401 from /admin: the token is no longer (or never was) valid. */
  onUnauthorized(): void;
}

/** Only /admin paths carry the operator token; the public API never sees it. */
export const isAdminPath = (path: string): boolean => path === "/admin" || path.startsWith("/admin/");

export function createApiClient(base: string, fetchImpl: FetchLike = (i, init) => fetch(i, init), auth?: OperatorAuth): ApiClient {
  async function send(method: "GET" | "POST", path: string, body: unknown, opts: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: "application/json, text/plain" };
    const admin = isAdminPath(path);
    const token = admin ? auth?.token() : null;
    if (token) headers.authorization = `Bearer ${token}`;
    const init: RequestInit = { method, headers, cache: "no-store" };
    if (opts.signal) init.signal = opts.signal;
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await fetchImpl(base + path, init);
    } catch (err) {
      if (err instanceof DOMException && err.name === "AbortError") throw err;
      throw new UnreachableError(base, err);
    }
    if (admin && res.status === 401) auth?.onUnauthorized();
    if (!res.ok && !(opts.acceptStatuses ?? []).includes(res.status)) throw await toApiError(res);
    return res;
  }

  async function json(res: Response): Promise<unknown> {
    const text = await res.text();
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new ApiError(res.status, "UnexpectedResponse", "The relay answered with something other than JSON");
    }
  }

  return {
    base,
    getText: async (path, opts) => (await send("GET", path, undefined, opts)).text(),
    getJson: async (path, opts) => json(await send("GET", path, undefined, opts)),
    postJson: async (path, body, opts) => json(await send("POST", path, body, opts)),
    postText: async (path, body, opts) => (await send("POST", path, body, opts)).text(),
  };
}

/** Reads `{ error, message }` (the relay's error convention) or a plain-text body. */
async function toApiError(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => "");
  let code: string | undefined;
  let message = text.trim();
  try {
    const body = JSON.parse(text) as unknown;
    if (body && typeof body === "object") {
      const b = body as Record<string, unknown>;
      if (typeof b.error === "string") code = b.error;
      if (typeof b.message === "string") message = b.message;
      else if (code) message = code;
    }
  } catch {
    // plain text: keep it as the message
  }
  return new ApiError(res.status, code, message || `HTTP ${res.status} ${res.statusText}`.trim());
}

/**
 * Checks an answer against its wire contract (src-shared/api/), so components can trust their
 * types: a malformed answer is an ApiError naming the field, not a crash.
 */
export function decodeAnswer<T>(body: unknown, contract: Decoder<T>, what: string): T {
  const r = contract(body);
  if (!r.ok) throw new ApiError(200, "UnexpectedResponse", `The relay's ${what} answer has an unexpected shape: ${r.error}`);
  return r.value;
}
