/**
 * Several RPC endpoints of one cluster behind the one `SolanaRpc` the backend
 * uses (docs/solana.md, "Several RPC endpoints"):
 *
 * - each request goes to the healthiest endpoint (healthy first, then the
 *   fewest recent errors, the least slot lag and the lowest latency; the
 *   configured order breaks ties), and on a failure of that endpoint (no
 *   answer within the per-request time-out, an HTTP error, an answer that is
 *   not JSON-RPC or not the shape the method returns, "node is behind") it is
 *   marked unhealthy and the same request goes to the next one;
 * - an endpoint answering a JSON-RPC error about the request itself (a
 *   refused transaction, an unknown account) answered correctly: the error is
 *   the answer, nothing is retried elsewhere;
 * - a background probe (getSlot on every endpoint) brings an unhealthy
 *   endpoint back once it answers and is within `maxSlotLag` slots of the
 *   most advanced one, so requests return to it when it recovers;
 * - a signed transaction is sent to every healthy endpoint at once (the first
 *   acceptance is the answer): the leader hears of it even when one provider
 *   drops it.
 *
 * Websocket subscriptions (`onLogs`) go to the first endpoint only; the chain
 * follower's polling, which goes through the failover, covers its outages.
 */
import type {
  AccountInfo,
  BlockhashWithExpiryBlockHeight,
  Commitment,
  ConfirmedSignatureInfo,
  Context,
  Finality,
  GetAccountInfoConfig,
  GetProgramAccountsConfig,
  GetProgramAccountsResponse,
  GetRecentPrioritizationFeesConfig,
  Logs,
  PublicKey,
  RecentPrioritizationFees,
  RpcResponseAndContext,
  SendOptions,
  SignatureStatus,
  SignatureStatusConfig,
  SignaturesForAddressOptions,
  SimulateTransactionConfig,
  SimulatedTransactionResponse,
  Version,
  VersionedTransaction,
  VersionedTransactionResponse,
} from "@solana/web3.js";
import type { Buffer } from "buffer";
import type { RpcEndpointStatus } from "../../../src-shared/api/admin";
import { redactUrl } from "../../../src-shared/redact-url";
import { leafTransactionOfResponse } from "../../../src-shared/pool-program/leaves";
import type { LandedTransaction } from "./deposit-history";
import type { LogsRpc } from "./follower-subscribe";
import { createSolanaRpc, type NodeHealth, type SolanaRpc } from "./rpc";

/** One endpoint: its URL (kept to name it redacted) and the client talking to it. */
export interface RpcEndpoint {
  url: string;
  rpc: SolanaRpc & Partial<LogsRpc>;
}

export interface FailoverOptions {
  /** An endpoint more than this many slots behind the most advanced one is not used while another is healthy. */
  maxSlotLag: number;
  /** How often every endpoint is probed (getSlot); 0: never (tests probe by hand). */
  probeMs: number;
  commitment: Commitment;
  /** A change of an endpoint's state (healthy/unhealthy), one line each; URLs redacted. */
  log?: (line: string) => void;
  now?: () => number;
  /** Called after every request to an endpoint (metrics): its redacted URL, the method, the time taken and whether it failed. */
  onRequest?: (endpoint: string, method: string, ms: number, failed: boolean) => void;
}

interface State {
  readonly index: number;
  readonly url: string;
  readonly label: string;
  readonly rpc: SolanaRpc & Partial<LogsRpc>;
  healthy: boolean;
  latencyMs: number | null;
  slot: number | null;
  slotLag: number | null;
  requests: number;
  errors: number;
  /** Errors weighed down with time (halved at each probe), for ranking. */
  recentErrors: number;
  lastError: string | null;
  lastErrorAt: number | null;
  lastOkAt: number | null;
}

/** JSON-RPC error codes that say the node, not the request, is at fault. */
const NODE_FAULT_CODES = new Set([-32005 /* node unhealthy / behind */, -32016 /* minContextSlot not reached */, -32603 /* internal error */]);

/**
 * Whether an error from an endpoint says the endpoint is unusable (another
 * should be asked) rather than answering the request. web3.js throws a
 * SolanaJSONRPCError (with a numeric `code`) for a well-formed JSON-RPC
 * error; everything else (fetch failures, time-outs, HTTP statuses, answers
 * that are not JSON or do not match the method's result) is the endpoint's.
 */
export function isEndpointFailure(e: unknown): boolean {
  if (typeof e !== "object" || e === null) return true;
  const err = e as { name?: unknown; code?: unknown };
  if (err.name === "SolanaJSONRPCError" && typeof err.code === "number") return NODE_FAULT_CODES.has(err.code);
  return true;
}

const short = (e: unknown): string => (e instanceof Error ? e.message : String(e)).replace(/https?:\/\/[^\s"')]+/g, (u) => redactUrl(u)).slice(0, 160);

export class FailoverRpc implements SolanaRpc, LogsRpc {
  private readonly states: State[];
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;
  private probing: Promise<void> | null = null;

  constructor(
    endpoints: readonly RpcEndpoint[],
    private readonly opts: FailoverOptions,
  ) {
    if (endpoints.length === 0) throw new Error("FailoverRpc needs at least one endpoint");
    this.now = opts.now ?? Date.now;
    this.states = endpoints.map((e, index) => ({
      index,
      url: e.url,
      label: redactUrl(e.url),
      rpc: e.rpc,
      healthy: true,
      latencyMs: null,
      slot: null,
      slotLag: null,
      requests: 0,
      errors: 0,
      recentErrors: 0,
      lastError: null,
      lastErrorAt: null,
      lastOkAt: null,
    }));
    if (opts.probeMs > 0) {
      this.timer = setInterval(() => void this.probe(), opts.probeMs);
      this.timer.unref();
    }
  }

  /** Stops the background probe. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Each endpoint's state, in the configured order (URLs as origins only). */
  endpoints(): RpcEndpointStatus[] {
    const active = this.ranked()[0];
    return this.states.map((s) => ({
      url: s.label,
      healthy: s.healthy,
      active: s === active,
      latencyMs: s.latencyMs === null ? null : Math.round(s.latencyMs),
      slot: s.slot,
      slotLag: s.slotLag,
      requests: s.requests,
      errors: s.errors,
      lastError: s.lastError,
      lastErrorAt: s.lastErrorAt,
      lastOkAt: s.lastOkAt,
    }));
  }

  /** Healthy endpoints first, then by recent errors, slot lag and latency; the configured order breaks ties. */
  private ranked(): State[] {
    const lagOf = (s: State) => (s.slotLag !== null && s.slotLag > this.opts.maxSlotLag ? s.slotLag : 0);
    // Latency counts only when it is far worse than the fastest healthy endpoint's (twice and 100 ms more),
    // so jitter does not move requests away from the operator's order.
    const latencies = this.states.filter((s) => s.healthy && s.latencyMs !== null).map((s) => s.latencyMs!);
    const best = latencies.length ? Math.min(...latencies) : 0;
    const slow = (s: State) => Number(s.latencyMs !== null && s.latencyMs > Math.max(best * 2, best + 100));
    return [...this.states].sort(
      (a, b) =>
        Number(b.healthy) - Number(a.healthy) ||
        Math.round(a.recentErrors) - Math.round(b.recentErrors) ||
        lagOf(a) - lagOf(b) ||
        slow(a) - slow(b) ||
        a.index - b.index,
    );
  }

  private succeeded(s: State, method: string, ms: number): void {
    s.requests++;
    s.latencyMs = s.latencyMs === null ? ms : s.latencyMs * 0.8 + ms * 0.2;
    s.lastOkAt = this.now();
    this.opts.onRequest?.(s.label, method, ms, false);
  }

  private failed(s: State, method: string, ms: number, e: unknown): void {
    s.requests++;
    s.errors++;
    s.recentErrors++;
    s.lastError = `${method}: ${short(e)}`;
    s.lastErrorAt = this.now();
    this.opts.onRequest?.(s.label, method, ms, true);
    this.setHealthy(s, false, s.lastError);
  }

  private setHealthy(s: State, healthy: boolean, why: string): void {
    if (s.healthy === healthy) return;
    s.healthy = healthy;
    // Back in good standing: requests return to it in the configured order.
    if (healthy) s.recentErrors = 0;
    this.opts.log?.(
      healthy ? `rpc ${s.label}: healthy again (${why}); requests may return to it` : `rpc ${s.label}: unhealthy (${why}); requests go to the next endpoint`,
    );
  }

  /** One request, to the healthiest endpoint first and to the next on an endpoint failure. */
  private async call<T>(method: string, f: (rpc: SolanaRpc & Partial<LogsRpc>) => Promise<T>, check?: (v: T) => void): Promise<T> {
    let first: unknown = null;
    for (const s of this.ranked()) {
      const t0 = this.now();
      try {
        const v = await f(s.rpc);
        check?.(v);
        this.succeeded(s, method, this.now() - t0);
        return v;
      } catch (e) {
        if (!isEndpointFailure(e)) {
          this.succeeded(s, method, this.now() - t0);
          throw e;
        }
        this.failed(s, method, this.now() - t0, e);
        first ??= e;
      }
    }
    throw first;
  }

  /** getSlot on every endpoint at once: latency, slot lag and health. Concurrent calls share one probe. */
  probe(): Promise<void> {
    this.probing ??= this.probeOnce().finally(() => (this.probing = null));
    return this.probing;
  }

  private async probeOnce(): Promise<void> {
    const results = await Promise.all(
      this.states.map(async (s) => {
        const t0 = this.now();
        try {
          const slot = await s.rpc.getSlot(this.opts.commitment);
          if (!Number.isSafeInteger(slot) || slot < 0) throw new Error(`getSlot answered ${JSON.stringify(slot)}`);
          return { s, slot, ms: this.now() - t0, error: null };
        } catch (e) {
          return { s, slot: null, ms: this.now() - t0, error: e };
        }
      }),
    );
    const top = Math.max(0, ...results.map((r) => r.slot ?? 0));
    for (const r of results) {
      r.s.recentErrors /= 2;
      if (r.slot === null) {
        this.failed(r.s, "getSlot", r.ms, r.error);
        continue;
      }
      this.succeeded(r.s, "getSlot", r.ms);
      r.s.slot = r.slot;
      r.s.slotLag = top - r.slot;
      if (r.s.slotLag > this.opts.maxSlotLag)
        this.setHealthy(r.s, false, `${r.s.slotLag} slots behind ${this.states.length > 1 ? "the most advanced endpoint" : ""}`.trim());
      else this.setHealthy(r.s, true, `slot ${r.slot}`);
    }
  }

  // ------------------------------------------------------------------ SolanaRpc

  getVersion(): Promise<Version> {
    return this.call("getVersion", (r) => r.getVersion());
  }
  getSlot(commitment?: Commitment): Promise<number> {
    return this.call("getSlot", (r) => r.getSlot(commitment), saneInteger("getSlot"));
  }
  getBlockHeight(commitment?: Commitment): Promise<number> {
    return this.call("getBlockHeight", (r) => r.getBlockHeight(commitment), saneInteger("getBlockHeight"));
  }
  /** The best answer of any endpoint: ok if one is ok. */
  async getHealth(): Promise<NodeHealth> {
    let worst: NodeHealth | null = null;
    let first: unknown = null;
    for (const s of this.ranked()) {
      const t0 = this.now();
      try {
        const h = await s.rpc.getHealth();
        this.succeeded(s, "getHealth", this.now() - t0);
        if (h.ok) return h;
        this.setHealthy(s, false, h.message);
        worst ??= h;
      } catch (e) {
        this.failed(s, "getHealth", this.now() - t0, e);
        first ??= e;
      }
    }
    if (worst) return worst;
    throw first;
  }
  getBalance(publicKey: PublicKey, commitment?: Commitment): Promise<number> {
    return this.call("getBalance", (r) => r.getBalance(publicKey, commitment), saneInteger("getBalance"));
  }
  getAccountInfo(publicKey: PublicKey, commitment?: Commitment | GetAccountInfoConfig): Promise<AccountInfo<Buffer> | null> {
    return this.call("getAccountInfo", (r) => r.getAccountInfo(publicKey, commitment));
  }
  getProgramAccounts(programId: PublicKey, config: GetProgramAccountsConfig): Promise<GetProgramAccountsResponse> {
    return this.call("getProgramAccounts", (r) => r.getProgramAccounts(programId, config));
  }
  getMinimumBalanceForRentExemption(dataLength: number, commitment?: Commitment): Promise<number> {
    return this.call(
      "getMinimumBalanceForRentExemption",
      (r) => r.getMinimumBalanceForRentExemption(dataLength, commitment),
      saneInteger("getMinimumBalanceForRentExemption"),
    );
  }
  getRecentPrioritizationFees(config?: GetRecentPrioritizationFeesConfig): Promise<RecentPrioritizationFees[]> {
    return this.call("getRecentPrioritizationFees", (r) => r.getRecentPrioritizationFees(config));
  }
  simulateTransaction(transaction: VersionedTransaction, config?: SimulateTransactionConfig): Promise<RpcResponseAndContext<SimulatedTransactionResponse>> {
    return this.call("simulateTransaction", (r) => r.simulateTransaction(transaction, config));
  }
  getLatestBlockhash(commitment?: Commitment): Promise<BlockhashWithExpiryBlockHeight> {
    return this.call("getLatestBlockhash", (r) => r.getLatestBlockhash(commitment));
  }
  getSignatureStatuses(signatures: string[], config?: SignatureStatusConfig): Promise<RpcResponseAndContext<(SignatureStatus | null)[]>> {
    return this.call("getSignatureStatuses", (r) => r.getSignatureStatuses(signatures, config));
  }
  getTransaction(signature: string, config: { maxSupportedTransactionVersion: number; commitment?: Finality }): Promise<VersionedTransactionResponse | null> {
    return this.call("getTransaction", (r) => r.getTransaction(signature, config));
  }
  getSignaturesForAddress(address: PublicKey, options?: SignaturesForAddressOptions, commitment?: Finality): Promise<ConfirmedSignatureInfo[]> {
    return this.call("getSignaturesForAddress", (r) => r.getSignaturesForAddress(address, options, commitment));
  }
  getLeafTransaction(signature: string, commitment: Finality): Promise<LandedTransaction | null> {
    return this.call("getTransaction", async (r) => {
      if (r.getLeafTransaction) return r.getLeafTransaction(signature, commitment);
      const t = await r.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment });
      return t ? { slot: t.slot, tx: t.meta ? leafTransactionOfResponse(t) : null } : null;
    });
  }

  /**
   * Sent to every healthy endpoint (every endpoint when none is): the first
   * acceptance is the answer. When all refuse, a refusal about the
   * transaction itself wins over an endpoint failure.
   */
  async sendRawTransaction(rawTransaction: Buffer | Uint8Array, options?: SendOptions): Promise<string> {
    const healthy = this.states.filter((s) => s.healthy);
    const targets = healthy.length ? healthy : this.states;
    const attempts = targets.map(async (s) => {
      const t0 = this.now();
      try {
        const sig = await s.rpc.sendRawTransaction(rawTransaction, options);
        this.succeeded(s, "sendTransaction", this.now() - t0);
        return sig;
      } catch (e) {
        if (isEndpointFailure(e)) this.failed(s, "sendTransaction", this.now() - t0, e);
        else this.succeeded(s, "sendTransaction", this.now() - t0);
        throw e;
      }
    });
    try {
      return await Promise.any(attempts);
    } catch (e) {
      const errors = e instanceof AggregateError ? e.errors : [e];
      throw errors.find((x) => !isEndpointFailure(x)) ?? errors[0];
    }
  }

  // ------------------------------------------------------------------ LogsRpc (first endpoint)

  onLogs(filter: PublicKey, callback: (logs: Logs, ctx: Context) => void, commitment?: Commitment): number {
    const rpc = this.states[0]!.rpc;
    if (!rpc.onLogs) throw new Error("the first RPC endpoint's client has no subscriptions");
    return rpc.onLogs(filter, callback, commitment);
  }
  removeOnLogsListener(id: number): Promise<void> {
    const rpc = this.states[0]!.rpc;
    return rpc.removeOnLogsListener ? rpc.removeOnLogsListener(id) : Promise.resolve();
  }
}

/** An answer that is not a non-negative safe integer is garbage: the endpoint is not trusted. */
function saneInteger(method: string): (v: number) => void {
  return (v) => {
    if (!Number.isSafeInteger(v) || v < 0) throw new Error(`${method} answered ${JSON.stringify(v)}, not a count`);
  };
}

/** The failover over a network's configured endpoints: a web3.js client each (the first with the websocket URL). */
export function createFailoverRpc(opts: {
  rpcUrls: readonly string[];
  wsUrl: string | null;
  commitment: Commitment;
  rpcTimeoutMs: number;
  rpcProbeMs: number;
  maxSlotLag: number;
  log?: (line: string) => void;
  onRequest?: FailoverOptions["onRequest"];
}): FailoverRpc {
  const endpoints = opts.rpcUrls.map((url, i) => ({
    url,
    rpc: createSolanaRpc({
      rpcUrl: url,
      wsUrl: i === 0 ? opts.wsUrl : null,
      commitment: opts.commitment,
      rpcTimeoutMs: opts.rpcTimeoutMs,
      ...(opts.log ? { log: opts.log } : {}),
    }),
  }));
  return new FailoverRpc(endpoints, {
    maxSlotLag: opts.maxSlotLag,
    probeMs: opts.rpcProbeMs,
    commitment: opts.commitment,
    ...(opts.log ? { log: opts.log } : {}),
    ...(opts.onRequest ? { onRequest: opts.onRequest } : {}),
  });
}
