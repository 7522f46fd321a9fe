import { err, ok, type Result } from "../../../src-shared/result";
import type { RouteStep, SwapQuote } from "../../core/swap/quote";
import type { SwapVenueError, SwapVenueErrorKind } from "../../ports/swap-venue";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === "string" && v.length > 0;
const UINT = /^(0|[1-9][0-9]{0,38})$/;
const DECIMAL = /^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]{1,3})?$/;

function amount(v: unknown): bigint | null {
  return typeof v === "string" && UINT.test(v) ? BigInt(v) : null;
}

/**
 * Jupiter's `priceImpactPct` is a fraction despite its name ("0.0001" is
 * 0.01 %): jup-ag/terminal multiplies it by 100 before printing "% Price
 * Impact". The spec's field is percent, so the decimal point moves two places,
 * in text, so that no binary rounding creeps in before the one conversion.
 */
export function fractionToPercent(v: unknown): number | null {
  const raw = typeof v === "number" && Number.isFinite(v) ? String(v) : v;
  if (typeof raw !== "string" || raw.length > 64) return null;
  const text = raw.trim();
  if (!DECIMAL.test(text)) return null;
  const e = text.search(/[eE]/);
  const mantissa = e < 0 ? text : text.slice(0, e);
  const exponent = e < 0 ? 0 : Number(text.slice(e + 1));
  const pct = Number(`${mantissa}e${exponent + 2}`);
  return Number.isFinite(pct) ? pct : null;
}

function routeStep(v: unknown, i: number): Result<RouteStep, string> {
  if (!isObj(v) || !isObj(v.swapInfo)) return err(`routePlan[${i}]: expected { swapInfo, percent }`);
  const s = v.swapInfo;
  const inAmount = amount(s.inAmount);
  const outAmount = amount(s.outAmount);
  if (!isStr(s.ammKey) || !isStr(s.inputMint) || !isStr(s.outputMint) || inAmount === null || outAmount === null) {
    return err(`routePlan[${i}].swapInfo: ammKey, inputMint, outputMint and decimal-string amounts are required`);
  }
  const feeAmount = s.feeAmount === undefined || s.feeAmount === null ? null : amount(s.feeAmount);
  if (feeAmount === null && s.feeAmount !== undefined && s.feeAmount !== null) return err(`routePlan[${i}].swapInfo.feeAmount: not a decimal string`);
  // Newer answers carry `bps` (of 10 000) beside, or instead of, `percent`.
  let percent: number | null = typeof v.percent === "number" && Number.isFinite(v.percent) ? v.percent : null;
  if (percent === null && typeof v.bps === "number" && Number.isFinite(v.bps)) percent = v.bps / 100;
  return ok({
    swapInfo: {
      ammKey: s.ammKey,
      label: typeof s.label === "string" ? s.label : "",
      inputMint: s.inputMint,
      outputMint: s.outputMint,
      inAmount,
      outAmount,
      feeAmount,
      feeMint: isStr(s.feeMint) ? s.feeMint : null,
    },
    percent,
  });
}

/** A 200 body of GET /quote, checked against what was asked. */
export function decodeQuote(body: unknown, asked: { inputMint: string; outputMint: string; amount: bigint }): Result<SwapQuote, string> {
  if (!isObj(body)) return err("quote: expected a JSON object");
  const inAmount = amount(body.inAmount);
  const outAmount = amount(body.outAmount);
  if (inAmount === null || outAmount === null) return err("quote: inAmount and outAmount must be decimal strings");
  const threshold = body.otherAmountThreshold === undefined ? outAmount : amount(body.otherAmountThreshold);
  if (threshold === null) return err("quote: otherAmountThreshold must be a decimal string");
  const priceImpactPct = fractionToPercent(body.priceImpactPct);
  if (priceImpactPct === null) return err(`quote: priceImpactPct ${JSON.stringify(body.priceImpactPct)} is not a decimal`);
  if (!Array.isArray(body.routePlan)) return err("quote: routePlan must be an array");
  const routePlan: RouteStep[] = [];
  for (const [i, s] of body.routePlan.entries()) {
    const step = routeStep(s, i);
    if (!step.ok) return step;
    routePlan.push(step.value);
  }
  if (body.inputMint !== asked.inputMint || body.outputMint !== asked.outputMint || inAmount !== asked.amount) {
    return err(
      `quote: answered ${String(body.inAmount)} ${String(body.inputMint)} -> ${String(body.outputMint)}, asked ${asked.amount} ${asked.inputMint} -> ${asked.outputMint}`,
    );
  }
  if (body.swapMode !== undefined && body.swapMode !== "ExactIn") return err(`quote: swapMode ${String(body.swapMode)}, asked ExactIn`);
  const slippageBps = typeof body.slippageBps === "number" && Number.isInteger(body.slippageBps) ? body.slippageBps : null;
  if (slippageBps === null) return err("quote: slippageBps must be an integer");
  return ok({
    venue: "jupiter",
    inputMint: asked.inputMint,
    outputMint: asked.outputMint,
    inAmount,
    outAmount,
    otherAmountThreshold: threshold,
    slippageBps,
    priceImpactPct,
    routePlan,
    raw: body,
  });
}

/** errorCode values Jupiter documents or is seen sending, by what they mean for a client of the spec. */
const ERROR_CODES: Record<string, SwapVenueErrorKind> = {
  NO_ROUTES_FOUND: "InsufficientLiquidity",
  COULD_NOT_FIND_ANY_ROUTE: "InsufficientLiquidity",
  ROUTE_PLAN_DOES_NOT_CONSUME_ALL_THE_AMOUNT: "InsufficientLiquidity",
  TOKEN_NOT_TRADABLE: "InsufficientLiquidity",
  MARKET_NOT_FOUND: "InsufficientLiquidity",
  NOT_ENOUGH_LIQUIDITY: "InsufficientLiquidity",
  CIRCULAR_ARBITRAGE_IS_DISABLED: "InvalidRequest",
  INVALID_MINT: "InvalidRequest",
  INVALID_AMOUNT: "InvalidRequest",
  INVALID_SLIPPAGE: "InvalidRequest",
};

/**
 * A non-2xx answer: `{ error, errorCode }` bodies by their code; an unknown
 * code on a 400 or 422 is a refusal of the request; anything else (401/403: a
 * bad API key, 429, 5xx, a proxy's HTML page) means the venue is unavailable.
 */
export function venueError(status: number, text: string): SwapVenueError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  const code = isObj(body) && isStr(body.errorCode) ? body.errorCode : undefined;
  const message = isObj(body) && isStr(body.error) ? body.error : isObj(body) && isStr(body.message) ? body.message : text.slice(0, 200).trim();
  const detail = `Jupiter answered ${status}${code ? ` ${code}` : ""}${message ? `: ${message}` : ""}`;
  const known = code ? ERROR_CODES[code] : undefined;
  const kind: SwapVenueErrorKind = known ?? (status === 400 || status === 422 ? "InvalidRequest" : "Unavailable");
  return code ? { kind, detail, code } : { kind, detail };
}

export interface JupiterInstruction {
  programId: string;
  accounts: { pubkey: string; isSigner: boolean; isWritable: boolean }[];
  data: Uint8Array;
}

/** POST /swap-instructions, decoded: what the Solana backend assembles into one transaction. */
export interface SwapInstructions {
  tokenLedgerInstruction: JupiterInstruction | null;
  computeBudgetInstructions: JupiterInstruction[];
  setupInstructions: JupiterInstruction[];
  swapInstruction: JupiterInstruction;
  cleanupInstruction: JupiterInstruction | null;
  otherInstructions: JupiterInstruction[];
  addressLookupTableAddresses: string[];
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function instruction(v: unknown, where: string): Result<JupiterInstruction, string> {
  if (!isObj(v) || !isStr(v.programId) || !Array.isArray(v.accounts) || typeof v.data !== "string" || !BASE64.test(v.data)) {
    return err(`${where}: expected { programId, accounts, data (base64) }`);
  }
  const accounts: JupiterInstruction["accounts"] = [];
  for (const [i, a] of v.accounts.entries()) {
    if (!isObj(a) || !isStr(a.pubkey) || typeof a.isSigner !== "boolean" || typeof a.isWritable !== "boolean")
      return err(`${where}.accounts[${i}]: expected { pubkey, isSigner, isWritable }`);
    accounts.push({ pubkey: a.pubkey, isSigner: a.isSigner, isWritable: a.isWritable });
  }
  return ok({ programId: v.programId, accounts, data: new Uint8Array(Buffer.from(v.data, "base64")) });
}

function instructions(v: unknown, where: string, optional: boolean): Result<JupiterInstruction[], string> {
  if (v === undefined || v === null) return optional ? ok([]) : err(`${where}: required`);
  if (!Array.isArray(v)) return err(`${where}: expected an array`);
  const out: JupiterInstruction[] = [];
  for (const [i, x] of v.entries()) {
    const ix = instruction(x, `${where}[${i}]`);
    if (!ix.ok) return ix;
    out.push(ix.value);
  }
  return ok(out);
}

function maybeInstruction(v: unknown, where: string): Result<JupiterInstruction | null, string> {
  return v === undefined || v === null ? ok(null) : instruction(v, where);
}

export function decodeSwapInstructions(body: unknown): Result<SwapInstructions, string> {
  if (!isObj(body)) return err("swap-instructions: expected a JSON object");
  if (isStr(body.error)) return err(`swap-instructions: ${body.error}`);
  const swap = instruction(body.swapInstruction, "swapInstruction");
  if (!swap.ok) return swap;
  const ledger = maybeInstruction(body.tokenLedgerInstruction, "tokenLedgerInstruction");
  if (!ledger.ok) return ledger;
  const cleanup = maybeInstruction(body.cleanupInstruction, "cleanupInstruction");
  if (!cleanup.ok) return cleanup;
  const budget = instructions(body.computeBudgetInstructions, "computeBudgetInstructions", true);
  if (!budget.ok) return budget;
  const setup = instructions(body.setupInstructions, "setupInstructions", true);
  if (!setup.ok) return setup;
  const other = instructions(body.otherInstructions, "otherInstructions", true);
  if (!other.ok) return other;
  const alts = body.addressLookupTableAddresses ?? [];
  if (!Array.isArray(alts) || !alts.every(isStr)) return err("addressLookupTableAddresses: expected an array of addresses");
  return ok({
    tokenLedgerInstruction: ledger.value,
    computeBudgetInstructions: budget.value,
    setupInstructions: setup.value,
    swapInstruction: swap.value,
    cleanupInstruction: cleanup.value,
    otherInstructions: other.value,
    addressLookupTableAddresses: alts,
  });
}
