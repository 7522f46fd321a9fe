import type { Ed25519Verify } from "../../../src-shared/crypto/ed25519";
import { decodeBody, type BodyProblem } from "../../../src-shared/api/request-fields";
import { revertRequest } from "../../../src-shared/api/requests";
import { parseSignature } from "../../../src-shared/encoding/base58";
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
 * The revert request body (src-shared/api/requests.ts: wallet, signature, message). A body of the
 * wrong shape is InvalidRequest naming the field; a signature string that
 * cannot be an ed25519 signature is left for the signature check.
 */
export function parseRevertBody(body: unknown): Result<RevertBody, BodyProblem> {
  const r = decodeBody(revertRequest, body);
  if (!r.ok) return r;
  const { wallet, signature, message } = r.value;
  const sig = parseSignature(signature);
  return ok({ wallet: wallet.text, walletBytes: wallet.bytes, signature: sig.ok ? sig.value : null, message });
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
 * ed25519 check (ports/signature-verifier.ts): the core does no I/O and
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
