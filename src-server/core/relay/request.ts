import { U64_MAX } from "../../../src-shared/crypto/protocol";
import { parsePublicKey } from "../../../src-shared/encoding/base58";
import { parseByteArray } from "../../../src-shared/encoding/bytes";
import { isZeroBytes, parseFieldBytes } from "../../../src-shared/encoding/field";
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

export interface SwapWithdrawalRequest extends WithdrawalRequest {
  outputMint: string;
  outputMintBytes: Uint8Array;
  /** The least the recipient must receive of outputMint, bound by the proof. */
  minOut: bigint;
}

const DECIMAL = /^(?:0|[1-9][0-9]{0,19})$/;

/**
 * A u64 amount as a JSON number (a safe integer: a larger number already lost
 * precision in JSON) or a decimal string. `positive` refuses zero.
 */
export function parseU64(value: unknown, positive: boolean): Result<bigint, string> {
  let x: bigint;
  if (typeof value === "number") {
    if (!Number.isInteger(value)) return err("must be an integer number of base units");
    if (!Number.isSafeInteger(value)) return err("must be at most 2^53 - 1 as a JSON number (send larger amounts as a decimal string)");
    x = BigInt(value);
  } else if (typeof value === "string") {
    if (!DECIMAL.test(value)) return err("must be a decimal string of base units (digits only, no sign, no leading zeros)");
    x = BigInt(value);
  } else {
    return err("must be an integer (JSON number or decimal string) of base units");
  }
  if (x < 0n) return err("must not be negative");
  if (positive && x === 0n) return err("must be positive");
  if (x > U64_MAX) return err("must fit in a u64");
  return ok(x);
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
  // The part withdrawn, 1 .. 2^64 - 1 (protocol v3): a JSON number as the spec has it, or decimal text above 2^53 - 1.
  const parsedSize = parseU64(b.depositSize, true);
  if (!parsedSize.ok) return bad("depositSize", `${parsedSize.error} (the part of the note withdrawn, 1 .. 2^64 - 1 base units)`);
  const ds = parsedSize.value;
  const mint = parsePublicKey(b[mintField]);
  if (!mint.ok) return bad(mintField, `${mint.error} (a base58 public key)`);
  const network = b.network === undefined ? "mainnet" : b.network;
  if (!isNetwork(network)) return bad("network", "must be mainnet or devnet");
  let fee: bigint | null = null;
  if (b.fee !== undefined) {
    const parsedFee = parseU64(b.fee, false);
    if (!parsedFee.ok) return bad("fee", parsedFee.error);
    if (parsedFee.value > ds) return bad("fee", `must not exceed depositSize (${ds})`);
    fee = parsedFee.value;
  }
  let relayer: string | null = null;
  if (b.relayer !== undefined) {
    const parsedRelayer = parsePublicKey(b.relayer);
    if (!parsedRelayer.ok) return bad("relayer", `${parsedRelayer.error} (a base58 public key)`);
    relayer = b.relayer as string;
  }
  // Protocol v3's field comes after v2's, as each protocol's fields follow the spec's.
  if (b.changeCommitment === undefined) {
    return bad("changeCommitment", "is required (protocol v3): the change leaf the proof inserts, 32 bytes as an array of integers 0..255");
  }
  const changeCommitment = parseFieldBytes(b.changeCommitment);
  if (!changeCommitment.ok) return bad("changeCommitment", `${changeCommitment.error} (32 bytes, big-endian, below the field modulus)`);
  // The pool refuses a zero leaf (InvalidInput) before the proof; a zero here can never land.
  if (isZeroBytes(changeCommitment.value))
    return bad("changeCommitment", "must not be zero (every withdrawal inserts a change leaf, also when nothing is left)");

  return ok({
    network,
    mint: b[mintField] as string,
    mintBytes: mint.value,
    recipient: b.recipient as string,
    recipientBytes: recipient.value,
    nullifierHash: nullifierHash.value,
    root: root.value,
    proof: proof.value,
    depositSize: ds,
    changeCommitment: changeCommitment.value,
    fee,
    relayer,
  });
}

export function parseSwapWithdrawalRequest(body: unknown): Result<SwapWithdrawalRequest, RequestProblem> {
  const base = parseWithdrawalRequest(body, "input_mint");
  if (!base.ok) return base;
  const out = (body as Record<string, unknown>).output_mint;
  const outputMint = parsePublicKey(out);
  if (!outputMint.ok) return bad("output_mint", `${outputMint.error} (a base58 public key)`);
  if (out === base.value.mint) return bad("output_mint", "must differ from input_mint (use /relay to withdraw without a swap)");
  const rawMinOut = (body as Record<string, unknown>).minOut;
  if (rawMinOut === undefined) return bad("minOut", "is required: the least the recipient must receive of output_mint, as bound by the proof");
  const minOut = parseU64(rawMinOut, true);
  if (!minOut.ok) return bad("minOut", minOut.error);
  return ok({ ...base.value, outputMint: out as string, outputMintBytes: outputMint.value, minOut: minOut.value });
}
