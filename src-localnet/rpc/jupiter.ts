/**
 * A Jupiter-compatible Swap API v1 served by the local validator under
 * `/jupiter/swap/v1` (point the relay's `jupiter.baseUrl` at
 * `<rpcUrl>/jupiter/swap/v1`). It routes every pair through the validator's
 * constant-product pools (the cp-swap program, programs/cp-swap), one hop:
 *
 *  - `GET /quote?inputMint&outputMint&amount&slippageBps&swapMode&dexes&maxAccounts&…`:
 *    Jupiter's quote response (amounts as decimal strings, `priceImpactPct` a
 *    fraction as text, `routePlan[].swapInfo` with the pool as `ammKey` and
 *    label `localnet-cp`, `contextSlot`, `timeTaken`). No pool, a `dexes`
 *    list without `localnet-cp`, a `maxAccounts` below the route's 7 accounts
 *    (more when padded, below),
 *    or an output above half the output reserve:
 *    400 `{ error, errorCode: "COULD_NOT_FIND_ANY_ROUTE" }`.
 *  - `POST /swap-instructions { userPublicKey, quoteResponse,
 *    destinationTokenAccount?, … }`: the cp-swap instruction for the user
 *    (amountIn = quote inAmount, minAmountOut = quote otherAmountThreshold,
 *    source = the user's associated token account of the input mint,
 *    destination = destinationTokenAccount or the user's associated token
 *    account of the output mint) as `swapInstruction`. As with Jupiter, the
 *    destination need not exist yet: a relay's withdraw_swap passes its swap
 *    escrow (protocol v3), which the pool program creates earlier in the same
 *    transaction and the venue pays into. No setup or cleanup
 *    instructions, and the pool's address lookup table (pool, vaults, mints,
 *    token / system / associated token programs) in
 *    `addressLookupTableAddresses`, as Jupiter's routes come with theirs.
 *
 * `beforeNextSwapInstructions(fn)` runs `fn` once before the next
 * swap-instructions answer: tests move a pool between a relay's quote and its
 * execution with it. `padRoutes({ accounts, lookupTable })` makes every route
 * longer, as a real multi-hop route is: the swap instruction names these
 * accounts too (read-only, after its own; the cp-swap program ignores them),
 * `lookupTable` (which must hold them) comes with the pool's, and a quote
 * whose `maxAccounts` is below 7 + their number finds no route.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { PublicKey, type TransactionInstruction } from "@solana/web3.js";
import { associatedTokenAddress } from "../../src-shared/pool-program";
import { cpSwap } from "../../src-shared/swap/constant-product";
import { CP_SWAP_LABEL, CP_SWAP_PROGRAM_ID, cpSwapInstruction, readCpPool, type CpPoolLedger } from "../programs/cp-swap-client";

export const JUPITER_PATH = "/jupiter/swap/v1";
/** Accounts of the one cp-swap instruction a route is. */
const CP_SWAP_ACCOUNTS = 7;
const MAX_BODY = 1024 * 1024;
const UINT = /^(0|[1-9][0-9]{0,19})$/;
const U64_MAX = (1n << 64n) - 1n;

export interface LocalJupiterOptions {
  ledger: Pick<CpPoolLedger, "getAccount"> & { readonly slot: number };
  programId?: string;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function isKey(v: unknown): v is string {
  if (typeof v !== "string" || v.length < 32 || v.length > 44) return false;
  try {
    return new PublicKey(v).toBase58() === v;
  } catch {
    return false;
  }
}

function wire(ix: TransactionInstruction) {
  return {
    programId: ix.programId.toBase58(),
    accounts: ix.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
    data: Buffer.from(ix.data).toString("base64"),
  };
}

/** Accounts a route names beyond the cp-swap instruction's own, and the lookup table that holds them. */
export interface RoutePadding {
  accounts: readonly string[];
  lookupTable: string;
}

export class LocalJupiterApi {
  private readonly programId: string;
  private readonly pending: (() => unknown)[] = [];
  #padding: RoutePadding | null = null;
  /** Requests answered, by endpoint (tests check the relay went through here). */
  readonly calls = { quote: 0, swapInstructions: 0 };

  constructor(private readonly opts: LocalJupiterOptions) {
    this.programId = opts.programId ?? CP_SWAP_PROGRAM_ID;
  }

  /** Runs `fn` (awaited) before the next swap-instructions answer. */
  beforeNextSwapInstructions(fn: () => unknown): void {
    this.pending.push(fn);
  }

  /** Every route from now on names `padding.accounts` too (null: routes of the cp-swap instruction alone). */
  padRoutes(padding: RoutePadding | null): void {
    this.#padding = padding;
  }

  /** The padding routes get now (padRoutes). */
  get padding(): RoutePadding | null {
    return this.#padding;
  }

  /** How many accounts a route names now. */
  get routeAccounts(): number {
    return CP_SWAP_ACCOUNTS + (this.#padding?.accounts.length ?? 0);
  }

  /** GET /quote's answer for these query parameters. */
  quote(q: URLSearchParams): unknown {
    const start = performance.now();
    const inputMint = q.get("inputMint");
    const outputMint = q.get("outputMint");
    if (!isKey(inputMint)) throw new ApiError(400, "INVALID_MINT", "Query parameter inputMint cannot be parsed: invalid public key");
    if (!isKey(outputMint)) throw new ApiError(400, "INVALID_MINT", "Query parameter outputMint cannot be parsed: invalid public key");
    if (inputMint === outputMint) throw new ApiError(400, "CIRCULAR_ARBITRAGE_IS_DISABLED", "Circular arbitrage is disabled");
    const amountText = q.get("amount") ?? "";
    if (!UINT.test(amountText) || BigInt(amountText) === 0n || BigInt(amountText) > U64_MAX)
      throw new ApiError(400, "INVALID_AMOUNT", "Query parameter amount cannot be parsed");
    const amount = BigInt(amountText);
    const slippageText = q.get("slippageBps") ?? "50";
    if (!/^[0-9]{1,5}$/.test(slippageText) || Number(slippageText) > 10_000)
      throw new ApiError(400, "INVALID_SLIPPAGE", "Query parameter slippageBps cannot be parsed");
    const slippageBps = Number(slippageText);
    const swapMode = q.get("swapMode") ?? "ExactIn";
    if (swapMode !== "ExactIn") throw new ApiError(400, "INVALID_SWAP_MODE", `swapMode ${swapMode} is not supported by the local venue (ExactIn only)`);
    const dexes = (q.get("dexes") ?? "")
      .split(",")
      .map((d) => d.trim())
      .filter((d) => d.length > 0);
    const noRoute = () => new ApiError(400, "COULD_NOT_FIND_ANY_ROUTE", "Could not find any route");
    if (dexes.length > 0 && !dexes.includes(CP_SWAP_LABEL)) throw noRoute();
    // Jupiter's bound on the route's accounts, for callers that compose it with their own instructions (a relay's withdraw_swap).
    const maxAccountsText = q.get("maxAccounts");
    if (maxAccountsText !== null) {
      if (!/^[0-9]{1,3}$/.test(maxAccountsText) || Number(maxAccountsText) < 1)
        throw new ApiError(400, "INVALID_REQUEST", "Query parameter maxAccounts cannot be parsed");
      if (Number(maxAccountsText) < this.routeAccounts) throw noRoute();
    }
    const pool = readCpPool(this.opts.ledger, inputMint, outputMint, this.programId);
    if (!pool) throw noRoute();
    const [rIn, rOut] = pool.mintA === inputMint ? [pool.reserveA, pool.reserveB] : [pool.reserveB, pool.reserveA];
    const s = cpSwap(amount, rIn, rOut);
    if (!s.ok) throw noRoute();
    const out = s.value.amountOut;
    const threshold = (out * BigInt(10_000 - slippageBps)) / 10_000n;
    return {
      inputMint,
      inAmount: amount.toString(),
      outputMint,
      outAmount: out.toString(),
      otherAmountThreshold: threshold.toString(),
      swapMode: "ExactIn",
      slippageBps,
      platformFee: null,
      // Jupiter's priceImpactPct is a fraction (0.01 = 1 %).
      priceImpactPct: String(Number(amount) / Number(rIn + amount)),
      routePlan: [
        {
          swapInfo: {
            ammKey: pool.pool,
            label: CP_SWAP_LABEL,
            inputMint,
            outputMint,
            inAmount: amount.toString(),
            outAmount: out.toString(),
            feeAmount: s.value.feeAmount.toString(),
            feeMint: inputMint,
          },
          percent: 100,
          bps: 10_000,
        },
      ],
      contextSlot: this.opts.ledger.slot,
      timeTaken: (performance.now() - start) / 1000,
    };
  }

  /** POST /swap-instructions' answer for this body. */
  async swapInstructions(body: unknown): Promise<unknown> {
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw new ApiError(400, "INVALID_REQUEST", "expected a JSON object");
    const b = body as Record<string, unknown>;
    if (!isKey(b.userPublicKey)) throw new ApiError(400, "INVALID_REQUEST", "userPublicKey: invalid public key");
    if (b.destinationTokenAccount !== undefined && b.destinationTokenAccount !== null && !isKey(b.destinationTokenAccount)) {
      throw new ApiError(400, "INVALID_REQUEST", "destinationTokenAccount: invalid public key");
    }
    const q = b.quoteResponse;
    if (typeof q !== "object" || q === null) throw new ApiError(400, "INVALID_REQUEST", "quoteResponse: required");
    const quote = q as Record<string, unknown>;
    const inAmount = typeof quote.inAmount === "string" && UINT.test(quote.inAmount) ? BigInt(quote.inAmount) : null;
    const threshold = typeof quote.otherAmountThreshold === "string" && UINT.test(quote.otherAmountThreshold) ? BigInt(quote.otherAmountThreshold) : null;
    if (!isKey(quote.inputMint) || !isKey(quote.outputMint) || inAmount === null || threshold === null || inAmount > U64_MAX || threshold > U64_MAX) {
      throw new ApiError(400, "INVALID_REQUEST", "quoteResponse: inputMint, outputMint, inAmount and otherAmountThreshold are required");
    }
    if (quote.swapMode !== undefined && quote.swapMode !== "ExactIn") throw new ApiError(400, "INVALID_SWAP_MODE", "ExactIn only");
    const pool = readCpPool(this.opts.ledger, quote.inputMint, quote.outputMint, this.programId);
    const routed = Array.isArray(quote.routePlan) ? (quote.routePlan[0] as { swapInfo?: { ammKey?: unknown } } | undefined)?.swapInfo?.ammKey : undefined;
    if (!pool || (routed !== undefined && routed !== pool.pool)) throw new ApiError(400, "MARKET_NOT_FOUND", "the quote's market does not exist");
    for (const fn of this.pending.splice(0)) await fn();
    const user = b.userPublicKey;
    const destination = (b.destinationTokenAccount as string | undefined | null) ?? associatedTokenAddress(user, quote.outputMint);
    const ix = cpSwapInstruction({
      user,
      inputMint: quote.inputMint,
      outputMint: quote.outputMint,
      amountIn: inAmount,
      minAmountOut: threshold,
      destination,
      programId: this.programId,
    });
    const padding = this.#padding;
    if (padding) ix.keys.push(...padding.accounts.map((a) => ({ pubkey: new PublicKey(a), isSigner: false, isWritable: false })));
    return {
      tokenLedgerInstruction: null,
      computeBudgetInstructions: [],
      setupInstructions: [],
      swapInstruction: wire(ix),
      cleanupInstruction: null,
      otherInstructions: [],
      addressLookupTableAddresses: padding ? [pool.lookupTable, padding.lookupTable] : [pool.lookupTable],
      prioritizationFeeLamports: 0,
      computeUnitLimit: 200_000,
    };
  }

  /** Serves a request under JUPITER_PATH; false when the path is not ours. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (!url.pathname.startsWith(`${JUPITER_PATH}/`)) return false;
    const route = url.pathname.slice(JUPITER_PATH.length);
    const send = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      if (res.headersSent || res.destroyed) return;
      res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
    };
    try {
      if (route === "/quote" && req.method === "GET") {
        this.calls.quote++;
        send(200, this.quote(url.searchParams));
      } else if (route === "/swap-instructions" && req.method === "POST") {
        this.calls.swapInstructions++;
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of req) {
          size += (chunk as Buffer).length;
          if (size > MAX_BODY) throw new ApiError(413, "PAYLOAD_TOO_LARGE", "body too large");
          chunks.push(chunk as Buffer);
        }
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          throw new ApiError(400, "INVALID_REQUEST", "body is not JSON");
        }
        send(200, await this.swapInstructions(body));
      } else {
        send(404, { error: `no route ${req.method} ${url.pathname}`, errorCode: "NOT_FOUND" });
      }
    } catch (e) {
      if (e instanceof ApiError) send(e.status, { error: e.message, errorCode: e.code });
      else send(500, { error: e instanceof Error ? e.message : String(e), errorCode: "INTERNAL" });
    }
    return true;
  }
}
