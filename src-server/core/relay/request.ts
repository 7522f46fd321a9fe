import type { Base58Value, BodyProblem } from "../../../src-shared/api/request-fields";
import { decodeBody } from "../../../src-shared/api/request-fields";
import { relayRequest, relaySwapRequest } from "../../../src-shared/api/requests";
import type { Network } from "../../../src-shared/networks";
import { ok, type Result } from "../../../src-shared/result";

export { parseU64 } from "../../../src-shared/api/request-fields";

/**
 * A withdrawal request as the relay decoded it (src-shared/api/requests.ts declares the wire
 * shape, which the SDK sends): keys as text and bytes, amounts as bigint.
 */
export interface ParsedWithdrawal {
  network: Network;
  mint: string;
  mintBytes: Uint8Array;
  recipient: string;
  recipientBytes: Uint8Array;
  nullifierHash: Uint8Array;
  root: Uint8Array;
  proof: Uint8Array;
  /** The part of the note withdrawn (protocol v3: the note's value is private); the fee is charged on it. */
  depositSize: bigint;
  /**
   * The change leaf the withdrawal inserts (protocol v3, the seventh public
   * input): non-zero and below the field modulus, required.
   */
  changeCommitment: Uint8Array;
  /**
   * The fee the client proved for (protocol v2, bound by extDataHash), in base
   * units of the mint; null: the fee GET /fees publishes now.
   */
  fee: bigint | null;
  /** The relayer key the client proved for (base58); null: this relay's own. */
  relayer: string | null;
}

export interface ParsedSwapWithdrawal extends ParsedWithdrawal {
  outputMint: string;
  outputMintBytes: Uint8Array;
  /** The least the recipient must receive of outputMint, bound by the proof. */
  minOut: bigint;
}

/** The cross-field rule of both withdrawals: the fee is charged on the part withdrawn, so it cannot exceed it. */
const feeWithinDepositSize = (d: { depositSize?: bigint; fee?: bigint | null }): string | null =>
  d.fee != null && d.depositSize !== undefined && d.fee > d.depositSize ? `fee: must not exceed depositSize (${d.depositSize})` : null;

function withdrawal(
  v: { mint: Base58Value; recipient: Base58Value; relayer: Base58Value | null; fee: bigint | null; network: Network; depositSize: bigint },
  rest: { nullifierHash: Uint8Array; root: Uint8Array; proof: Uint8Array; changeCommitment: Uint8Array },
): ParsedWithdrawal {
  return {
    network: v.network,
    mint: v.mint.text,
    mintBytes: v.mint.bytes,
    recipient: v.recipient.text,
    recipientBytes: v.recipient.bytes,
    nullifierHash: rest.nullifierHash,
    root: rest.root,
    proof: rest.proof,
    depositSize: v.depositSize,
    changeCommitment: rest.changeCommitment,
    fee: v.fee,
    relayer: v.relayer?.text ?? null,
  };
}

/**
 * POST /relay's body, checked field by field in the declaration's order (lengths before any
 * decoding), plus the one rule that reads two fields: the fee within depositSize.
 */
export function parseWithdrawalRequest(body: unknown): Result<ParsedWithdrawal, BodyProblem> {
  const r = decodeBody(relayRequest, body, { fee: feeWithinDepositSize });
  return r.ok ? ok(withdrawal(r.value, r.value)) : r;
}

/** POST /relay_swap's body: a withdrawal of input_mint whose output_mint must differ from it. */
export function parseSwapWithdrawalRequest(body: unknown): Result<ParsedSwapWithdrawal, BodyProblem> {
  const r = decodeBody(relaySwapRequest, body, {
    fee: feeWithinDepositSize,
    output_mint: (d) =>
      d.output_mint?.text === d.input_mint?.text ? "output_mint: must differ from input_mint (use /relay to withdraw without a swap)" : null,
  });
  if (!r.ok) return r;
  const v = r.value;
  return ok({ ...withdrawal({ ...v, mint: v.input_mint }, v), outputMint: v.output_mint.text, outputMintBytes: v.output_mint.bytes, minOut: v.minOut });
}
