/**
 * The SDK's relay client: one method per endpoint, each a request built from
 * requests.ts and sent through transport.ts, answering an ApiResult
 * (api-result.ts).
 */
import type { Network } from "../../src-shared/networks";
import { err, ok } from "../../src-shared/result";
import {
  decodeBalance,
  decodeBoolean,
  decodeCompliancePublicKey,
  decodeFeeSchedule,
  decodeHealthDetail,
  decodeNetworks,
  decodeLeafList,
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
  type FeeSchedule,
  type HealthAnswer,
  type HealthDetail,
  type LeafList,
  type RelayNetwork,
  type MerkleNode,
  type MerkleProof,
  type MerkleState,
  type NullifierStatus,
  type OfacSignature,
  type RelaySuccess,
  type SandboxDepositAnswer,
  type SwapQuote,
} from "../../src-shared/api/public";
import type { ApiResult } from "./api-result";
import { encodeBody } from "../../src-shared/api/request-fields";
import {
  loginRequest,
  nullifierRequest,
  quoteRequest,
  relayRequest,
  relaySwapRequest,
  revertRequest,
  sandboxAirdropRequest,
  sandboxDepositRequest,
  sandboxSwapPoolRequest,
} from "../../src-shared/api/requests";
import {
  TREE_DEPTH,
  type LoginRequest,
  type RevertRequest,
  type SandboxAirdropRequest,
  type SandboxDepositRequest,
  type SandboxSwapPoolRequest,
  type SwapQuoteRequest,
  type SwapWithdrawalRequest,
  type WithdrawalRequest,
} from "./requests";
import { HttpTransport, nonEmptyText, type TransportOptions } from "./transport";

export interface RelayClientOptions extends TransportOptions {
  /** Sent as `x-api-auth` on /relay and /relay_swap, the endpoints that require a login token. */
  authToken?: string;
}

const seg = (s: string | number): string => encodeURIComponent(String(s));

/**
 * A typed client for every endpoint of the relay's API (README.md: API
 * summary), the sandbox endpoints and /health/detail. Expected failures come back as {@link ApiFailure} values;
 * only programming errors (an amount JSON cannot carry) throw.
 */
export class RelayClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  authToken: string | undefined;
  /** The fetch given in the options (tests inject one); undefined for the global fetch. */
  readonly injectedFetch: typeof fetch | undefined;
  private readonly transport: HttpTransport;

  constructor(options: RelayClientOptions) {
    this.transport = new HttpTransport(options);
    this.baseUrl = this.transport.baseUrl;
    this.timeoutMs = this.transport.timeoutMs;
    this.authToken = options.authToken;
    this.injectedFetch = options.fetch;
  }

  /**
   * Another client of the same relay with no token, sending through `fetchImpl`
   * (default: this client's injected fetch, else the global one): for requests
   * that must not be tied to this client's login (docs/privacy.md).
   */
  withoutSession(fetchImpl?: typeof fetch): RelayClient {
    const f = fetchImpl ?? this.injectedFetch;
    const retryOption = this.transport.retryOption;
    return new RelayClient({
      baseUrl: this.baseUrl,
      timeoutMs: this.timeoutMs,
      sleep: this.transport.sleep,
      ...(f ? { fetch: f } : {}),
      ...(retryOption !== undefined ? { retryOn429: retryOption } : {}),
    });
  }

  // ---- authentication ----

  login(req: LoginRequest): Promise<ApiResult<{ id: string }>> {
    return this.transport.call({ method: "POST", path: "/login", body: encodeBody(loginRequest, req), read: { json: decodeLogin } });
  }

  isLogged(id: string): Promise<ApiResult<boolean>> {
    return this.transport.call({ method: "GET", path: `/is_logged/${seg(id)}`, read: { json: decodeBoolean } });
  }

  // ---- indexer ----

  getMerkle(mint: string, network: Network): Promise<ApiResult<MerkleState>> {
    return this.transport.call({ method: "POST", path: `/get_merkle/${seg(mint)}/${TREE_DEPTH}/${seg(network)}`, read: { json: decodeMerkleState } });
  }

  getProof(mint: string, index: number, network: Network): Promise<ApiResult<MerkleProof>> {
    return this.transport.call({
      method: "POST",
      path: `/get_proof/${seg(mint)}/${TREE_DEPTH}/${seg(index)}/${seg(network)}`,
      read: { json: decodeMerkleProof },
    });
  }

  /** Heap order: 1 is the root, node i has children 2i and 2i+1, leaf j is 2^32 + j. */
  getNode(mint: string, index: number, network: Network): Promise<ApiResult<MerkleNode>> {
    return this.transport.call({
      method: "POST",
      path: `/get_node/${seg(mint)}/${TREE_DEPTH}/${seg(index)}/${seg(network)}`,
      read: { json: decodeMerkleNode },
    });
  }

  /**
   * A page of the pool's leaves (protocol v3): each one's kind and a deposit's amount, public on
   * chain. `from` defaults to 0 and `limit` to the relay's maximum (10,000).
   */
  getLeaves(mint: string, network: Network, page: { from?: number; limit?: number } = {}): Promise<ApiResult<LeafList>> {
    return this.transport.call({
      method: "POST",
      path: `/get_leaves/${seg(mint)}/${TREE_DEPTH}/${seg(network)}`,
      body: { ...(page.from !== undefined ? { from: page.from } : {}), ...(page.limit !== undefined ? { limit: page.limit } : {}) },
      read: { json: decodeLeafList },
    });
  }

  getNullifier(mint: string, nullifierHash: Uint8Array, network: Network): Promise<ApiResult<NullifierStatus>> {
    return this.transport.call({
      method: "POST",
      path: `/get_nullifier/${seg(mint)}/${TREE_DEPTH}/${seg(network)}`,
      body: encodeBody(nullifierRequest, { nullifierHash }),
      read: { json: decodeNullifierStatus },
    });
  }

  // ---- relayer ----

  relay(req: WithdrawalRequest): Promise<ApiResult<RelaySuccess>> {
    return this.transport.call({
      method: "POST",
      path: "/relay",
      body: encodeBody(relayRequest, req),
      headers: this.authHeader(),
      read: { json: decodeRelaySuccess },
    });
  }

  relaySwap(req: SwapWithdrawalRequest): Promise<ApiResult<RelaySuccess>> {
    return this.transport.call({
      method: "POST",
      path: "/relay_swap",
      body: encodeBody(relaySwapRequest, req),
      headers: this.authHeader(),
      read: { json: decodeRelaySuccess },
    });
  }

  /** GET /fees: what the relayer keeps of a withdrawal; see {@link relayFee}. */
  fees(): Promise<ApiResult<FeeSchedule>> {
    return this.transport.call({ method: "GET", path: "/fees", read: { json: decodeFeeSchedule } });
  }

  /** Answers the revert transaction's signature (plain text in the spec). */
  revert(network: Network, token: string, depositSignature: string, req: RevertRequest): Promise<ApiResult<string>> {
    return this.transport.call({
      method: "POST",
      path: `/revert/${seg(network)}/${seg(token)}/${seg(depositSignature)}`,
      body: encodeBody(revertRequest, req),
      read: { text: nonEmptyText },
    });
  }

  // ---- compliance ----

  getOfacSignature(network: Network, token: string): Promise<ApiResult<OfacSignature>> {
    return this.transport.call({
      method: "POST",
      path: `/get_ofac_signature/${seg(network)}/${seg(token)}`,
      read: { text: (t) => (t.trim() ? ok(parseOfacSignature(t)) : err("empty body")) },
    });
  }

  /** The relay's compliance key and the form of the text it signs (`OFAC:<network>:<wallet>:<expiresAtUnix>`). */
  compliancePublicKey(): Promise<ApiResult<CompliancePublicKey>> {
    return this.transport.call({ method: "GET", path: "/compliance/public_key", read: { json: decodeCompliancePublicKey } });
  }

  // ---- helpers ----

  quote(req: SwapQuoteRequest): Promise<ApiResult<SwapQuote>> {
    return this.transport.call({ method: "POST", path: "/jupiter", body: encodeBody(quoteRequest, req), read: { json: decodeSwapQuote } });
  }

  /** 200 and 503 are both answers here: unhealthy is what /health exists to report. */
  async health(): Promise<ApiResult<HealthAnswer>> {
    const r = await this.transport.call({ method: "GET", path: "/health", answerStatuses: [503], read: { text: (t) => ok(t.trim()) } });
    return r.ok ? { ...r, value: { healthy: r.status === 200 && r.value === "ok", status: r.status, text: r.value } } : r;
  }

  /** Every check as JSON; the relay asks for its operator token (Authorization: Bearer), 401 otherwise. */
  healthDetail(operatorToken: string): Promise<ApiResult<HealthDetail>> {
    return this.transport.call({
      method: "GET",
      path: "/health/detail",
      headers: { authorization: `Bearer ${operatorToken}` },
      answerStatuses: [503],
      read: { json: decodeHealthDetail },
    });
  }

  /** GET /networks: each enabled network's backend, whether it is the sandbox, and its program id. */
  networks(): Promise<ApiResult<RelayNetwork[]>> {
    return this.transport.call({ method: "GET", path: "/networks", read: { json: decodeNetworks } });
  }

  version(): Promise<ApiResult<string>> {
    return this.transport.call({ method: "GET", path: "/version", read: { text: nonEmptyText } });
  }

  // ---- sandbox (mounted only for networks whose backend is the sandbox) ----

  sandboxAirdrop(req: SandboxAirdropRequest): Promise<ApiResult<{ signature: string }>> {
    return this.transport.call({
      method: "POST",
      path: "/sandbox/airdrop",
      body: encodeBody(sandboxAirdropRequest, req),
      read: { json: decodeSignatureAnswer },
    });
  }

  sandboxDeposit(req: SandboxDepositRequest): Promise<ApiResult<SandboxDepositAnswer>> {
    return this.transport.call({
      method: "POST",
      path: "/sandbox/deposit",
      body: encodeBody(sandboxDepositRequest, req),
      read: { json: decodeSandboxDeposit },
    });
  }

  sandboxBalance(network: Network, wallet: string, mint: string): Promise<ApiResult<{ amount: bigint }>> {
    return this.transport.call({ method: "GET", path: `/sandbox/balance/${seg(network)}/${seg(wallet)}/${seg(mint)}`, read: { json: decodeBalance } });
  }

  sandboxSwapPool(req: SandboxSwapPoolRequest): Promise<ApiResult<{ ok: true }>> {
    return this.transport.call({
      method: "POST",
      path: "/sandbox/swap_pool",
      body: encodeBody(sandboxSwapPoolRequest, req),
      read: { json: decodeOkTrue },
    });
  }

  private authHeader(): Record<string, string> {
    return this.authToken ? { "x-api-auth": this.authToken } : {};
  }
}
