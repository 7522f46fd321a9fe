import { verifyEd25519 } from "./crypto/ed25519";
import { encodeBase58, parsePublicKey, parseSignature } from "./encoding/base58";
import { complianceMessage } from "./messages";
import type { Network } from "./networks";
import { err, ok, type Result } from "./result";

/** A compliance signature is valid for 120 s from issue. */
export const COMPLIANCE_VALIDITY_SEC = 120;

/** The plain-text body of POST /get_ofac_signature: `<expiresAtUnix>.<base58 ed25519 signature>`. */
export const formatComplianceSignature = (expiresAtUnix: number, signature: Uint8Array): string => `${expiresAtUnix}.${encodeBase58(signature)}`;

export interface ParsedComplianceSignature {
  expiresAt: number;
  signature: Uint8Array;
}

const BODY = /^([0-9]{1,12})\.([1-9A-HJ-NP-Za-km-z]{1,100})$/;

export function parseComplianceSignature(text: string): Result<ParsedComplianceSignature, string> {
  const m = BODY.exec(text.trim());
  if (!m) return err("not <expiresAtUnix>.<base58 signature>");
  const sig = parseSignature(m[2]);
  if (!sig.ok) return err(`signature: ${sig.error}`);
  return ok({ expiresAt: Number(m[1]), signature: sig.value });
}

export type ComplianceCheckFailure =
  /** Not the `<expiresAtUnix>.<signature>` form, or a public key that is not 32 base58 bytes. */
  | { reason: "malformed"; message: string }
  /** Not signed by this key over this network and wallet (or the expiry was edited). */
  | { reason: "invalid-signature"; message: string }
  /** Signed, but its validity ended. */
  | { reason: "expired"; message: string; expiresAt: number };

export interface ComplianceCheckInput {
  /** The relay's compliance public key (base58 or 32 bytes), from GET /compliance/public_key. */
  publicKey: string | Uint8Array;
  network: Network;
  /** The wallet the signature must have been issued for. */
  wallet: string;
  /** Unix seconds; defaults to now. */
  nowSec?: number;
}

/**
 * Checks a compliance signature the way a pool program or a wallet would:
 * the ed25519 signature over `OFAC:<network>:<wallet>:<expiresAtUnix>` by the
 * relay's compliance key, and not yet expired. Answers the expiry and the
 * seconds left.
 */
export function verifyComplianceSignature(
  text: string,
  input: ComplianceCheckInput,
): Result<{ expiresAt: number; remainingSec: number }, ComplianceCheckFailure> {
  const key = typeof input.publicKey === "string" ? parsePublicKey(input.publicKey) : input.publicKey.length === 32 ? ok(input.publicKey) : err("wrong length");
  if (!key.ok) return err({ reason: "malformed", message: `public key: ${key.error}` });
  const parsed = parseComplianceSignature(text);
  if (!parsed.ok) return err({ reason: "malformed", message: parsed.error });
  const { expiresAt, signature } = parsed.value;
  if (!verifyEd25519(complianceMessage(input.network, input.wallet, expiresAt), signature, key.value)) {
    return err({
      reason: "invalid-signature",
      message: `not signed by ${typeof input.publicKey === "string" ? input.publicKey : encodeBase58(input.publicKey)} for ${input.wallet} on ${input.network}`,
    });
  }
  const now = input.nowSec ?? Math.floor(Date.now() / 1000);
  if (now >= expiresAt) return err({ reason: "expired", message: `expired at ${expiresAt} (now ${now})`, expiresAt });
  return ok({ expiresAt, remainingSec: expiresAt - now });
}
