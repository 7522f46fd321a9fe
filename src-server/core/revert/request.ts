import { verifyEd25519 } from "../../../src-shared/crypto/ed25519";
import { revertMessage } from "../../../src-shared/messages";
import { err, ok, type Result } from "../../../src-shared/result";

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
 * `InvalidSignature` ("wrong wallet signed").
 */
export function checkRevertAuthorization(a: RevertAuthorization): Result<void, InvalidRevertSignature> {
  const expected = revertMessage(a.txnSig);
  if (a.message !== expected) return err({ error: "InvalidSignature", detail: `message must be exactly "${expected.slice(0, 120)}"` });
  if (!a.signature || !verifyEd25519(a.message, a.signature, a.walletBytes)) {
    return err({ error: "InvalidSignature", detail: "signature does not verify for wallet and message" });
  }
  if (a.wallet !== a.tokenWallet) return err({ error: "InvalidSignature", detail: "wallet is not the wallet the auth token was issued to" });
  return ok(undefined);
}
