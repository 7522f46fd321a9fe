import type { Ed25519Verify } from "../../../src-shared/crypto/ed25519";
import { parsePublicKey, parseSignature } from "../../../src-shared/encoding/base58";
import { revertMessage } from "../../../src-shared/messages";
import { err, ok, type Result } from "../../../src-shared/result";

export interface RevertBody {
  wallet: string;
  walletBytes: Uint8Array;
  /** Null when the text is not 64 base58 bytes: it cannot verify, which is InvalidSignature, not a malformed request. */
  signature: Uint8Array | null;
  message: string;
}

/**
 * The revert request body (spec: wallet, signature, message). A body of the
 * wrong shape is InvalidRequest naming the field; a signature string that
 * cannot be an ed25519 signature is left for the signature check.
 */
export function parseRevertBody(body: unknown): Result<RevertBody, { field: string; problem: string }> {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return err({ field: "body", problem: "must be a JSON object { wallet, signature, message }" });
  const b = body as Record<string, unknown>;
  const wallet = parsePublicKey(b.wallet);
  if (!wallet.ok) return err({ field: "wallet", problem: `${wallet.error} (a base58 public key)` });
  if (typeof b.signature !== "string") return err({ field: "signature", problem: "must be a base58 string" });
  if (typeof b.message !== "string") return err({ field: "message", problem: "must be the signed text `Revert deposit: <txn_sig>`" });
  if (b.message.length > 256) return err({ field: "message", problem: "is longer than any revert message" });
  const sig = parseSignature(b.signature);
  return ok({ wallet: b.wallet as string, walletBytes: wallet.value, signature: sig.ok ? sig.value : null, message: b.message });
}

export interface RevertAuthorization {
  /** The deposit transaction signature from the path. */
  txnSig: string;
  /** The body's fields, as sent. */
  message: string;
  wallet: string;
  walletBytes: Uint8Array;
  /** Null when the body's signature is not 64 base58 bytes: it cannot match. */
  signature: Uint8Array | null;
  /** The wallet behind the path's (valid) auth token. */
  tokenWallet: string;
}

export interface InvalidRevertSignature {
  error: "InvalidSignature";
  detail: string;
}

/**
 * The spec's first revert check: the body's message is exactly
 * `Revert deposit: <txn_sig>` for the deposit in the path, the body's wallet
 * signed it, and that wallet is the one the auth token was issued to. A
 * signature of another deposit, of another text, or by another wallet is
 * `InvalidSignature` ("wrong wallet signed"). `verify` is the relay's native
 * ed25519 check (adapters/keys/ed25519-native.ts): the core does no I/O and
 * picks no crypto backend.
 */
export function checkRevertAuthorization(a: RevertAuthorization, verify: Ed25519Verify): Result<void, InvalidRevertSignature> {
  const expected = revertMessage(a.txnSig);
  if (a.message !== expected) return err({ error: "InvalidSignature", detail: `message must be exactly "${expected.slice(0, 120)}"` });
  if (!a.signature || !verify(a.message, a.signature, a.walletBytes)) {
    return err({ error: "InvalidSignature", detail: "signature does not verify for wallet and message" });
  }
  if (a.wallet !== a.tokenWallet) return err({ error: "InvalidSignature", detail: "wallet is not the wallet the auth token was issued to" });
  return ok(undefined);
}
