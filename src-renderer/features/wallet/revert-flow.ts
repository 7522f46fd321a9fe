import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { decodeLogin } from "../../../src-shared/api/public";
import { loginMessage, revertMessage } from "../../../src-shared/messages";
import { ApiError, type ApiClient } from "../../api/client";
import type { Network } from "../../../src-shared/networks";

/** What the wallet page needs of a connected wallet: its address and message signing. */
export interface SigningWallet {
  address: string;
  signMessage(message: Uint8Array): Promise<Uint8Array>;
}

export type RevertOutcome = { ok: true; signature: string } | { ok: false; title: string; detail: string };

const enc = new TextEncoder();
const sign = async (w: SigningWallet, text: string): Promise<string> => encodeBase58(await w.signMessage(enc.encode(text)));

/** The relay's revert errors, in words a depositor can act on. */
export const REVERT_ERRORS: Record<string, string> = {
  DepositNotFound: "No deposit with this transaction signature on this network. Check the signature and the network.",
  AlreadyIndexed: "This deposit is in the pool's tree: it cannot be reverted. Withdraw it with its note instead.",
  NullifierSpent: "This deposit was already reverted: its funds went back to the depositor.",
  NotDepositor: "Only the wallet that made the deposit can revert it. Connect that wallet.",
  DepositPending: "This deposit may still be added to the tree. Try again in a few minutes.",
  InvalidSignature: "The wallet's signature did not match the revert message.",
  Unauthorized: "The login did not go through. Try again.",
  RateLimited: "Too many reverts from this wallet in a minute. Wait and try again.",
  RevertFailed: "The revert transaction could not be sent. Try again later.",
};

/**
 * Logs the wallet in with the current Unix second. A (wallet, second) pair is
 * accepted once, so a second attempt within the same second waits for the next.
 */
async function logIn(api: ApiClient, wallet: SigningWallet, now: () => number): Promise<unknown> {
  const attempt = async () => {
    const t = Math.floor(now() / 1000);
    return api.postJson("/login", { wallet: wallet.address, signature: await sign(wallet, loginMessage(t)), message: t });
  };
  try {
    return await attempt();
  } catch (e) {
    if (!(e instanceof ApiError && e.code === "Message too old")) throw e;
    await new Promise((r) => setTimeout(r, 1_050 - (now() % 1_000)));
    return attempt();
  }
}

/**
 * A revert as the spec has it: log in (the wallet signs the current Unix time),
 * then the wallet signs `Revert deposit: <txn_sig>` and the relay reverts.
 */
export async function revertDeposit(api: ApiClient, wallet: SigningWallet, network: Network, depositSignature: string, now = Date.now): Promise<RevertOutcome> {
  const sig = depositSignature.trim();
  if (!/^[1-9A-HJ-NP-Za-km-z]{64,90}$/.test(sig))
    return { ok: false, title: "Not a transaction signature", detail: "Paste the deposit's transaction signature (base58, 87 or 88 characters)." };
  try {
    const login = await logIn(api, wallet, now);
    const answer = decodeLogin(login);
    if (!answer.ok) return { ok: false, title: "The relay did not log the wallet in", detail: JSON.stringify(login) };
    const { id } = answer.value;
    const message = revertMessage(sig);
    const signature = await api.postText(`/revert/${network}/${encodeURIComponent(id)}/${encodeURIComponent(sig)}`, {
      wallet: wallet.address,
      signature: await sign(wallet, message),
      message,
    });
    return { ok: true, signature: signature.trim() };
  } catch (e) {
    if (e instanceof ApiError) {
      return {
        ok: false,
        title: e.code && REVERT_ERRORS[e.code] ? `Not reverted (${e.code})` : `The relay answered ${e.status}`,
        detail: (e.code && REVERT_ERRORS[e.code]) ?? e.message,
      };
    }
    const detail = e instanceof Error ? e.message : String(e);
    return { ok: false, title: /reject|declin|cancel/i.test(detail) ? "The wallet declined to sign" : "The revert did not go through", detail };
  }
}
