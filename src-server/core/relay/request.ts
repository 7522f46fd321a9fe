import { parsePublicKey } from "../../../src-shared/encoding/base58";
import { parseByteArray } from "../../../src-shared/encoding/bytes";
import { parseFieldBytes } from "../../../src-shared/encoding/field";
import { isNetwork, type Network } from "../../../src-shared/networks";
import { err, ok, type Result } from "../../../src-shared/result";
import { PROOF_BYTES } from "../proof/codec";

export interface WithdrawalRequest {
  network: Network;
  mint: string;
  mintBytes: Uint8Array;
  recipient: string;
  recipientBytes: Uint8Array;
  nullifierHash: Uint8Array;
  root: Uint8Array;
  proof: Uint8Array;
  depositSize: bigint;
}

export interface SwapWithdrawalRequest extends WithdrawalRequest {
  outputMint: string;
  outputMintBytes: Uint8Array;
}

/** Which field is wrong and how, for `{ status: 400, error: "InvalidRequest", message }`. */
export interface RequestProblem {
  field: string;
  problem: string;
}

const bad = (field: string, problem: string): { ok: false; error: RequestProblem } => err({ field, problem });

/**
 * The spec's withdrawal request, checked field by field in a fixed order.
 * Lengths are checked before any decoding (base58 is quadratic in length).
 */
export function parseWithdrawalRequest(body: unknown, mintField: "mint" | "input_mint" = "mint"): Result<WithdrawalRequest, RequestProblem> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return bad("body", "must be a JSON object");
  const b = body as Record<string, unknown>;

  const nullifierHash = parseFieldBytes(b.nullifierHash);
  if (!nullifierHash.ok) return bad("nullifierHash", `${nullifierHash.error} (32 bytes, big-endian, below the field modulus)`);
  const proof = parseByteArray(b.proof, PROOF_BYTES);
  if (!proof.ok) return bad("proof", `${proof.error} (${PROOF_BYTES} bytes)`);
  const root = parseFieldBytes(b.root);
  if (!root.ok) return bad("root", `${root.error} (32 bytes, big-endian, below the field modulus)`);
  const recipient = parsePublicKey(b.recipient);
  if (!recipient.ok) return bad("recipient", `${recipient.error} (a base58 public key)`);
  if (b.depth !== 32) return bad("depth", "must be 32");
  const ds = b.depositSize;
  if (typeof ds !== "number" || !Number.isSafeInteger(ds) || ds <= 0) {
    return bad("depositSize", "must be a positive integer number of base units, at most 2^53 - 1");
  }
  const mint = parsePublicKey(b[mintField]);
  if (!mint.ok) return bad(mintField, `${mint.error} (a base58 public key)`);
  const network = b.network === undefined ? "mainnet" : b.network;
  if (!isNetwork(network)) return bad("network", "must be mainnet or devnet");

  return ok({
    network,
    mint: b[mintField] as string,
    mintBytes: mint.value,
    recipient: b.recipient as string,
    recipientBytes: recipient.value,
    nullifierHash: nullifierHash.value,
    root: root.value,
    proof: proof.value,
    depositSize: BigInt(ds),
  });
}

export function parseSwapWithdrawalRequest(body: unknown): Result<SwapWithdrawalRequest, RequestProblem> {
  const base = parseWithdrawalRequest(body, "input_mint");
  if (!base.ok) return base;
  const out = (body as Record<string, unknown>).output_mint;
  const outputMint = parsePublicKey(out);
  if (!outputMint.ok) return bad("output_mint", `${outputMint.error} (a base58 public key)`);
  if (out === base.value.mint) return bad("output_mint", "must differ from input_mint (use /relay to withdraw without a swap)");
  return ok({ ...base.value, outputMint: out as string, outputMintBytes: outputMint.value });
}
