import type { SandboxDepositWire } from "../../../src-shared/api/public";
import { Router, type Request, type Response } from "express";
import { parsePublicKey, parseSignature } from "../../../src-shared/encoding/base58";
import { parseByteArray, toByteArray } from "../../../src-shared/encoding/bytes";
import { ErrorName } from "../../../src-shared/errors";
import { isNetwork, type Network } from "../../../src-shared/networks";
import type { SandboxLedger } from "../../ports/sandbox-ledger";
import type { IndexerService } from "../../services/indexer";
import { parseAmount } from "../../../src-shared/api/request-fields";
import type { RateLimits } from "../middleware/rate-limit";
import { invalidRequest, sendError } from "../respond";

type Body = Record<string, unknown>;

/** Mounted only for networks whose backend is the sandbox. */
export function sandboxRoutes(sandboxes: ReadonlyMap<Network, SandboxLedger>, indexer: IndexerService, limits: RateLimits): Router {
  const r = Router();
  const limit = limits.middleware("sandbox");

  const objectBody = (req: Request, res: Response): Body | null => {
    const b: unknown = req.body;
    if (typeof b !== "object" || b === null || Array.isArray(b)) return (invalidRequest(res, "body must be a JSON object"), null);
    return b as Body;
  };
  const chainFor = (res: Response, network: unknown): SandboxLedger | null => {
    if (!isNetwork(network)) return (sendError(res, 400, ErrorName.InvalidNetwork, "network must be mainnet or devnet"), null);
    const chain = sandboxes.get(network);
    if (!chain) return (sendError(res, 400, ErrorName.InvalidNetwork, `network ${network} is not a sandbox`), null);
    return chain;
  };

  r.post("/sandbox/airdrop", ...limit, async (req, res) => {
    const b = objectBody(req, res);
    if (!b) return;
    const chain = chainFor(res, b.network);
    if (!chain) return;
    if (!parsePublicKey(b.wallet).ok) return invalidRequest(res, "wallet must be a base58 public key");
    if (!parsePublicKey(b.mint).ok) return sendError(res, 400, ErrorName.InvalidMint, "mint must be a base58 public key");
    const amount = parseAmount(b.amount);
    if (!amount.ok) return invalidRequest(res, `amount ${amount.error}`);
    const signature = await chain.airdrop(b.wallet as string, b.mint as string, amount.value);
    res.status(200).json({ signature });
  });

  r.post("/sandbox/deposit", ...limit, async (req, res) => {
    const b = objectBody(req, res);
    if (!b) return;
    const chain = chainFor(res, b.network);
    if (!chain) return;
    const mint = parsePublicKey(b.mint);
    if (!mint.ok) return sendError(res, 400, ErrorName.InvalidMint, `mint: ${mint.error}`);
    const amount = parseAmount(b.amount);
    if (!amount.ok) return invalidRequest(res, `amount ${amount.error}`);
    // Protocol v2: the pool computes the leaf; a v1 body naming its own commitment is refused outright.
    if (Object.hasOwn(b, "commitment")) {
      return invalidRequest(
        res,
        "commitment: not accepted (protocol v2): send precommitment = Poseidon(nullifier, secret); the pool computes the commitment from the amount it receives",
      );
    }
    // Any 32 bytes are accepted here: a precommitment the program cannot use (zero, not below the modulus) makes the deposit `failed`.
    const precommitment = parseByteArray(b.precommitment, 32);
    if (!precommitment.ok) return invalidRequest(res, `precommitment: ${precommitment.error} (32 bytes, Poseidon(nullifier, secret))`);
    const wallet = parsePublicKey(b.wallet);
    if (!wallet.ok) return invalidRequest(res, `wallet: ${wallet.error}`);
    const signature = parseSignature(b.signature);
    if (!signature.ok) return sendError(res, 400, ErrorName.InvalidSignature, `signature: ${signature.error}`);

    const applied = await chain.applyDeposit({
      mint: b.mint as string,
      mintBytes: mint.value,
      amount: amount.value,
      precommitment: precommitment.value,
      wallet: b.wallet as string,
      walletBytes: wallet.value,
      signature: signature.value,
    });
    if (!applied.ok) {
      if (applied.error === "InvalidSignature") return sendError(res, 400, ErrorName.InvalidSignature, "signature does not match wallet and deposit message");
      if (applied.error === "InsufficientFunds") return sendError(res, 400, ErrorName.InsufficientFunds, "wallet balance is below amount");
      // The program's DepositBelowMinimum (6016): the answer names the minimum, so a wallet can correct the amount.
      if (applied.error === "DepositBelowMinimum") {
        return invalidRequest(res, `amount: ${amount.value} is below this pool's minimum deposit of ${chain.minDeposit(b.mint as string)} base units`);
      }
      return sendError(res, 400, ErrorName.InvalidRequest, "the pool's tree is full");
    }
    // Answer once the ledger write is durable and the relay's own indexer has the leaf (durable too), so
    // get_proof works right away. The indexer reads the applied event while the ledger's fsync runs: the
    // journal keeps the two writes in order and one group commit makes both durable.
    const synced = indexer.sync(chain.network, b.mint as string);
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
    const b = objectBody(req, res);
    if (!b) return;
    const chain = chainFor(res, b.network);
    if (!chain) return;
    for (const field of ["mintA", "mintB"] as const) {
      const m = parsePublicKey(b[field]);
      if (!m.ok) return sendError(res, 400, ErrorName.InvalidMint, `${field}: ${m.error} (a base58 mint address)`);
    }
    if (b.mintA === b.mintB) return sendError(res, 400, ErrorName.InvalidMint, "mintB: must differ from mintA");
    const reserveA = parseAmount(b.reserveA);
    if (!reserveA.ok) return invalidRequest(res, `reserveA ${reserveA.error}`);
    const reserveB = parseAmount(b.reserveB);
    if (!reserveB.ok) return invalidRequest(res, `reserveB ${reserveB.error}`);
    await chain.swapPools.set(b.mintA as string, b.mintB as string, reserveA.value, reserveB.value, Math.floor(Date.now() / 1000));
    res.status(200).json({ ok: true });
  });

  return r;
}
