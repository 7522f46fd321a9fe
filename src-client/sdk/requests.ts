/** The requests the SDK sends, and how their amounts and bytes go on the wire (JSON numbers exact up to 2^53 - 1, u64 as decimal text). */
import type { Network } from "../../src-shared/networks";
import { U64_MAX } from "../../src-shared/crypto/protocol";
import { TREE_DEPTH } from "../../src-shared/pool-program/constants";

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
   * Protocol v2: the fee the proof was made for, in base units of
   * the withdrawn mint. Left out, the relay charges its published fee, so a
   * proof bound to any other fee is then refused (InvalidProof).
   */
  fee?: Amount;
  /** The relayer key the proof was made for (GET /fees `relayers[network]`); another key is refused. */
  relayer?: string;
  /**
   * Protocol v3: the change leaf the withdrawal inserts (32 bytes, the
   * proof's seventh public signal). Required by the relay; `depositSize` is
   * the part of the note withdrawn.
   */
  changeCommitment: Uint8Array;
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

/** The tree depth every request names (the spec's `depth`), exported for SDK users; defined once in src-shared. */
export { TREE_DEPTH };

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

export const bytes = (b: Uint8Array): number[] => Array.from(b);

/** The body fields a withdrawal and a swap withdrawal share. */
export function withdrawalWire(req: Omit<WithdrawalRequest, "mint">): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    nullifierHash: bytes(req.nullifierHash),
    proof: bytes(req.proof),
    root: bytes(req.root),
    recipient: req.recipient,
    depth: TREE_DEPTH,
    depositSize: amountToWire(req.depositSize),
    network: req.network ?? "mainnet",
    changeCommitment: bytes(req.changeCommitment),
  };
  if (req.fee !== undefined) wire.fee = amountToWire(req.fee);
  if (req.relayer !== undefined) wire.relayer = req.relayer;
  return wire;
}
