import { verifyComplianceSignature, type ComplianceCheckFailure } from "../../src-shared/compliance";
import type { Network } from "../../src-shared/networks";
import { err, ok, type Result } from "../../src-shared/result";
import type { ApiFailure, ApiResult } from "./api-result";
import type { RelayClient } from "./http";
import type { WalletSigner } from "./keypair";
import { login } from "./login";
import type { OfacSignature } from "../../src-shared/api/public";

export {
  COMPLIANCE_VALIDITY_SEC,
  parseComplianceSignature,
  verifyComplianceSignature,
  type ComplianceCheckFailure,
  type ComplianceCheckInput,
} from "../../src-shared/compliance";
export { complianceMessage } from "../../src-shared/messages";

export interface ComplianceSignatureOptions {
  /**
   * The key to verify against (base58). Default: the relay's own, from GET
   * /compliance/public_key. Pin it when the verifier must not trust the relay
   * to name its key, as an on-chain program does.
   */
  publicKey?: string;
  /** Skip the local check. Default false: the signature is verified before it is returned. */
  skipVerify?: boolean;
}

export interface ComplianceSignatureResult {
  /** The relay's plain-text answer, `<expiresAtUnix>.<base58 signature>`, as a withdrawal carries it. */
  raw: string;
  expiresAt: number;
  /** Seconds of validity left when it was checked. */
  remainingSec: number;
  /** The key it verified against (null when skipVerify). */
  publicKey: string | null;
}

export type ComplianceSignatureError =
  | { stage: "login"; failure: ApiFailure }
  /** 403 `OFAC check failed` (the wallet is listed), 500 `Compliance check error`, 429, ... */
  | { stage: "signature"; failure: ApiFailure }
  | { stage: "public-key"; failure: ApiFailure }
  /** The relay answered a signature that does not check out: do not use it. */
  | { stage: "verify"; failure: ComplianceCheckFailure; raw: string };

/**
 * A fresh compliance signature for `wallet` (spec: obtain one before each
 * withdrawal, never cache it): logs in when the client holds no token (and
 * once more on a 401), asks POST /get_ofac_signature, and verifies the answer
 * against the compliance key before handing it out.
 */
export async function getComplianceSignature(
  client: RelayClient,
  wallet: WalletSigner,
  network: Network,
  options: ComplianceSignatureOptions = {},
): Promise<Result<ComplianceSignatureResult, ComplianceSignatureError>> {
  const asked = await withToken(client, wallet, (token) => client.getOfacSignature(network, token));
  if (!asked.ok) return err(asked.error);
  const answer: OfacSignature = asked.value;
  if (options.skipVerify) {
    const now = Math.floor(Date.now() / 1000);
    return ok({
      raw: answer.raw,
      expiresAt: answer.expiresAt ?? 0,
      remainingSec: answer.expiresAt === null ? 0 : Math.max(0, answer.expiresAt - now),
      publicKey: null,
    });
  }
  let publicKey = options.publicKey;
  if (!publicKey) {
    const key = await client.compliancePublicKey();
    if (!key.ok) return err({ stage: "public-key", failure: key });
    publicKey = key.value.publicKey;
  }
  const checked = verifyComplianceSignature(answer.raw, { publicKey, network, wallet: wallet.address });
  if (!checked.ok) return err({ stage: "verify", failure: checked.error, raw: answer.raw });
  return ok({ raw: answer.raw, expiresAt: checked.value.expiresAt, remainingSec: checked.value.remainingSec, publicKey });
}

/**
 * Runs a call that carries the auth token in its path: logs in first when the
 * client has none, and once more when the relay answers 401 (an expired token).
 */
export async function withToken<T>(
  client: RelayClient,
  wallet: WalletSigner,
  call: (token: string) => Promise<ApiResult<T>>,
): Promise<Result<T, { stage: "login"; failure: ApiFailure } | { stage: "signature"; failure: ApiFailure }>> {
  let fresh = false;
  if (!client.authToken) {
    const t = await login(client, wallet);
    if (!t.ok) return err({ stage: "login", failure: t });
    fresh = true;
  }
  let r = await call(client.authToken!);
  if (!r.ok && r.status === 401 && !fresh) {
    const t = await login(client, wallet);
    if (!t.ok) return err({ stage: "login", failure: t });
    r = await call(t.value);
  }
  return r.ok ? ok(r.value) : err({ stage: "signature", failure: r });
}
