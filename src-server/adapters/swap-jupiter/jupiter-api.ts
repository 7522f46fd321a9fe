import { redactUrl } from "../../../src-shared/redact-url";
import { err, ok, type Result } from "../../../src-shared/result";
import type { QuoteRequest, SwapQuote } from "../../core/swap/quote";
import type { SwapVenue, SwapVenueError } from "../../ports/swap-venue";
import { decodeQuote, decodeSwapInstructions, venueError, type SwapInstructions } from "./decode";

export interface JupiterOptions {
  /** e.g. https://api.jup.ag/swap/v1; /quote and /swap-instructions are appended. */
  baseUrl: string;
  /** Sent as `x-api-key` when set. Secret: never logged. */
  apiKey: string | null;
  /** Per request, covering the body as well as the headers. */
  timeoutMs: number;
  /** Jupiter's restrictIntermediateTokens: route only through stable intermediate tokens. */
  restrictIntermediateTokens: boolean;
  /** Jupiter's maxAccounts on every quote (routeMaxAccounts of the network); default ROUTE_MAX_ACCOUNTS. */
  maxAccounts?: number;
  /** Injected in tests; the global fetch by default. */
  fetch?: typeof fetch;
}

/** What the Solana backend passes to build the swap's instructions for a quote. */
export interface SwapInstructionsRequest {
  /** The wallet that signs and whose token accounts the swap uses (the relayer). */
  userPublicKey: string;
  /** Where the output goes: the recipient's token account for the output mint. */
  destinationTokenAccount?: string;
  wrapAndUnwrapSol?: boolean;
  dynamicComputeUnitLimit?: boolean;
  computeUnitPriceMicroLamports?: number;
}

/**
 * Jupiter's maxAccounts for every quote: the route's accounts beside withdraw_swap's (the swap
 * escrow, the nullifier and the recipient's accounts change per withdrawal, so no lookup table
 * holds them). Issue 25 gave withdraw_swap two more accounts (the event authority, a new static
 * key, and the program): about 34 bytes, where the route's looked-up accounts cost 2 bytes each.
 * Measured (route-size.test.ts, the route in two lookup tables with the mints and the token,
 * system and associated token programs, as the local validator's cp-swap table and Jupiter's
 * hold them): 1,223 bytes at 8 route accounts, 1,231 at 12, 1,235 at 14 and 1,255 at 24 (before
 * the two accounts: 1,222 at 23), against the 1,232-byte packet; the local validator's own
 * cp-swap route (7 accounts, shorter data) lands at 1,166 bytes. A transaction that must also
 * create the relayer's input token account (its first swap of a mint) takes 41 bytes more, so a
 * long route may not fit then: it is refused before anything is sent. Quoting within the limit
 * keeps /jupiter's answer a route /relay_swap can send. A network with the relay's own lookup
 * table quotes ROUTE_MAX_ACCOUNTS_WITH_TABLE instead.
 */
export const ROUTE_MAX_ACCOUNTS = 12;

/**
 * maxAccounts when the network has the relay's own lookup table (`solana.lookupTables`,
 * pool:lookup-table): the pools' mints, trees, vaults, the relayer's token accounts, the event
 * authority and the Instructions sysvar cost one byte each instead of 32, about 120 bytes more for
 * the route. Measured (route-size.test.ts, same route model): 1,150 bytes at 32 route accounts,
 * 1,191 when the relayer's input account is created first, 1,215 with 64 bytes of route data (a
 * route of three hops or more); the transaction then loads 45 accounts, within the runtime's 64.
 * 52 route accounts would still fit the packet (1,231 created) but load 65 accounts; 32 leaves
 * room for Jupiter's maxAccounts being an estimate, not a bound.
 */
export const ROUTE_MAX_ACCOUNTS_WITH_TABLE = 32;

/** The maxAccounts a network's quotes ask for: more with the relay's lookup table, which frees room in the transaction. */
export function routeMaxAccounts(hasRelayLookupTable: boolean): number {
  return hasRelayLookupTable ? ROUTE_MAX_ACCOUNTS_WITH_TABLE : ROUTE_MAX_ACCOUNTS;
}

/** Answers larger than this are not a quote: refuse before parsing. */
const MAX_BODY_CHARS = 4 * 1024 * 1024;

/**
 * Jupiter's Swap API (GET /quote, POST /swap-instructions) as a SwapVenue.
 * Every failure comes back as a value: the relay maps it to the spec's errors.
 */
export class JupiterSwapApi implements SwapVenue {
  readonly kind = "jupiter" as const;
  readonly baseUrl: string;
  // A private field: JSON.stringify and util.inspect of the venue never show the key.
  readonly #apiKey: string | null;
  readonly timeoutMs: number;
  readonly restrictIntermediateTokens: boolean;
  readonly maxAccounts: number;
  private readonly fetchImpl: typeof fetch;

  constructor(options: JupiterOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs;
    this.restrictIntermediateTokens = options.restrictIntermediateTokens;
    this.maxAccounts = options.maxAccounts ?? ROUTE_MAX_ACCOUNTS;
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  async quote(req: QuoteRequest): Promise<Result<SwapQuote, SwapVenueError>> {
    const q = new URLSearchParams({
      inputMint: req.inputMint,
      outputMint: req.outputMint,
      amount: req.amount.toString(),
      slippageBps: String(req.slippageBps),
      swapMode: "ExactIn",
      restrictIntermediateTokens: String(this.restrictIntermediateTokens),
      maxAccounts: String(this.maxAccounts),
    });
    if (req.dexes.length > 0) q.set("dexes", req.dexes.join(","));
    const answer = await this.call("GET", `/quote?${q.toString()}`);
    if (!answer.ok) return answer;
    const quote = decodeQuote(answer.value, req);
    return quote.ok ? quote : err({ kind: "Unavailable", detail: `Jupiter sent a malformed ${quote.error}` });
  }

  /** The instructions of the swap a quote describes; the quote goes back exactly as Jupiter sent it. */
  async swapInstructions(quote: SwapQuote, req: SwapInstructionsRequest): Promise<Result<SwapInstructions, SwapVenueError>> {
    if (quote.venue !== "jupiter" || quote.raw === undefined) return err({ kind: "InvalidRequest", detail: "not a Jupiter quote" });
    const answer = await this.call("POST", "/swap-instructions", { ...req, quoteResponse: quote.raw });
    if (!answer.ok) return answer;
    const decoded = decodeSwapInstructions(answer.value);
    return decoded.ok ? decoded : err({ kind: "Unavailable", detail: `Jupiter sent malformed swap instructions: ${decoded.error}` });
  }

  private async call(method: "GET" | "POST", path: string, body?: unknown): Promise<Result<unknown, SwapVenueError>> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (this.#apiKey) headers["x-api-key"] = this.#apiKey;
    if (body !== undefined) headers["content-type"] = "application/json";
    const what = `${method} ${path.split("?")[0]} at ${redactUrl(this.baseUrl)}`;
    let status: number;
    let text: string;
    try {
      const res = await this.fetchImpl(this.baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: "error",
      });
      status = res.status;
      const length = Number(res.headers.get("content-length") ?? "0");
      if (length > MAX_BODY_CHARS) {
        await res.body?.cancel();
        return err({ kind: "Unavailable", detail: `${what}: answer of ${length} bytes is too large` });
      }
      text = await res.text();
    } catch (e) {
      const name = e instanceof Error ? e.name : "";
      if (name === "TimeoutError" || name === "AbortError") return err({ kind: "Unavailable", detail: `${what}: no answer within ${this.timeoutMs} ms` });
      const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : "";
      return err({ kind: "Unavailable", detail: `${what}: ${e instanceof Error ? e.message : String(e)}${cause}` });
    }
    if (status < 200 || status >= 300) return err(venueError(status, text));
    if (text.length > MAX_BODY_CHARS) return err({ kind: "Unavailable", detail: `${what}: answer too large` });
    try {
      return ok(JSON.parse(text) as unknown);
    } catch {
      return err({ kind: "Unavailable", detail: `${what}: answered ${status} with a body that is not JSON` });
    }
  }
}
