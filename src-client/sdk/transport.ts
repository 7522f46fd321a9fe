/**
 * The relay client's HTTP transport: one request with a timeout covering the
 * body, the 2xx body decoded (JSON through a decoder, or text), other
 * statuses turned into named failures, and optional retries of 429 after
 * Retry-After.
 */
import { err, ok, type Result } from "../../src-shared/result";
import { ClientError, type ApiFailure, type ApiResult } from "./api-result";
import type { Decoder } from "../../src-shared/api/decode";

export interface RetryOn429 {
  /** Further attempts after the first 429. Default 3. */
  maxRetries?: number;
  /** A Retry-After longer than this is returned to the caller instead of slept through. Default 60 000. */
  maxWaitMs?: number;
  /** Told before each wait, so an interactive tool can say why it is pausing. */
  onWait?: (waitMs: number, path: string) => void;
}

export interface TransportOptions {
  /** e.g. `http://127.0.0.1:8080`; a trailing slash is ignored. */
  baseUrl: string;
  /** Per attempt, covering the body as well as the headers. Default 10 000 ms. */
  timeoutMs?: number;
  /** Off by default: a 429 comes back as a failure carrying retryAfterSec. */
  retryOn429?: boolean | RetryOn429;
  /** Injected in tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Injected in tests so a Retry-After does not really sleep. */
  sleep?: (ms: number) => Promise<void>;
}

export interface CallSpec<T> {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** How a 2xx body becomes T. */
  read: { json: Decoder<T> } | { text: (text: string) => Result<T, string> };
  /** Non-2xx statuses that are answers rather than failures (e.g. /health's 503). */
  answerStatuses?: readonly number[];
}

/** Sends CallSpecs to one relay. */
export class HttpTransport {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /** The retryOn429 option as given (another client of the same relay takes it over). */
  readonly retryOption: TransportOptions["retryOn429"];
  readonly sleep: (ms: number) => Promise<void>;
  private readonly retry: { maxRetries: number; maxWaitMs: number; onWait?: RetryOn429["onWait"] } | null;
  private readonly fetchImpl: typeof fetch;

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? 10_000;
    const r = options.retryOn429;
    const retry: RetryOn429 = r === true ? {} : r || {};
    this.retry = r ? { maxRetries: retry.maxRetries ?? 3, maxWaitMs: retry.maxWaitMs ?? 60_000, onWait: retry.onWait } : null;
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.retryOption = options.retryOn429;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  async call<T>(spec: CallSpec<T>): Promise<ApiResult<T>> {
    // A 429 is refused before the relay acts, so retrying even a deposit or relay cannot double it.
    for (let attempt = 0; ; attempt++) {
      const result = await this.once(spec);
      if (result.ok || result.status !== 429 || !this.retry || attempt >= this.retry.maxRetries) return result;
      const waitMs = (result.retryAfterSec ?? 1) * 1000;
      if (waitMs > this.retry.maxWaitMs) return result;
      this.retry.onWait?.(waitMs, spec.path);
      await this.sleep(waitMs);
    }
  }

  private async once<T>(spec: CallSpec<T>): Promise<ApiResult<T>> {
    const headers: Record<string, string> = { accept: "application/json, text/plain", ...spec.headers };
    if (spec.body !== undefined) headers["content-type"] = "application/json";
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      const res = await this.fetchImpl(this.baseUrl + spec.path, {
        method: spec.method,
        headers,
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = res.status;
      retryAfter = res.headers.get("retry-after");
      text = await res.text();
    } catch (e) {
      const name = e instanceof Error ? e.name : "";
      if (name === "TimeoutError" || name === "AbortError") {
        return { ok: false, status: 0, error: ClientError.Timeout, message: `no answer from ${this.baseUrl} within ${this.timeoutMs} ms` };
      }
      return { ok: false, status: 0, error: ClientError.NetworkError, message: describeFetchError(e, this.baseUrl) };
    }

    const isAnswer = (status >= 200 && status < 300) || (spec.answerStatuses ?? []).includes(status);
    if (!isAnswer) return failureFrom(status, text, retryAfter);

    const decoded = "json" in spec.read ? decodeJson(text, spec.read.json) : spec.read.text(text);
    if (!decoded.ok) return { ok: false, status, error: ClientError.BadResponse, message: `${spec.method} ${spec.path}: ${decoded.error}` };
    return { ok: true, status, value: decoded.value };
  }
}

/** A text answer: its trimmed text, refused when empty. */
export const nonEmptyText = (t: string): Result<string, string> => (t.trim() ? ok(t.trim()) : err("empty body"));

function decodeJson<T>(text: string, decode: Decoder<T>): Result<T, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return err(`body is not JSON: ${text.slice(0, 80)}`);
  }
  return decode(parsed);
}

/**
 * The relay names errors as `{error, message?}` (relay endpoints add `status`);
 * the spec's compliance refusal is plain text (`OFAC check failed`), so a
 * short text body is taken as the name too.
 */
export function failureFrom(status: number, text: string, retryAfter: string | null): ApiFailure {
  const failure: ApiFailure = { ok: false, status, error: `HTTP ${status}` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
    const body = parsed as Record<string, unknown>;
    if (typeof body.error === "string") failure.error = body.error;
    if (typeof body.message === "string") failure.message = body.message;
  } else if (typeof parsed === "string") {
    failure.error = parsed;
  } else if (text.trim() && text.length <= 200 && !/^\s*</.test(text)) {
    failure.error = text.trim();
  }
  const after = parseRetryAfter(retryAfter);
  if (after !== null) failure.retryAfterSec = after;
  return failure;
}

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^[0-9]+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

function describeFetchError(e: unknown, baseUrl: string): string {
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause : e;
  const code = typeof cause === "object" && cause !== null && "code" in cause ? String((cause as { code: unknown }).code) : "";
  const msg = cause instanceof Error ? cause.message : String(cause);
  return `cannot reach ${baseUrl}: ${code ? `${code} ` : ""}${msg}`;
}
