/**
 * Talking to a Solana cluster directly, for what the relay does not do for a
 * wallet: its own deposit transaction, balances, and on the local validator
 * (`npm run localnet`) test SOL, test tokens and test swap pools. Everything
 * goes over JSON-RPC with @solana/web3.js (v1) or plain fetch; confirmation
 * polls getSignatureStatuses (no websocket, nothing left running).
 */
import { Connection, PublicKey } from "@solana/web3.js";
import { associatedTokenAddress } from "../../src-shared/pool-program";
import { err, ok, type Result } from "../../src-shared/result";

/** A Connection for a wallet's own reads and sends: confirmed commitment, no websocket until one is asked for. */
export function chainConnection(rpcUrl: string): Connection {
  return new Connection(rpcUrl, { commitment: "confirmed", disableRetryOnRateLimit: true });
}

/** `rpcUrl` as given when it is an http(s) URL; null otherwise. */
export function parseRpcUrl(text: string): string | null {
  try {
    const u = new URL(text);
    return u.protocol === "http:" || u.protocol === "https:" ? text : null;
  } catch {
    return null;
  }
}

export type SignatureOutcome =
  /** Confirmed (or finalized) without an error: its effects are on chain. */
  | { state: "landed"; slot: number }
  /** Confirmed with an error: the transaction did nothing but pay its fee. */
  | { state: "failed"; slot: number; err: unknown }
  /** The blockhash expired with no status for the signature: it can never land. */
  | { state: "expired" }
  /** Still no answer when time ran out (or the RPC kept failing): it may land yet. */
  | { state: "unknown"; message: string };

export interface WaitOptions {
  /** The transaction's blockhash's lastValidBlockHeight; without it only the time limit ends the wait. */
  lastValidBlockHeight?: number;
  /** Default 60 s. */
  timeoutMs?: number;
  /** Default 250 ms. */
  pollMs?: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Waits until `signature` is confirmed by polling getSignatureStatuses, not
 * web3.js's confirmTransaction (which opens a websocket and may leave a
 * rejection behind). Transient RPC errors are retried until the time limit.
 */
export async function waitForSignature(connection: Connection, signature: string, options: WaitOptions = {}): Promise<SignatureOutcome> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const pollMs = options.pollMs ?? 250;
  let lastError: string;
  for (;;) {
    try {
      const status = (await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })).value[0];
      if (status && (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized")) {
        return status.err ? { state: "failed", slot: status.slot, err: status.err } : { state: "landed", slot: status.slot };
      }
      if (!status && options.lastValidBlockHeight !== undefined && (await connection.getBlockHeight("confirmed")) > options.lastValidBlockHeight) {
        // The blockhash is past its last valid height: look once more, then it can never land.
        const again = (await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })).value[0];
        if (!again) return { state: "expired" };
      }
      lastError = status ? `status ${status.confirmationStatus ?? "processed"}` : "no status yet";
    } catch (e) {
      lastError = (e as Error).message;
    }
    if (Date.now() + pollMs > deadline) return { state: "unknown", message: lastError };
    await sleep(pollMs);
  }
}

/** An address's SOL balance in lamports. */
export async function lamportsOf(connection: Connection, address: string): Promise<bigint> {
  return BigInt(await connection.getBalance(new PublicKey(address), "confirmed"));
}

/** `owner`'s balance of `mint` in base units: its associated token account's, 0 when that account does not exist. */
export async function tokenBalanceOf(connection: Connection, owner: string, mint: string): Promise<bigint> {
  const account = new PublicKey(associatedTokenAddress(owner, mint));
  const info = await connection.getAccountInfo(account, "confirmed");
  if (!info) return 0n;
  return BigInt((await connection.getTokenAccountBalance(account, "confirmed")).value.amount);
}

export interface RpcCallError {
  /** `unreachable`: no HTTP answer; `method`: the RPC does not offer the method; `rpc`: it answered a JSON-RPC error; `malformed`: not JSON-RPC. */
  kind: "unreachable" | "method" | "rpc" | "malformed";
  message: string;
  code?: number;
}

/** One JSON-RPC call with plain fetch, for the methods web3.js does not know (the local validator's `localnet_*`). */
export async function rpcCall<T>(rpcUrl: string, method: string, params: unknown[], timeoutMs = 30_000): Promise<Result<T, RpcCallError>> {
  let res: Response;
  try {
    res = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    return err({ kind: "unreachable", message: `${rpcUrl} did not answer (${cause ?? (e as Error).message})` });
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    // A cluster behind a proxy may answer an unknown method with a plain 404 or 405.
    if (res.status === 404 || res.status === 405) return err({ kind: "method", message: `${rpcUrl} has no ${method} (HTTP ${res.status})` });
    return err({ kind: "malformed", message: `${rpcUrl} answered HTTP ${res.status} without JSON` });
  }
  const b = body as { error?: { code?: unknown; message?: unknown }; result?: unknown };
  if (b && typeof b === "object" && b.error && typeof b.error === "object") {
    const code = typeof b.error.code === "number" ? b.error.code : undefined;
    const message = typeof b.error.message === "string" ? b.error.message : JSON.stringify(b.error);
    // -32601 is JSON-RPC's "Method not found".
    if (code === -32601) return err({ kind: "method", message: `${rpcUrl} has no ${method}: ${message}`, code });
    return err({ kind: "rpc", message, ...(code !== undefined ? { code } : {}) });
  }
  if (!b || typeof b !== "object" || !("result" in b)) {
    // Not a JSON-RPC endpoint at all (a relay, a proxy's error page): it certainly has no such method.
    if (res.status === 404 || res.status === 405)
      return err({ kind: "method", message: `${rpcUrl} has no ${method} (HTTP ${res.status}; is it a JSON-RPC endpoint?)` });
    return err({ kind: "malformed", message: `${rpcUrl} answered ${method} (HTTP ${res.status}) without a JSON-RPC result` });
  }
  return ok(b.result as T);
}

/**
 * Credits `amount` base units of `mint` to `owner`'s associated token account
 * with the local validator's test method `localnet_mintTo` (creating the mint
 * and the account when missing; wrapped SOL is backed by lamports). A real
 * cluster has no such method: the error then says only the local validator
 * mints test tokens.
 */
export async function mintTestTokens(
  rpcUrl: string,
  owner: string,
  mint: string,
  amount: bigint,
): Promise<Result<{ tokenAccount: string; balance: bigint }, RpcCallError>> {
  const r = await rpcCall<{ tokenAccount?: unknown; amount?: unknown }>(rpcUrl, "localnet_mintTo", [{ owner, mint, amount: amount.toString() }]);
  if (!r.ok) {
    if (r.error.kind === "method") return err({ ...r.error, message: `only the local validator mints test tokens (npm run localnet): ${r.error.message}` });
    return r;
  }
  const { tokenAccount, amount: balance } = r.value ?? {};
  if (typeof tokenAccount !== "string" || typeof balance !== "string" || !/^\d+$/.test(balance))
    return err({ kind: "malformed", message: "localnet_mintTo answered an unexpected shape" });
  return ok({ tokenAccount, balance: BigInt(balance) });
}

export interface TestSwapPool {
  pool: string;
  mintA: string;
  mintB: string;
  reserveA: bigint;
  reserveB: bigint;
}

/**
 * Creates the local validator's constant-product pool (cp-swap) of a pair, or
 * resets its reserves, with its test method `localnet_createSwapPool`; the
 * validator's Jupiter-compatible API routes swaps through it. The reserves
 * answered are in the pool's own mint order.
 */
export async function createTestSwapPool(
  rpcUrl: string,
  p: { mintA: string; mintB: string; reserveA: bigint; reserveB: bigint },
): Promise<Result<TestSwapPool, RpcCallError>> {
  const r = await rpcCall<Record<string, unknown>>(rpcUrl, "localnet_createSwapPool", [
    { mintA: p.mintA, mintB: p.mintB, reserveA: p.reserveA.toString(), reserveB: p.reserveB.toString() },
  ]);
  if (!r.ok) {
    if (r.error.kind === "method")
      return err({ ...r.error, message: `only the local validator creates test swap pools (npm run localnet): ${r.error.message}` });
    return r;
  }
  const v = r.value ?? {};
  const text = (k: string) => (typeof v[k] === "string" ? (v[k] as string) : null);
  const [pool, mintA, mintB, reserveA, reserveB] = ["pool", "mintA", "mintB", "reserveA", "reserveB"].map(text);
  if (!pool || !mintA || !mintB || !reserveA || !reserveB || !/^\d+$/.test(reserveA) || !/^\d+$/.test(reserveB)) {
    return err({ kind: "malformed", message: "localnet_createSwapPool answered an unexpected shape" });
  }
  return ok({ pool, mintA, mintB, reserveA: BigInt(reserveA), reserveB: BigInt(reserveB) });
}

/**
 * Asks the cluster's faucet for `lamports` (requestAirdrop: the local
 * validator and devnet have one, mainnet does not) and waits until the
 * transfer is confirmed; answers its signature.
 */
export async function requestSol(
  connection: Connection,
  address: string,
  lamports: bigint,
  options: Omit<WaitOptions, "lastValidBlockHeight"> = {},
): Promise<Result<string, string>> {
  if (lamports <= 0n || lamports > BigInt(Number.MAX_SAFE_INTEGER)) return err(`lamports must be from 1 to ${Number.MAX_SAFE_INTEGER}`);
  let signature: string;
  try {
    signature = await connection.requestAirdrop(new PublicKey(address), Number(lamports));
  } catch (e) {
    return err(`requestAirdrop: ${(e as Error).message}`);
  }
  const outcome = await waitForSignature(connection, signature, { timeoutMs: options.timeoutMs ?? 60_000, pollMs: options.pollMs ?? 250 });
  if (outcome.state === "landed") return ok(signature);
  if (outcome.state === "failed") return err(`the airdrop ${signature} failed: ${JSON.stringify(outcome.err)}`);
  return err(`the airdrop ${signature} was not confirmed${outcome.state === "unknown" ? ` (${outcome.message})` : ""}`);
}

/** A mint's decimals from the chain (getTokenSupply): what sets its smallest standard amount. */
export async function mintDecimals(connection: Connection, mint: string): Promise<Result<number, string>> {
  try {
    const supply = await connection.getTokenSupply(new PublicKey(mint), "confirmed");
    return ok(supply.value.decimals);
  } catch (e) {
    return err(`getTokenSupply of ${mint}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
