import { encodeBase58 } from "../../src-shared/encoding/base58";
import { loginMessage } from "../../src-shared/messages";
import type { ApiResult } from "./api-result";
import type { RelayClient } from "./http";
import type { WalletSigner } from "./keypair";

export interface LoginOptions {
  /** Unix seconds to sign; defaults to now. The relay accepts 300 s old to 60 s ahead, each once. */
  unixSeconds?: number;
  /** Also set the token as the client's `x-api-auth` for /relay and /relay_swap. Default true. */
  setOnClient?: boolean;
}

/**
 * Logs the wallet in (spec, Authentication): signs the UTF-8 decimal text of
 * the current Unix time and answers the auth token.
 */
export async function login(client: RelayClient, wallet: WalletSigner, options: LoginOptions = {}): Promise<ApiResult<string>> {
  const now = Math.floor(Date.now() / 1000);
  let r = await loginAt(client, wallet, options.unixSeconds ?? now);
  // The relay accepts each (wallet, timestamp) once, so a second login within the same second is
  // refused as a replay. The relay takes timestamps up to 60 s ahead: the next few seconds are fine.
  for (let ahead = 1; options.unixSeconds === undefined && !r.ok && r.status === 400 && r.error === "Message too old" && ahead <= 5; ahead++) {
    r = await loginAt(client, wallet, now + ahead);
  }
  if (!r.ok) return r;
  if (options.setOnClient ?? true) client.authToken = r.value.id;
  return { ...r, value: r.value.id };
}

function loginAt(client: RelayClient, wallet: WalletSigner, message: number): Promise<ApiResult<{ id: string }>> {
  const signature = encodeBase58(wallet.sign(loginMessage(message)));
  return client.login({ wallet: wallet.address, signature, message });
}
