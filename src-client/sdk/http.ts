import type { Network } from "../../src-shared/networks";
import { U64_MAX } from "../../src-shared/crypto/protocol";
import { err, ok, type Result } from "../../src-shared/result";
import {
  decodeBalance,
  decodeBoolean,
  decodeCompliancePublicKey,
  decodeFeeSchedule,
  decodeHealthDetail,
  decodeNetworks,
  decodeLogin,
  decodeMerkleNode,
  decodeMerkleProof,
  decodeMerkleState,
  decodeNullifierStatus,
  decodeOkTrue,
  decodeRelaySuccess,
  decodeSandboxDeposit,
  decodeSignatureAnswer,
  decodeSwapQuote,
  parseOfacSignature,
  type CompliancePublicKey,
  type Decoder,
  type FeeSchedule,
  type HealthAnswer,
  type HealthDetail,
  type RelayNetwork,
  type MerkleNode,
  type MerkleProof,
  type MerkleState,
  type NullifierStatus,
  type OfacSignature,
  type RelaySuccess,
  type SandboxDepositAnswer,
  type SwapQuote,
} from "./wire";

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

export interface RetryOn429 {
  /** Further attempts after the first 429. Default 3. */
  maxRetries?: number;
  /** A Retry-After longer than this is returned to the caller instead of slept through. Default 60 000. */
  maxWaitMs?: number;
  /** Told before each wait, so an interactive tool can say why it is pausing. */
  onWait?: (waitMs: number, path: string) => void;
}

export interface RelayClientOptions {
  /** e.g. `http://127.0.0.1:8080`; a trailing slash is ignored. */
  baseUrl: string;
  /** Per attempt, covering the body as well as the headers. Default 10 000 ms. */
  timeoutMs?: number;
  /** Off by default: a 429 comes back as a failure carrying retryAfterSec. */
  retryOn429?: boolean | RetryOn429;
  /** Sent as `x-api-auth` on /relay and /relay_swap (DESIGN §4). */
  authToken?: string;
  /** Injected in tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Injected in tests so a Retry-After does not really sleep. */
  sleep?: (ms: number) => Promise<void>;
}

/** Amounts are bigint in the SDK; the wire carries JSON numbers, which stay exact only up to 2^53 - 1. */
export type Amount = bigint | number;

export interface LoginRequest {
  wallet: string;
  signature: string;
  message: number;
}

export interface WithdrawalRequest {
  nullifierHash: Uint8Array;
  proof: Uint8Array;
  root: Uint8Array;
  recipient: string;
  depositSize: Amount;
  mint: string;
  network?: Network;
  /**
   * Protocol v2 (DESIGN §8): the fee the proof was made for, in base units of
   * the withdrawn mint. Left out, the relay charges its published fee, so a
   * proof bound to any other fee is then refused (InvalidProof).
   */
  fee?: Amount;
  /** The relayer key the proof was made for (GET /fees `relayers[network]`); another key is refused. */
  relayer?: string;
}

export interface SwapWithdrawalRequest extends Omit<WithdrawalRequest, "mint"> {
  input_mint: string;
  output_mint: string;
  /** The least the recipient must receive of output_mint, in its base units; bound by the proof, sent as decimal text. */
  minOut: Amount;
}

export interface RevertRequest {
  wallet: string;
  signature: string;
  message: string;
}

export interface SwapQuoteRequest {
  inputMint: string;
  outputMint: string;
  amount: Amount;
  /** Left out: the relay applies the pair's slippage (10 bps for two stablecoins, 50 standard, ...). */
  slippageBps?: number;
  /** Empty or left out: every venue. */
  dexes?: string[];
  network?: Network;
}

export interface SandboxAirdropRequest {
  network: Network;
  wallet: string;
  mint: string;
  amount: Amount;
}

export interface SandboxDepositRequest {
  network: Network;
  mint: string;
  amount: Amount;
  /** Poseidon(nullifier, secret): the pool computes the leaf from it (protocol v2). */
  precommitment: Uint8Array;
  wallet: string;
  signature: string;
}

export interface SandboxSwapPoolRequest {
  network: Network;
  mintA: string;
  mintB: string;
  reserveA: Amount;
  reserveB: Amount;
}

export const TREE_DEPTH = 32;

/** A JSON number for an amount, refusing values JSON would silently round. */
export function amountToWire(amount: Amount): number {
  const n = typeof amount === "bigint" ? Number(amount) : amount;
  if (!Number.isSafeInteger(n) || n < 0 || (typeof amount === "bigint" && BigInt(n) !== amount)) {
    throw new RangeError(`amount ${amount} is not an integer from 0 to 2^53 - 1`);
  }
  return n;
}

/** A u64 as decimal text: minOut may exceed what a JSON number carries exactly. */
export function u64ToWire(value: Amount, what: string): string {
  const v = typeof value === "number" ? (Number.isSafeInteger(value) ? BigInt(value) : -1n) : value;
  if (v < 0n || v > U64_MAX) throw new RangeError(`${what} ${value} is not an integer from 0 to 2^64 - 1`);
  return v.toString();
}

/**
 * The relayer's fee on a withdrawal of `depositSize` from a pool, and what
 * the recipient receives: fee = max(floor, floor(depositSize · bps / 10 000)).
 * Null when the deposit does not cover the fee (the relay refuses it).
 */
export function relayFee(schedule: FeeSchedule, network: Network, mint: string, depositSize: bigint): { fee: bigint; toRecipient: bigint; bps: number; floor: bigint } | null {
  const setting = schedule.pools[network]?.[mint] ?? schedule.default;
  const proportional = (depositSize * BigInt(setting.bps)) / 10_000n;
  const fee = proportional > setting.floor ? proportional : setting.floor;
  return fee >= depositSize ? null : { fee, toRecipient: depositSize - fee, bps: setting.bps, floor: setting.floor };
}

const bytes = (b: Uint8Array): number[] => Array.from(b);
const seg = (s: string | number): string => encodeURIComponent(String(s));

interface CallSpec<T> {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** How a 2xx body becomes T. */
  read: { json: Decoder<T> } | { text: (text: string) => Result<T, string> };
  /** Non-2xx statuses that are answers rather than failures (e.g. /health's 503). */
  answerStatuses?: readonly number[];
}

/**
 * A typed client for every endpoint of SPEC.md, DESIGN.md §6 and
 * /health/detail. Expected failures come back as {@link ApiFailure} values;
 * only programming errors (an amount JSON cannot carry) throw.
 */
export class RelayClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  authToken: string | undefined;
  private readonly retry: { maxRetries: number; maxWaitMs: number; onWait?: RetryOn429["onWait"] } | null;
  private readonly fetchImpl: typeof fetch;
  /** The fetch given in the options (tests inject one); undefined for the global fetch. */
  readonly injectedFetch: typeof fetch | undefined;
  private readonly retryOption: RelayClientOptions["retryOn429"];
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: RelayClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.authToken = options.authToken;
    const r = options.retryOn429;
    const retry: RetryOn429 = r === true ? {} : r || {};
    this.retry = r ? { maxRetries: retry.maxRetries ?? 3, maxWaitMs: retry.maxWaitMs ?? 60_000, onWait: retry.onWait } : null;
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.injectedFetch = options.fetch;
    this.retryOption = options.retryOn429;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /**
   * Another client of the same relay with no token, sending through `fetchImpl`
   * (default: this client's injected fetch, else the global one): for requests
   * that must not be tied to this client's login (docs/privacy.md).
   */
  withoutSession(fetchImpl?: typeof fetch): RelayClient {
    const f = fetchImpl ?? this.injectedFetch;
    return new RelayClient({ baseUrl: this.baseUrl, timeoutMs: this.timeoutMs, sleep: this.sleep, ...(f ? { fetch: f } : {}), ...(this.retryOption !== undefined ? { retryOn429: this.retryOption } : {}) });
  }

  // ---- authentication ----

  login(req: LoginRequest): Promise<ApiResult<{ id: string }>> {
    return this.call({ method: "POST", path: "/login", body: req, read: { json: decodeLogin } });
  }

  isLogged(id: string): Promise<ApiResult<boolean>> {
    return this.call({ method: "GET", path: `/is_logged/${seg(id)}`, read: { json: decodeBoolean } });
  }

  // ---- indexer ----

  getMerkle(mint: string, network: Network): Promise<ApiResult<MerkleState>> {
    return this.call({ method: "POST", path: `/get_merkle/${seg(mint)}/${TREE_DEPTH}/${seg(network)}`, read: { json: decodeMerkleState } });
  }

  getProof(mint: string, index: number, network: Network): Promise<ApiResult<MerkleProof>> {
    return this.call({ method: "POST", path: `/get_proof/${seg(mint)}/${TREE_DEPTH}/${seg(index)}/${seg(network)}`, read: { json: decodeMerkleProof } });
  }

  /** Heap order (DESIGN §4): 1 is the root, leaf j is 2^32 + j. */
  getNode(mint: string, index: number, network: Network): Promise<ApiResult<MerkleNode>> {
    return this.call({ method: "POST", path: `/get_node/${seg(mint)}/${TREE_DEPTH}/${seg(index)}/${seg(network)}`, read: { json: decodeMerkleNode } });
  }

  getNullifier(mint: string, nullifierHash: Uint8Array, network: Network): Promise<ApiResult<NullifierStatus>> {
    return this.call({
      method: "POST",
      path: `/get_nullifier/${seg(mint)}/${TREE_DEPTH}/${seg(network)}`,
      body: { nullifierHash: bytes(nullifierHash) },
      read: { json: decodeNullifierStatus },
    });
  }

  // ---- relayer ----

  relay(req: WithdrawalRequest): Promise<ApiResult<RelaySuccess>> {
    const { mint, ...rest } = req;
    return this.call({ method: "POST", path: "/relay", body: { ...withdrawalWire(rest), mint }, headers: this.authHeader(), read: { json: decodeRelaySuccess } });
  }

  relaySwap(req: SwapWithdrawalRequest): Promise<ApiResult<RelaySuccess>> {
    const { input_mint, output_mint, minOut, ...rest } = req;
    return this.call({
      method: "POST",
      path: "/relay_swap",
      body: { ...withdrawalWire(rest), input_mint, output_mint, minOut: u64ToWire(minOut, "minOut") },
      headers: this.authHeader(),
      read: { json: decodeRelaySuccess },
    });
  }

  /** GET /fees: what the relayer keeps of a withdrawal; see {@link relayFee}. */
  fees(): Promise<ApiResult<FeeSchedule>> {
    return this.call({ method: "GET", path: "/fees", read: { json: decodeFeeSchedule } });
  }

  /** Answers the revert transaction's signature (plain text in the spec). */
  revert(network: Network, token: string, depositSignature: string, req: RevertRequest): Promise<ApiResult<string>> {
    return this.call({ method: "POST", path: `/revert/${seg(network)}/${seg(token)}/${seg(depositSignature)}`, body: req, read: { text: nonEmptyText } });
  }

  // ---- compliance ----

  getOfacSignature(network: Network, token: string): Promise<ApiResult<OfacSignature>> {
    return this.call({
      method: "POST",
      path: `/get_ofac_signature/${seg(network)}/${seg(token)}`,
      read: { text: (t) => (t.trim() ? ok(parseOfacSignature(t)) : err("empty body")) },
    });
  }

  /** The relay's compliance key and the form of the text it signs (DESIGN §4). */
  compliancePublicKey(): Promise<ApiResult<CompliancePublicKey>> {
    return this.call({ method: "GET", path: "/compliance/public_key", read: { json: decodeCompliancePublicKey } });
  }

  // ---- helpers ----

  quote(req: SwapQuoteRequest): Promise<ApiResult<SwapQuote>> {
    return this.call({ method: "POST", path: "/jupiter", body: { ...req, amount: amountToWire(req.amount) }, read: { json: decodeSwapQuote } });
  }

  /** 200 and 503 are both answers here: unhealthy is what /health exists to report. */
  async health(): Promise<ApiResult<HealthAnswer>> {
    const r = await this.call({ method: "GET", path: "/health", answerStatuses: [503], read: { text: (t) => ok(t.trim()) } });
    return r.ok ? { ...r, value: { healthy: r.status === 200 && r.value === "ok", status: r.status, text: r.value } } : r;
  }

  /** Every check as JSON; the relay asks for its operator token (Authorization: Bearer), 401 otherwise. */
  healthDetail(operatorToken: string): Promise<ApiResult<HealthDetail>> {
    return this.call({ method: "GET", path: "/health/detail", headers: { authorization: `Bearer ${operatorToken}` }, answerStatuses: [503], read: { json: decodeHealthDetail } });
  }

  /** GET /networks: each enabled network's backend, whether it is the sandbox, and its program id. */
  networks(): Promise<ApiResult<RelayNetwork[]>> {
    return this.call({ method: "GET", path: "/networks", read: { json: decodeNetworks } });
  }

  version(): Promise<ApiResult<string>> {
    return this.call({ method: "GET", path: "/version", read: { text: nonEmptyText } });
  }

  // ---- sandbox (DESIGN §6) ----

  sandboxAirdrop(req: SandboxAirdropRequest): Promise<ApiResult<{ signature: string }>> {
    return this.call({ method: "POST", path: "/sandbox/airdrop", body: { ...req, amount: amountToWire(req.amount) }, read: { json: decodeSignatureAnswer } });
  }

  sandboxDeposit(req: SandboxDepositRequest): Promise<ApiResult<SandboxDepositAnswer>> {
    return this.call({
      method: "POST",
      path: "/sandbox/deposit",
      body: { ...req, amount: amountToWire(req.amount), precommitment: bytes(req.precommitment) },
      read: { json: decodeSandboxDeposit },
    });
  }

  sandboxBalance(network: Network, wallet: string, mint: string): Promise<ApiResult<{ amount: bigint }>> {
    return this.call({ method: "GET", path: `/sandbox/balance/${seg(network)}/${seg(wallet)}/${seg(mint)}`, read: { json: decodeBalance } });
  }

  sandboxSwapPool(req: SandboxSwapPoolRequest): Promise<ApiResult<{ ok: true }>> {
    return this.call({
      method: "POST",
      path: "/sandbox/swap_pool",
      body: { ...req, reserveA: amountToWire(req.reserveA), reserveB: amountToWire(req.reserveB) },
      read: { json: decodeOkTrue },
    });
  }

  // ---- transport ----

  private authHeader(): Record<string, string> {
    return this.authToken ? { "x-api-auth": this.authToken } : {};
  }

  private async call<T>(spec: CallSpec<T>): Promise<ApiResult<T>> {
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

function withdrawalWire(req: Omit<WithdrawalRequest, "mint">): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    nullifierHash: bytes(req.nullifierHash),
    proof: bytes(req.proof),
    root: bytes(req.root),
    recipient: req.recipient,
    depth: TREE_DEPTH,
    depositSize: amountToWire(req.depositSize),
    network: req.network ?? "mainnet",
  };
  if (req.fee !== undefined) wire.fee = amountToWire(req.fee);
  if (req.relayer !== undefined) wire.relayer = req.relayer;
  return wire;
}

const nonEmptyText = (t: string): Result<string, string> => (t.trim() ? ok(t.trim()) : err("empty body"));

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
