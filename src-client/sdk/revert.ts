import { encodeBase58, parseSignature } from "../../src-shared/encoding/base58";
import { revertMessage } from "../../src-shared/messages";
import type { Network } from "../../src-shared/networks";
import { err, ok, type Result } from "../../src-shared/result";
import { withToken } from "./compliance";
import type { ApiFailure } from "./api-result";
import type { RelayClient } from "./http";
import type { WalletSigner } from "./keypair";

export type RevertError =
  /** Not a deposit transaction signature (64 bytes, base58): nothing was sent. */
  | { stage: "input"; message: string }
  | { stage: "login"; failure: ApiFailure }
  /**
   * The relay refused (`InvalidSignature`, `DepositNotFound`, 403 `NotDepositor`,
   * `AlreadyIndexed`, `NullifierSpent`, ...) or did not answer.
   */
  | { stage: "revert"; failure: ApiFailure };

/**
 * Reverts a failed deposit (POST /revert): the deposit's funds go back from
 * the pool's vault to `wallet`, which must be its depositor. Signs
 * `Revert deposit: <depositSignature>` with the wallet, logs in when the
 * client holds no token (and once more on a 401), and answers the revert
 * transaction's signature. A deposit that was indexed is withdrawn instead.
 */
export async function revertDeposit(
  client: RelayClient,
  wallet: WalletSigner,
  depositSignature: string,
  network: Network,
): Promise<Result<{ signature: string }, RevertError>> {
  if (!parseSignature(depositSignature).ok)
    return err({ stage: "input", message: `${depositSignature.slice(0, 100)} is not a transaction signature (64 bytes, base58)` });
  const message = revertMessage(depositSignature);
  const body = { wallet: wallet.address, signature: encodeBase58(wallet.sign(message)), message };
  const r = await withToken(client, wallet, (token) => client.revert(network, token, depositSignature, body));
  if (r.ok) return ok({ signature: r.value });
  return err(r.error.stage === "login" ? r.error : { stage: "revert", failure: r.error.failure });
}
