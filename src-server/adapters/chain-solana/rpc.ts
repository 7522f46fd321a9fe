/**
 * The slice of JSON-RPC the Solana backend uses (docs/solana.md), as an
 * interface so the landing engine and the backend can be tested against a
 * scripted fake. `createSolanaRpc` is the real one: a web3.js Connection with
 * a per-request time-out and no silent retries on HTTP 429 (the landing engine
 * has its own back-off, and must see every failure).
 */
import {
  Connection,
  type AccountInfo,
  type BlockhashWithExpiryBlockHeight,
  type Commitment,
  type Finality,
  type GetAccountInfoConfig,
  type GetProgramAccountsConfig,
  type GetProgramAccountsResponse,
  type GetRecentPrioritizationFeesConfig,
  type PublicKey,
  type RecentPrioritizationFees,
  type RpcResponseAndContext,
  type SendOptions,
  type SignatureStatus,
  type SignatureStatusConfig,
  type SimulateTransactionConfig,
  type SimulatedTransactionResponse,
  type Version,
  type VersionedTransaction,
  type VersionedTransactionResponse,
} from "@solana/web3.js";
import type { Buffer } from "buffer";
import { decodeBase64 } from "../../../src-shared/pool-program/base64";
import { leafTransactionOfWire } from "../../../src-shared/pool-program/leaves";
import type { DepositHistoryRpc, LandedTransaction } from "./deposit-history";

/** getHealth: "ok", or the node's complaint (behindBySlots when it says "Node is behind by N slots"). */
export type NodeHealth = { ok: true; unsupported?: true } | { ok: false; behindBySlots: number | null; message: string };

/** Exactly the Connection methods the backend calls (plus getHealth, which web3.js v1 lacks). */
export interface SolanaRpc extends DepositHistoryRpc {
  getVersion(): Promise<Version>;
  getSlot(commitment?: Commitment): Promise<number>;
  getBlockHeight(commitment?: Commitment): Promise<number>;
  getHealth(): Promise<NodeHealth>;
  getBalance(publicKey: PublicKey, commitment?: Commitment): Promise<number>;
  /** A config's dataSlice reads part of the data (the program guard polls ProgramData's header alone). */
  getAccountInfo(publicKey: PublicKey, commitment?: Commitment | GetAccountInfoConfig): Promise<AccountInfo<Buffer> | null>;
  getProgramAccounts(programId: PublicKey, config: GetProgramAccountsConfig): Promise<GetProgramAccountsResponse>;
  getMinimumBalanceForRentExemption(dataLength: number, commitment?: Commitment): Promise<number>;
  getRecentPrioritizationFees(config?: GetRecentPrioritizationFeesConfig): Promise<RecentPrioritizationFees[]>;
  simulateTransaction(transaction: VersionedTransaction, config?: SimulateTransactionConfig): Promise<RpcResponseAndContext<SimulatedTransactionResponse>>;
  getLatestBlockhash(commitment?: Commitment): Promise<BlockhashWithExpiryBlockHeight>;
  sendRawTransaction(rawTransaction: Buffer | Uint8Array, options?: SendOptions): Promise<string>;
  getSignatureStatuses(signatures: string[], config?: SignatureStatusConfig): Promise<RpcResponseAndContext<(SignatureStatus | null)[]>>;
  getTransaction(signature: string, config: { maxSupportedTransactionVersion: number; commitment?: Finality }): Promise<VersionedTransactionResponse | null>;
}

export interface SolanaRpcOptions {
  rpcUrl: string;
  /** Default: web3.js derives it from rpcUrl (ws on the same host, port + 1 for an explicit port). */
  wsUrl?: string | null;
  commitment: Commitment;
  /** Per HTTP request. */
  rpcTimeoutMs: number;
  /** Where websocket outages are reported (once per outage). */
  log?: (line: string) => void;
}

/** A fetch that gives up after `ms` (the RPC request fails with an AbortError naming the time-out). */
export function fetchWithTimeout(ms: number): typeof globalThis.fetch {
  return async (input, init) => {
    const ac = new AbortController();
    const outer = init?.signal;
    if (outer) {
      if (outer.aborted) ac.abort(outer.reason);
      else outer.addEventListener("abort", () => ac.abort(outer.reason), { once: true });
    }
    const timer = setTimeout(() => ac.abort(new Error(`RPC request timed out after ${ms} ms`)), ms);
    try {
      return await globalThis.fetch(input, { ...init, signal: ac.signal });
    } finally {
      clearTimeout(timer);
    }
  };
}

/** A web3.js Connection with getHealth; it satisfies SolanaRpc and the follower's LogsRpc. */
export class SolanaConnection extends Connection implements SolanaRpc {
  readonly #fetch: typeof globalThis.fetch;
  readonly #url: string;

  constructor(opts: SolanaRpcOptions) {
    const fetch = fetchWithTimeout(opts.rpcTimeoutMs);
    super(opts.rpcUrl, {
      commitment: opts.commitment,
      ...(opts.wsUrl ? { wsEndpoint: opts.wsUrl } : {}),
      disableRetryOnRateLimit: true,
      fetch,
    });
    this.#fetch = fetch;
    this.#url = opts.rpcUrl;
    this.quietWebsocketErrors(opts.log);
  }

  /**
   * web3.js prints `ws error: …` with console.error on every failed reconnect
   * (about once a second while the RPC's websocket is down). Replace that with
   * one line per outage through the relay's log; web3.js's own bookkeeping of
   * the error is kept.
   */
  private quietWebsocketErrors(log: ((line: string) => void) | undefined): void {
    const internals = this as unknown as {
      _rpcWebSocket?: { removeAllListeners(event: string): unknown; on(event: string, f: (...args: unknown[]) => void): unknown };
      _rpcWebSocketConnected?: boolean;
    };
    const ws = internals._rpcWebSocket;
    if (!ws || typeof ws.removeAllListeners !== "function") return;
    let down = false;
    ws.removeAllListeners("error");
    ws.on("error", (err: unknown) => {
      internals._rpcWebSocketConnected = false;
      const message = typeof err === "object" && err !== null && "message" in err ? String((err as { message: unknown }).message) : String(err);
      if (!down) log?.(`solana websocket: ${message}; reconnecting (logged once per outage)`);
      down = true;
    });
    ws.on("open", () => {
      if (down) log?.("solana websocket: reconnected");
      down = false;
    });
  }

  /**
   * getTransaction as raw JSON-RPC (base64), reading only slot, meta.err,
   * the logs, the inner instructions, the loaded addresses and the message's
   * keys and instructions: web3.js validates every field of every answer,
   * which costs ~3 ms a transaction during a backfill.
   */
  async getLeafTransaction(signature: string, commitment: Finality): Promise<LandedTransaction | null> {
    const res = await this.#fetch(this.#url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "getTransaction",
        params: [signature, { encoding: "base64", commitment, maxSupportedTransactionVersion: 0 }],
      }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`getTransaction: HTTP ${res.status} ${text.slice(0, 80)}`);
    let body: { result?: unknown; error?: { code?: number; message?: string } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new Error(`getTransaction: HTTP ${res.status} answered no JSON`);
    }
    if (body.error) throw new Error(`getTransaction: ${body.error.code ?? ""} ${body.error.message ?? ""}`.trim());
    return parseLandedTransaction(body.result);
  }

  /** JSON-RPC getHealth: throws only when the node cannot be reached or answers nonsense. */
  async getHealth(): Promise<NodeHealth> {
    const res = await this.#fetch(this.#url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getHealth" }),
    });
    const text = await res.text();
    let body: { result?: unknown; error?: { code?: number; message?: string; data?: { numSlotsBehind?: unknown } } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new Error(`getHealth: HTTP ${res.status} ${text.slice(0, 80)}`);
    }
    if (body.result === "ok") return { ok: true };
    if (body.error) {
      const n = body.error.data?.numSlotsBehind;
      const m = /behind by (\d+) slots/i.exec(body.error.message ?? "");
      const behindBySlots = typeof n === "number" ? n : m ? Number(m[1]) : null;
      // -32005 is "node unhealthy"; anything else (a proxy's error, 503) is unreachable for our purpose.
      if (body.error.code === -32005) return { ok: false, behindBySlots, message: body.error.message ?? "node is unhealthy" };
      // A provider that does not offer getHealth: the slot checks must do.
      if (body.error.code === -32601) return { ok: true, unsupported: true };
      throw new Error(`getHealth: ${body.error.code ?? ""} ${body.error.message ?? ""}`.trim());
    }
    throw new Error(`getHealth: unexpected answer (HTTP ${res.status})`);
  }
}

export function createSolanaRpc(opts: SolanaRpcOptions): SolanaConnection {
  return new SolanaConnection(opts);
}

/**
 * The fields the history reader needs from a base64 getTransaction answer,
 * checked by hand (the message is parsed from its wire bytes); anything else
 * in the answer is ignored.
 */
export function parseLandedTransaction(result: unknown): LandedTransaction | null {
  if (result === null || result === undefined) return null;
  if (typeof result !== "object") throw new Error("getTransaction: the result is not an object");
  const r = result as { slot?: unknown; meta?: unknown; transaction?: unknown };
  if (typeof r.slot !== "number" || !Number.isSafeInteger(r.slot)) throw new Error("getTransaction: the result has no slot");
  if (r.meta === null || r.meta === undefined) return { slot: r.slot, tx: null };
  if (typeof r.meta !== "object") throw new Error("getTransaction: meta is not an object");
  const m = r.meta as { err?: unknown; logMessages?: unknown; innerInstructions?: unknown; loadedAddresses?: unknown };
  const logs = m.logMessages;
  if (logs !== null && logs !== undefined && !(Array.isArray(logs) && logs.every((l) => typeof l === "string"))) {
    throw new Error("getTransaction: meta.logMessages is not a list of strings");
  }
  const wire = Array.isArray(r.transaction) && typeof r.transaction[0] === "string" ? decodeBase64(r.transaction[0]) : null;
  if (!wire) throw new Error("getTransaction: the transaction is not base64");
  try {
    return {
      slot: r.slot,
      tx: leafTransactionOfWire(wire, {
        err: m.err ?? null,
        logMessages: (logs as string[] | null | undefined) ?? null,
        innerInstructions: m.innerInstructions,
        loadedAddresses: m.loadedAddresses,
      }),
    };
  } catch (e) {
    throw new Error(`getTransaction: ${(e as Error).message}`, { cause: e });
  }
}
