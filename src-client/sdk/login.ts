import { encodeBase58 } from "../../src-shared/encoding/base58";
import { loginMessage } from "../../src-shared/messages";
import type { ApiResult, RelayClient } from "./http";
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
  const message = options.unixSeconds ?? Math.floor(Date.now() / 1000);
  const signature = encodeBase58(wallet.sign(loginMessage(message)));
  const r = await client.login({ wallet: wallet.address, signature, message });
  if (!r.ok) return r;
  if (options.setOnClient ?? true) client.authToken = r.value.id;
  return { ...r, value: r.value.id };
}
