import type { SandboxDepositWire } from "../../../src-shared/api/public";
import { Router, type Response } from "express";
import { parsePublicKey } from "../../../src-shared/encoding/base58";
import { toByteArray } from "../../../src-shared/encoding/bytes";
import { ErrorName } from "../../../src-shared/errors";
import { isNetwork, type Network } from "../../../src-shared/networks";
import type { SandboxLedger } from "../../ports/sandbox-ledger";
import type { IndexerService } from "../../services/indexer";
import { sandboxAirdropRequest, sandboxDepositRequest, sandboxSwapPoolRequest } from "../../../src-shared/api/requests";
import type { RateLimits } from "../middleware/rate-limit";
import { invalidRequest, sendError } from "../respond";
import { decodedOr400 } from "../request-body";

/** Mounted only for networks whose backend is the sandbox. */
export function sandboxRoutes(sandboxes: ReadonlyMap<Network, SandboxLedger>, indexer: IndexerService, limits: RateLimits): Router {
  const r = Router();
  const limit = limits.middleware("sandbox");

  /** The route's rule on `network`: it runs right after the network decodes, so its error comes where it always has. */
  const notASandbox = (d: { network?: Network }): string | null => (d.network && !sandboxes.has(d.network) ? `network ${d.network} is not a sandbox` : null);
  const chainOf = (network: Network): SandboxLedger => sandboxes.get(network)!;
  const chainFor = (res: Response, network: unknown): SandboxLedger | null => {
    if (!isNetwork(network)) return (sendError(res, 400, ErrorName.InvalidNetwork, "network must be mainnet or devnet"), null);
    const chain = sandboxes.get(network);
    if (!chain) return (sendError(res, 400, ErrorName.InvalidNetwork, `network ${network} is not a sandbox`), null);
    return chain;
  };

  r.post("/sandbox/airdrop", ...limit, async (req, res) => {
    const b = decodedOr400(res, sandboxAirdropRequest, req.body, { network: notASandbox });
    if (!b) return;
    const signature = await chainOf(b.network).airdrop(b.wallet.text, b.mint.text, b.amount);
    res.status(200).json({ signature });
  });

  r.post("/sandbox/deposit", ...limit, async (req, res) => {
    const b = decodedOr400(res, sandboxDepositRequest, req.body, { network: notASandbox });
    if (!b) return;
    const chain = chainOf(b.network);
    const { mint, amount, precommitment, wallet, signature } = b;
    const applied = await chain.applyDeposit({
      mint: mint.text,
      mintBytes: mint.bytes,
      amount,
      precommitment,
      wallet: wallet.text,
      walletBytes: wallet.bytes,
      signature: signature.bytes,
    });
    if (!applied.ok) {
      if (applied.error === "InvalidSignature") return sendError(res, 400, ErrorName.InvalidSignature, "signature does not match wallet and deposit message");
      if (applied.error === "InsufficientFunds") return sendError(res, 400, ErrorName.InsufficientFunds, "wallet balance is below amount");
      // The program's DepositBelowMinimum (6016): the answer names the minimum, so a wallet can correct the amount.
      if (applied.error === "DepositBelowMinimum") {
        return invalidRequest(res, `amount: ${amount} is below this pool's minimum deposit of ${chain.minDeposit(mint.text)} base units`);
      }
      return sendError(res, 400, ErrorName.InvalidRequest, "the pool's tree is full");
    }
    // Answer once the ledger write is durable and the relay's own indexer has the leaf (durable too), so
    // get_proof works right away. The indexer reads the applied event while the ledger's fsync runs: the
    // journal keeps the two writes in order and one group commit makes both durable.
    const synced = indexer.sync(chain.network, mint.text);
    synced.catch(() => {}); // awaited below, once the ledger write's fate is known
    await applied.value.durable;
    await synced;
    // `commitment` is the leaf the pool computed (null when the precommitment could not make one).
    const { signature: txSignature, status, leafIndex, commitment } = applied.value.result;
    const answer: SandboxDepositWire = { signature: txSignature, status, leafIndex, commitment: commitment ? toByteArray(commitment) : null };
    res.status(200).json(answer);
  });

  r.get("/sandbox/balance/:network/:wallet/:mint", ...limit, (req, res) => {
    const chain = chainFor(res, req.params.network);
    if (!chain) return;
    const { wallet, mint } = req.params as Record<string, string>;
    if (!parsePublicKey(wallet).ok) return invalidRequest(res, "wallet must be a base58 public key");
    if (!parsePublicKey(mint).ok) return sendError(res, 400, ErrorName.InvalidMint, "mint must be a base58 public key");
    res.status(200).json({ amount: chain.balance(wallet!, mint!).toString() });
  });

  /** Creates the pair's constant-product pool (0.3% fee), or resets its reserves. */
  r.post("/sandbox/swap_pool", ...limit, async (req, res) => {
    const b = decodedOr400(res, sandboxSwapPoolRequest, req.body, {
      network: notASandbox,
      mintB: (d) => (d.mintA?.text === d.mintB?.text ? "mintB: must differ from mintA" : null),
    });
    if (!b) return;
    await chainOf(b.network).swapPools.set(b.mintA.text, b.mintB.text, b.reserveA, b.reserveB, Math.floor(Date.now() / 1000));
    res.status(200).json({ ok: true });
  });

  return r;
}
