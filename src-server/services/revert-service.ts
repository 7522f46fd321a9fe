import { randomUUID } from "node:crypto";
import { verifyEd25519 } from "../../src-shared/crypto/ed25519";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { parseSignature } from "../../src-shared/encoding/base58";
import { ErrorName, type ErrorNameValue } from "../../src-shared/errors";
import type { Network } from "../../src-shared/networks";
import type { Fault, Refusal } from "../core/fault";
import { revertNullifierOf } from "../core/revert/nullifier";
import { judgeRevertQuota, REVERT_QUOTA_WINDOW_MS } from "../core/revert/quota";
import { checkRevertAuthorization, parseRevertBody } from "../core/revert/request";
import { judgeRevert, type RevertRules } from "../core/revert/rules";
import { RevertState } from "../core/revert/states";
import type { ChainBackend, RevertRejection } from "../ports/chain";
import type { RevertStore } from "../ports/revert-store";
import type { SignatureVerifier } from "../ports/signature-verifier";

export interface RevertInput {
  network: Network;
  /** The path's auth token. */
  token: string;
  /** The path's deposit transaction signature. */
  txnSig: string;
  /** The JSON body as received: `{ wallet, signature, message }`. */
  body: unknown;
}

export type RevertOutcome = { ok: true; signature: string } | ({ ok: false; retryAfterSec?: number } & Refusal);

export interface RevertDeps {
  hasher: FieldHasher;
  chains: ReadonlyMap<Network, ChainBackend>;
  walletOf(token: string): Promise<string | null>;
  store: RevertStore;
  /** The revert message's signature check; composition passes the relay's fast one. Default: src-shared's portable check, the same answers. */
  verifySignature?: SignatureVerifier;
  rules?: RevertRules;
  /** Reverts that pay out per depositor in any 24 hours (config reverts.perDepositorPerDay); default 3. */
  perDepositorPerDay?: number;
  /** A refusal that left no record (the deposit is unknown or not the token wallet's, or the request or its signature is bad): counted only. */
  onRefusedUnrecorded?: (network: Network, error: ErrorNameValue) => void;
  /** Why the program guard stopped this network (services/program-guard.ts), or null. */
  stopped?: (network: Network) => string | null;
  nowMs?: () => number;
  log?: (line: string) => void;
}

const REJECTION: Record<RevertRejection, ErrorNameValue> = {
  DepositNotFound: ErrorName.DepositNotFound,
  NotDepositor: ErrorName.NotDepositor,
  AlreadyIndexed: ErrorName.AlreadyIndexed,
  DepositPending: ErrorName.DepositPending,
  NullifierSpent: ErrorName.NullifierSpent,
  Failed: ErrorName.RevertFailed,
  Unknown: ErrorName.RevertFailed,
};

/** The spec's refusals: NotDepositor is forbidden, RevertFailed the relay's own, RateLimited over the depositor's quota; the rest the request's. */
const faultOf = (error: ErrorNameValue): Fault =>
  error === ErrorName.NotDepositor ? "forbidden" : error === ErrorName.RevertFailed ? "server" : error === ErrorName.RateLimited ? "rate-limited" : "client";

export const DEFAULT_REVERTS_PER_DEPOSITOR_PER_DAY = 3;

/** Deposit signatures longer than this cannot be real (base58 of 64 bytes is at most 88 characters). */
const MAX_SIG_TEXT = 128;

/**
 * POST /revert: returns a failed deposit's funds to its depositor. Checks run
 * in the spec's order (signature, deposit exists, depositor, not indexed,
 * revert-nullifier unspent) and the chain re-checks them atomically while it
 * pays out, so racing reverts land once. A request by the deposit's own
 * depositor is recorded for the console's support queue, with the spec's error
 * if refused; anything refused before that is only counted.
 */
export class RevertService {
  private readonly inFlight = new Set<string>();
  /** Per wallet, the end of the last quota claim: the next one starts after it. */
  private readonly walletTurns = new Map<string, Promise<unknown>>();
  private readonly now: () => number;
  private readonly log: (line: string) => void;
  private readonly rules: RevertRules;

  constructor(private readonly deps: RevertDeps) {
    this.now = deps.nowMs ?? Date.now;
    this.log = deps.log ?? (() => {});
    this.rules = deps.rules ?? { pendingRevertAfterSec: 600 };
  }

  async revert(input: RevertInput): Promise<RevertOutcome> {
    const tokenWallet = await this.deps.walletOf(input.token);
    if (!tokenWallet) return { ok: false, fault: "unauthorized", error: ErrorName.Unauthorized, message: "the auth token in the path is invalid or expired" };
    const chain = this.deps.chains.get(input.network);
    if (!chain) return { ok: false, fault: "client", error: ErrorName.InvalidNetwork, message: `network ${input.network} is not enabled on this relay` };
    // The deployed program is no longer the key's (an upgrade): the relayer signs a revert for that program, so none is sent.
    const stopped = this.deps.stopped?.(input.network);
    if (stopped) return { ok: false, fault: "busy", error: ErrorName.RelayPaused, message: stopped };

    const requestedAt = this.now();
    // Refusals before the deposit is known to be the token wallet's own write nothing: anyone
    // with a fresh wallet's token could otherwise fill the support queue (docs/security.md,
    // "What a stranger can write"). They are counted (relay_reverts_total, outcome "refused").
    const turnAway = (error: ErrorNameValue, message: string): RevertOutcome => {
      this.deps.onRefusedUnrecorded?.(input.network, error);
      return { ok: false, fault: faultOf(error), error, message };
    };

    const body = parseRevertBody(input.body);
    if (!body.ok) return turnAway(ErrorName.InvalidRequest, body.error.message);
    const authorized = checkRevertAuthorization({ ...body.value, txnSig: input.txnSig, tokenWallet }, this.deps.verifySignature ?? verifyEd25519);
    if (!authorized.ok) return turnAway(ErrorName.InvalidSignature, authorized.error.detail);
    const wallet = body.value.wallet;

    const sigBytes = input.txnSig.length <= MAX_SIG_TEXT ? parseSignature(input.txnSig) : null;
    if (!sigBytes?.ok) return turnAway(ErrorName.DepositNotFound, "txn_sig is not a transaction signature (64 bytes, base58)");
    const deposit = await chain.findDeposit(input.txnSig);
    if (!deposit) return turnAway(ErrorName.DepositNotFound, `no deposit with this signature on ${input.network}`);
    if (deposit.depositor !== wallet) return turnAway(ErrorName.NotDepositor, "the wallet did not make this deposit");
    const about = { mint: deposit.mint, amount: deposit.amount };

    // The depositor asking about their own deposit: recorded for the support queue from here on.
    const { store } = this.deps;
    const id = randomUUID();
    await store.create({ id, network: input.network, depositSignature: input.txnSig, wallet: tokenWallet, requestedAt }, RevertState.requested(requestedAt));
    const fail = async (
      error: ErrorNameValue,
      message: string,
      deposit?: { mint: string; amount: bigint },
      extra: { retryAfterSec?: number } = {},
    ): Promise<RevertOutcome> => {
      await store.advance(id, RevertState.failed(this.now(), error, message), deposit);
      return { ok: false, fault: faultOf(error), error, message, ...extra };
    };

    const spent = await chain.isNullifierSpent(deposit.mint, revertNullifierOf(this.deps.hasher, sigBytes.value));
    const verdict = judgeRevert(deposit, wallet, spent, Math.floor(this.now() / 1000), this.rules);
    if (!verdict.ok) {
      const v = verdict.error;
      return fail(ErrorName[v.error], v.detail, about, v.error === "DepositPending" ? { retryAfterSec: v.retryAfterSec } : {});
    }

    // One submission per deposit at a time: a second request while the first is out is the double revert it looks like.
    const key = `${input.network}/${input.txnSig}`;
    if (this.inFlight.has(key)) return fail(ErrorName.NullifierSpent, "a revert of this deposit is in flight", about);
    this.inFlight.add(key);
    try {
      // The depositor's quota, counted from the store (a restart does not reset it): read and
      // claimed (the `submitted` write) as one step per wallet, since the store answers asynchronously.
      const perDay = this.deps.perDepositorPerDay ?? DEFAULT_REVERTS_PER_DEPOSITOR_PER_DAY;
      const quota = await this.walletTurn(wallet, async () => {
        const q = judgeRevertQuota(await store.paidOrSentSince(wallet, this.now() - REVERT_QUOTA_WINDOW_MS), this.now(), perDay);
        if (q.ok) await store.advance(id, RevertState.submitted(this.now()), about);
        return q;
      });
      if (!quota.ok) {
        return await fail(
          ErrorName.RateLimited,
          `at most ${perDay} reverts per depositor in 24 hours (reverts.perDepositorPerDay); try again in ${quota.retryAfterSec} s`,
          about,
          { retryAfterSec: quota.retryAfterSec },
        );
      }
      let result;
      try {
        result = await chain.revertDeposit({ depositSignature: input.txnSig, depositor: wallet });
      } catch (e) {
        this.log(`revert ${id}: submission failed: ${(e as Error).message}`);
        return await fail(ErrorName.RevertFailed, "the revert transaction could not be submitted", about);
      }
      if (!result.ok) {
        return await fail(REJECTION[result.rejection], result.detail, about);
      }
      await store.advance(id, RevertState.processed(this.now(), result.signature), about);
      return { ok: true, signature: result.signature };
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** Runs `step` after every earlier step of the same wallet has settled. */
  private walletTurn<T>(wallet: string, step: () => Promise<T>): Promise<T> {
    const turn = (this.walletTurns.get(wallet) ?? Promise.resolve()).then(step);
    const settled = turn.catch(() => {});
    this.walletTurns.set(wallet, settled);
    void settled.then(() => {
      if (this.walletTurns.get(wallet) === settled) this.walletTurns.delete(wallet);
    });
    return turn;
  }
}
