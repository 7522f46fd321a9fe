import { randomUUID } from "node:crypto";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { toHex } from "../../src-shared/encoding/bytes";
import { ErrorName, type ErrorNameValue } from "../../src-shared/errors";
import type { Network } from "../../src-shared/networks";
import { withdrawalPublicSignals } from "../core/proof/public-inputs";
import { quoteFee, type FeePolicy } from "../core/relay/fee";
import type { WithdrawalRequest } from "../core/relay/request";
import { RelayState, type RelayOutcome } from "../core/relay/states";
import type { ChainBackend, ChainRejection } from "../ports/chain";
import type { ProofVerifier } from "../ports/proof-verifier";
import type { RelayStore } from "../ports/relay-store";
import type { SanctionsList } from "../ports/sanctions";
import type { IndexerService } from "./indexer";

export interface FeeSchedule {
  policyFor(network: Network, mint: string): FeePolicy;
}

/** The operator's pause switches (services/admin-pauses.ts): why this pool's relays are refused, or null. */
export interface RelayPauses {
  pausedReason(network: Network, mint: string): string | null;
}

export interface RelayDeps {
  hasher: FieldHasher;
  indexer: IndexerService;
  chains: ReadonlyMap<Network, ChainBackend>;
  verifier: ProofVerifier;
  sanctions: SanctionsList;
  store: RelayStore;
  fees: FeeSchedule;
  pauses?: RelayPauses;
  now?: () => number;
  log?: (line: string) => void;
}

const REJECTION: Record<ChainRejection, { status: number; error: ErrorNameValue }> = {
  NullifierAlreadySpent: { status: 400, error: ErrorName.NullifierAlreadySpent },
  InvalidRoot: { status: 400, error: ErrorName.InvalidRoot },
  InvalidProof: { status: 400, error: ErrorName.InvalidProof },
  Failed: { status: 500, error: ErrorName.RelayFailed },
  SlippageExceeded: { status: 400, error: ErrorName.SlippageExceeded },
  InsufficientLiquidity: { status: 400, error: ErrorName.InsufficientLiquidity },
  SwapFailed: { status: 400, error: ErrorName.SwapFailed },
};

/**
 * The /relay pipeline: cheap checks first (pool, root, fee, nullifier,
 * sanctions), then proof verification off the event loop, then submission.
 * A nullifier is locked from its check until a definitive verdict, so the same
 * withdrawal relayed concurrently is submitted once.
 */
export class RelayService {
  private readonly inFlight = new Set<string>();
  private readonly now: () => number;
  private readonly log: (line: string) => void;

  constructor(private readonly deps: RelayDeps) {
    this.now = deps.now ?? Date.now;
    this.log = deps.log ?? (() => {});
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  async relay(req: WithdrawalRequest): Promise<RelayOutcome> {
    const { indexer, chains, store } = this.deps;
    // The fee is fixed here, at receipt: a fee change never reaches a relay in flight.
    const quote = quoteFee(req.depositSize, this.deps.fees.policyFor(req.network, req.mint));
    const id = randomUUID();
    const received = this.now();
    const nullifierHex = toHex(req.nullifierHash);
    await store.create(
      { id, kind: "relay", network: req.network, mint: req.mint, outputMint: null, recipient: req.recipient, nullifierHash: nullifierHex, depositSize: req.depositSize, fee: quote?.fee ?? 0n, receivedAt: received },
      RelayState.received(received),
    );
    const fail = async (status: number, error: ErrorNameValue, detail: string): Promise<RelayOutcome> => {
      await store.advance(id, RelayState.failed(this.now(), error, detail));
      return { status, error, message: detail };
    };

    const paused = this.deps.pauses?.pausedReason(req.network, req.mint);
    if (paused) return fail(503, ErrorName.RelayPaused, paused);
    const chain = chains.get(req.network);
    if (!chain) return fail(400, ErrorName.InvalidRequest, `network: ${req.network} is not enabled on this relay`);
    const pool = indexer.get(req.network, req.mint);
    if (!pool) return fail(400, ErrorName.InvalidRoot, `no pool for ${req.mint} on ${req.network}`);
    if (!pool.tree.isKnownRoot(req.root)) return fail(400, ErrorName.InvalidRoot, "root is not the pool's current root or one of its last 100");
    if (!quote) return fail(400, ErrorName.InvalidRequest, "depositSize: does not cover the relayer fee");

    const key = `${req.network}/${req.mint}/${nullifierHex}`;
    if (this.inFlight.has(key)) return fail(400, ErrorName.NullifierAlreadySpent, "a relay of this nullifier is in flight");
    this.inFlight.add(key);
    try {
      if (await chain.isNullifierSpent(req.mint, req.nullifierHash)) return await fail(400, ErrorName.NullifierAlreadySpent, "the nullifier account exists");
      let listed: boolean;
      try {
        listed = this.deps.sanctions.check(req.recipient).listed;
      } catch (e) {
        return await fail(500, ErrorName.RelayFailed, `sanctions list unavailable: ${(e as Error).message}`);
      }
      if (listed) return await fail(400, ErrorName.OFACCheckFailed, "recipient is on a sanctions list");
      return await this.verifyAndSubmit(id, req, chain, quote.fee, fail);
    } finally {
      // Released only after a definitive verdict: spent on chain, or did not land.
      this.inFlight.delete(key);
    }
  }

  private async verifyAndSubmit(
    id: string,
    req: WithdrawalRequest,
    chain: ChainBackend,
    fee: bigint,
    fail: (status: number, error: ErrorNameValue, detail: string) => Promise<RelayOutcome>,
  ): Promise<RelayOutcome> {
    const { store } = this.deps;
    const publicSignals = withdrawalPublicSignals(this.deps.hasher, {
      root: req.root,
      nullifierHash: req.nullifierHash,
      recipient: req.recipientBytes,
      amount: req.depositSize,
      mint: req.mintBytes,
    });
    const t0 = this.now();
    let valid: boolean;
    try {
      valid = await this.deps.verifier.verify(req.proof, publicSignals);
    } catch (e) {
      return fail(500, ErrorName.RelayFailed, `verifier unavailable: ${(e as Error).message}`);
    }
    if (!valid) return fail(400, ErrorName.InvalidProof, "proof does not verify for these public inputs");
    const verifiedAt = this.now();
    void store.advance(id, RelayState.verified(verifiedAt, verifiedAt - t0)).catch(() => {});

    await store.advance(id, RelayState.submitted(this.now()));
    let result;
    try {
      result = await chain.submitWithdrawal({
        mint: req.mint,
        mintBytes: req.mintBytes,
        recipient: req.recipient,
        root: req.root,
        nullifierHash: req.nullifierHash,
        proof: req.proof,
        publicSignals,
        depositSize: req.depositSize,
        fee,
      });
    } catch (e) {
      this.log(`relay ${id}: submission failed: ${(e as Error).message}`);
      return fail(500, ErrorName.RelayFailed, "transaction submission failed");
    }
    if (!result.ok) {
      const mapped = REJECTION[result.rejection];
      return fail(mapped.status, mapped.error, result.detail);
    }
    await store.advance(id, RelayState.confirmed(this.now(), result.signature));
    return { status: 200, signature: result.signature };
  }
}
