/** What every RelayClient call answers: a value, or a named failure. */
/** Names for failures that happen before or after the relay could name one. */
export const ClientError = {
  /** No answer within the request timeout. */
  Timeout: "Timeout",
  /** Connection refused, DNS failure, reset: the relay was not reached. */
  NetworkError: "NetworkError",
  /** The relay answered 2xx with a body that does not have the documented shape. */
  BadResponse: "BadResponse",
  /**
   * The sandbox answered a deposit with a leaf other than Poseidon(precommitment,
   * amount, mintField): the note's secrets do not open what the pool inserted.
   */
  LeafMismatch: "LeafMismatch",
  /** A Solana JSON-RPC read the SDK made instead of asking the relay failed or answered nonsense (docs/privacy.md). */
  RpcError: "RpcError",
} as const;

export interface ApiSuccess<T> {
  ok: true;
  status: number;
  value: T;
}

/**
 * An expected failure: `error` is the spec's error name as the relay sent it
 * (`InvalidRoot`, `Message too old`, `OFAC check failed`, ...) or one of
 * {@link ClientError} with status 0 when no answer arrived.
 */
export interface ApiFailure {
  ok: false;
  status: number;
  error: string;
  message?: string;
  /** Seconds from Retry-After on a 429, for callers that schedule their own retry. */
  retryAfterSec?: number;
}

export type ApiResult<T> = ApiSuccess<T> | ApiFailure;
