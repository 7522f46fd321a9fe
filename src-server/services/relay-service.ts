import { randomUUID } from "node:crypto";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { fromHex, toHex } from "../../src-shared/encoding/bytes";
import { ErrorName, type ErrorNameValue } from "../../src-shared/errors";
import type { Network } from "../../src-shared/networks";
import { parsePublicKey } from "../../src-shared/encoding/base58";
import { PROTOCOL_VERSION, withdrawalPublicSignals, type RelayTerms } from "../core/proof/public-inputs";
import { decideFee, type FeeInForce } from "../core/relay/fee";
import type { ParsedSwapWithdrawal, ParsedWithdrawal } from "../core/relay/request";
import type { Fault } from "../core/fault";
import { RelayState, type RelayOutcome } from "../core/relay/states";
import { slippageSeenBps, type PairSlippage } from "../core/swap/slippage";
import type { ChainBackend, ChainRejection, SwapLeg } from "../ports/chain";
import { VerifierBusyError, type ProofVerifier } from "../ports/proof-verifier";
import type { NewRelayRecord, RelayRecord, RelayStore, SwapRecord } from "../ports/relay-store";
import type { SanctionsList } from "../ports/sanctions";
import type { SwapVenue } from "../ports/swap-venue";
import type { IndexerService } from "./indexer";
import { RejectedRelays } from "./relay-rejections";
import { ROOT_HISTORY_SIZE } from "../core/merkle/tree";

/** The fee in force for a pool, and the one it replaced while still in its grace period (services/fee-schedule.ts). */
export interface FeesInForce {
  inForce(network: Network, mint: string): FeeInForce;
}

/** The operator's pause switches (services/admin/pause-service.ts): why this pool's relays are refused, or null. */
export interface RelayPauses {
  pausedReason(network: Network, mint: string): string | null;
}

/** What relay_swap adds: each network's swap venue and each pair's allowed slippage. */
export interface SwapRouting {
  venueFor(network: Network): SwapVenue | null;
  slippageFor(network: Network, inputMint: string, outputMint: string): PairSlippage;
}

export interface RelayDeps {
  hasher: FieldHasher;
  indexer: IndexerService;
  chains: ReadonlyMap<Network, ChainBackend>;
  verifier: ProofVerifier;
  sanctions: SanctionsList;
  store: RelayStore;
  fees: FeesInForce;
  pauses?: RelayPauses;
  /** Without it, relay_swap answers SwapFailed. */
  swaps?: SwapRouting;
  /** Where relays refused before their proof verified are counted (never stored); default a list of its own. */
  rejections?: RejectedRelays;
  /** This relay instance (Coordination.instanceId): the holder of the records it creates. */
  instanceId: string;
  now?: () => number;
  log?: (line: string) => void;
}

/**
 * Taken just before a proof goes to the verifier and released when it is judged: the
 * per-client cap on verifications running or queued (http/middleware/rate-limit.ts).
 * Returns the release function, or null when the client already has its share.
 */
export type VerificationGate = () => (() => void) | null;

/**
 * Every InvalidProof names the protocol the relay verifies under, so a client
 * still proving an older protocol (v2: six public inputs, no change leaf) learns why.
 */
const NOT_UNDER_PROTOCOL = `does not verify under protocol v${PROTOCOL_VERSION}`;

/** How long a landed withdrawal's answer waits for the relay's tree to take its change leaf in (the follower catches up anyway). */
const CHANGE_LEAF_SYNC_MS = 3_000;

/** How long a landed withdrawal waits for the indexer to see its change leaf when the chain's verdict did not say where it went. */
const CHANGE_LEAF_WAIT_MS = 10_000;

const REJECTION: Record<ChainRejection, { fault: Fault; error: ErrorNameValue }> = {
  NullifierAlreadySpent: { fault: "client", error: ErrorName.NullifierAlreadySpent },
  InvalidRoot: { fault: "client", error: ErrorName.InvalidRoot },
  InvalidProof: { fault: "client", error: ErrorName.InvalidProof },
  Failed: { fault: "server", error: ErrorName.RelayFailed },
  SlippageExceeded: { fault: "client", error: ErrorName.SlippageExceeded },
  InsufficientLiquidity: { fault: "client", error: ErrorName.InsufficientLiquidity },
  SwapFailed: { fault: "client", error: ErrorName.SwapFailed },
  Unprofitable: { fault: "client", error: ErrorName.RelayFailed },
  Unknown: { fault: "server", error: ErrorName.RelayFailed },
};

type Fail = (fault: Fault, error: ErrorNameValue, detail: string) => Promise<RelayOutcome>;

/** What one sweep of relays without a verdict did. */
export interface OrphanCounts {
  confirmed: number;
  failed: number;
  held: number;
}

const IN_FLIGHT = "a relay of this nullifier is in flight";
/** The verdict of this instance's own record that has no attempt and no relay running here (relays.create's answer was lost after it committed). */
const INTERRUPTED = "interrupted before it was sent";
/** How old such a record must be before the sweep fails it: well past any create's round trip. */
const OWN_STALE_MS = 30_000;
const UNKNOWN_OUTCOME = "its outcome was unknown";
const lockKey = (network: Network, mint: string, nullifierHex: string): string => `${network}/${mint}/${nullifierHex}`;
/** A refusal before the proof verified: counted in memory, no record written. */
type Reject = (fault: Fault, error: ErrorNameValue, detail: string) => RelayOutcome;

/** A relay_swap's leg for the chain, and its record as quoted. */
interface QuotedSwap {
  leg: SwapLeg;
  record: SwapRecord;
}

/**
 * The /relay and /relay_swap pipeline: cheap checks first (pool, root, fee,
 * nullifier), for a swap the quote, then proof verification off the event
 * loop, then the sanctions check and submission (with the swap leg in the same
 * transaction). A nullifier is locked from its check until a definitive
 * verdict, so the same withdrawal relayed concurrently is submitted once.
 *
 * Only a relay whose proof verified is a candidate: it gets a record (and a
 * screening in the compliance log), written before anything is submitted.
 * Anyone can send a refused one without authentication, so those are counted
 * in memory ({@link RejectedRelays}) and never stored (docs/security.md, "Rejected relays").
 */
export class RelayService {
  /** Per-instance fast path of the nullifier lock (the store's row is the lock): relays running here, and the records below. */
  private readonly inFlight = new Set<string>();
  /** Records this instance watches until they have a verdict (an unknown outcome, an orphan held), and their inFlight keys. */
  private readonly unresolved = new Map<string, string>();
  private sweeping: Promise<OrphanCounts> | null = null;
  readonly rejections: RejectedRelays;
  private readonly now: () => number;
  private readonly log: (line: string) => void;

  constructor(private readonly deps: RelayDeps) {
    this.now = deps.now ?? Date.now;
    this.log = deps.log ?? (() => {});
    this.rejections = deps.rejections ?? new RejectedRelays();
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /**
   * After a restart: every relay the previous run left without a verdict is an orphan
   * (its holder is gone), resolved as {@link resolveOrphans} does. `liveInstanceIds`: the
   * instances sharing the store (Coordination), this one included.
   */
  async reconcileInterrupted(liveInstanceIds: readonly string[] = [this.deps.instanceId]): Promise<OrphanCounts> {
    const counts = await this.resolveOrphans(liveInstanceIds, "interrupted by a restart");
    if (counts.confirmed + counts.failed + counts.held) {
      this.log(
        `relay: after restart, ${counts.confirmed} interrupted relays confirmed, ${counts.failed} failed, ${counts.held} held until their transactions can no longer land`,
      );
    }
    return counts;
  }

  /**
   * Gives a verdict to every relay without one that no live instance carries (its holder is
   * not in `liveInstanceIds`), to those this instance watches (an unknown outcome), and to this
   * instance's own records older than OWN_STALE_MS with no attempt and no relay running here
   * (a create whose answer was lost after the store committed it: nothing was sent).
   * Spent by one of its own transactions: confirmed with that signature; spent by another:
   * failed NullifierAlreadySpent; nothing sent, or the chain's block height past every
   * attempt's lastValidBlockHeight with the nullifier unspent: failed (the lock is released).
   * Otherwise a transaction may still land: held, and looked at again by the next sweep.
   * Never on a timeout alone. Concurrent calls share one sweep.
   */
  resolveOrphans(liveInstanceIds: readonly string[], why = "its relay instance stopped"): Promise<OrphanCounts> {
    this.sweeping ??= this.sweep(new Set(liveInstanceIds), why).finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  private async sweep(live: ReadonlySet<string>, why: string): Promise<OrphanCounts> {
    const counts: OrphanCounts = { confirmed: 0, failed: 0, held: 0 };
    for (const r of await this.deps.store.unfinished()) {
      const watched = this.unresolved.has(r.id);
      const key = lockKey(r.network, r.mint, r.nullifierHash);
      const ownStale =
        !watched && r.holder === this.deps.instanceId && r.attempts.length === 0 && !this.inFlight.has(key) && this.now() - r.receivedAt > OWN_STALE_MS;
      if (!watched && !ownStale && r.holder !== null && live.has(r.holder)) continue;
      const verdict = await this.settle(r, ownStale ? INTERRUPTED : watched && r.holder === this.deps.instanceId ? UNKNOWN_OUTCOME : why);
      counts[verdict] += 1;
      if (verdict === "held") {
        this.unresolved.set(r.id, key);
        this.inFlight.add(key);
      } else if (watched) {
        this.unresolved.delete(r.id);
        this.inFlight.delete(key);
      }
    }
    return counts;
  }

  private async settle(r: RelayRecord, why: string): Promise<"confirmed" | "failed" | "held"> {
    const { store } = this.deps;
    const chain = this.deps.chains.get(r.network);
    const failed = async (error: ErrorNameValue, detail: string): Promise<"failed"> => {
      await store.advance(r.id, RelayState.failed(this.now(), error, detail));
      return "failed";
    };
    if (!chain) return failed(ErrorName.RelayFailed, `${why}; network ${r.network} is no longer enabled`);
    const submitted = r.steps.some((s) => s.kind === "submitted");
    if (!submitted && r.attempts.length === 0) return failed(ErrorName.RelayFailed, why === INTERRUPTED ? why : `${why} before it was submitted`);
    const nullifier = fromHex(r.nullifierHash);
    if (!nullifier || nullifier.length !== 32) return failed(ErrorName.RelayFailed, `${why}; its record has no valid nullifier`);
    let height: number | null = null;
    let spender: string | null;
    try {
      // The height first: once past every attempt's lastValidBlockHeight, a spend read after it is final.
      if (r.attempts.length) height = await chain.blockHeight();
      spender = await chain.spentBy(r.mint, nullifier);
    } catch (e) {
      this.log(`relay ${r.id}: ${why}: ${(e as Error).message}; held`);
      return "held";
    }
    const own = new Set(r.attempts.map((a) => a.signature));
    if (spender !== null && (own.has(spender) || (r.attempts.length === 0 && chain.kind === "sandbox"))) {
      if (why === UNKNOWN_OUTCOME) this.log(`relay ${r.id}: its transaction ${spender} landed after the outcome was reported unknown`);
      await store.advance(r.id, RelayState.confirmed(this.now(), spender));
      return "confirmed";
    }
    if (spender !== null) return failed(ErrorName.NullifierAlreadySpent, `${why}; the nullifier was spent by another transaction`);
    // Unspent: nothing was sent (no attempt on record, and none can be recorded once this is final), or every attempt expired.
    const lastValid = Math.max(...r.attempts.map((a) => a.lastValidBlockHeight));
    if (r.attempts.length === 0 || height === null || height > lastValid) return failed(ErrorName.RelayFailed, `${why}; none of its transactions landed`);
    return "held";
  }

  /** `gate`: the client's verification slot (none: not capped, e.g. tests and the bench). */
  relay(req: ParsedWithdrawal, gate?: VerificationGate): Promise<RelayOutcome> {
    return this.run(req, null, gate);
  }

  /** /relay_swap: the same pipeline; depositSize − fee is swapped into output_mint, at least minOut of it for the recipient. */
  relaySwap(req: ParsedSwapWithdrawal, gate?: VerificationGate): Promise<RelayOutcome> {
    return this.run(req, { outputMint: req.outputMint, outputMintBytes: req.outputMintBytes, minOut: req.minOut }, gate);
  }

  private async run(
    req: ParsedWithdrawal,
    swapTerms: { outputMint: string; outputMintBytes: Uint8Array; minOut: bigint } | null,
    gate: VerificationGate = () => () => {},
  ): Promise<RelayOutcome> {
    const { indexer, chains } = this.deps;
    const received = this.now();
    // The fee is fixed here, at receipt: a fee change never reaches a relay in flight.
    const fee = decideFee(req.depositSize, req.fee, this.deps.fees.inForce(req.network, req.mint), received);
    const chain = chains.get(req.network);
    const id = randomUUID();
    const nullifierHex = toHex(req.nullifierHash);
    const kind = swapTerms === null ? "relay" : "swap";
    const reject: Reject = (fault, error, detail) => {
      this.rejections.add({ at: received, kind, network: req.network, mint: req.mint, fault, error, detail });
      return { fault, error, message: detail };
    };

    const paused = this.deps.pauses?.pausedReason(req.network, req.mint);
    if (paused) return reject("busy", ErrorName.RelayPaused, paused);
    if (!chain) return reject("client", ErrorName.InvalidRequest, `network: ${req.network} is not enabled on this relay`);
    if (req.relayer !== null && req.relayer !== chain.feePayer) {
      return reject(
        "client",
        ErrorName.InvalidRequest,
        `relayer: this relay's key on ${req.network} is ${chain.feePayer} (GET /fees); a proof bound to another relayer cannot be relayed here`,
      );
    }
    if (!fee.ok) {
      if (fee.kind === "Uncoverable") return reject("client", ErrorName.InvalidRequest, "depositSize: does not cover the relayer fee");
      return reject(
        "client",
        ErrorName.FeeTooLow,
        `fee: ${req.fee} is below this relay's fee of ${fee.published} for depositSize ${req.depositSize} of ${req.mint} on ${req.network} (GET /fees)`,
      );
    }
    if (!(await this.knowsRoot(req))) {
      const pool = indexer.get(req.network, req.mint);
      if (!pool) return reject("client", ErrorName.InvalidRoot, `no pool for ${req.mint} on ${req.network}`);
      return reject("client", ErrorName.InvalidRoot, `root is not the pool's current root or one of the ${ROOT_HISTORY_SIZE - 1} before it`);
    }
    const relayerBytes = parsePublicKey(chain.feePayer);
    if (!relayerBytes.ok) return reject("server", ErrorName.RelayFailed, `the ${req.network} relayer key is not a public key`);

    const key = lockKey(req.network, req.mint, nullifierHex);
    if (this.inFlight.has(key)) return reject("client", ErrorName.NullifierAlreadySpent, IN_FLIGHT);
    this.inFlight.add(key);
    let unknown = false;
    try {
      if (await chain.isNullifierSpent(req.mint, req.nullifierHash)) return reject("client", ErrorName.NullifierAlreadySpent, "the nullifier account exists");
      let swap: QuotedSwap | undefined;
      if (swapTerms !== null) {
        const taken = await this.takeQuote(id, req, swapTerms, req.depositSize - fee.fee, reject);
        if ("outcome" in taken) return taken.outcome;
        swap = taken;
      }
      const terms = { relayer: relayerBytes.value, fee: fee.fee, swap: swapTerms && { outputMint: swapTerms.outputMintBytes, minOut: swapTerms.minOut } };
      const record: NewRelayRecord = {
        id,
        kind,
        network: req.network,
        mint: req.mint,
        outputMint: swapTerms?.outputMint ?? null,
        recipient: req.recipient,
        nullifierHash: nullifierHex,
        depositSize: req.depositSize,
        changeCommitment: toHex(req.changeCommitment),
        fee: fee.fee,
        relayer: chain.feePayer,
        minOut: swapTerms?.minOut ?? null,
        receivedAt: received,
        holder: this.deps.instanceId,
      };
      const outcome = await this.verifyAndSubmit(record, req, chain, terms, swap, reject, gate);
      unknown = "unknown" in outcome;
      return outcome.result;
    } finally {
      // Released only after a definitive verdict: spent on chain, or did not land.
      if (unknown) {
        this.log(`relay ${id}: outcome unknown; nullifier ${nullifierHex} stays locked until its transactions land or can no longer land`);
        this.unresolved.set(id, key);
      } else {
        this.inFlight.delete(key);
      }
    }
  }

  private async verifyAndSubmit(
    record: NewRelayRecord,
    req: ParsedWithdrawal,
    chain: ChainBackend,
    terms: RelayTerms,
    swap: QuotedSwap | undefined,
    reject: Reject,
    gate: VerificationGate,
  ): Promise<{ result: RelayOutcome } | { result: RelayOutcome; unknown: true }> {
    const { store } = this.deps;
    const { id } = record;
    const { fee } = terms;
    // All seven public signals from the request and this relay's own terms: a proof made for any
    // other relayer, fee, output mint or minOut (extDataHash), part withdrawn or change leaf does not verify.
    const publicSignals = withdrawalPublicSignals(this.deps.hasher, {
      root: req.root,
      nullifierHash: req.nullifierHash,
      recipient: req.recipientBytes,
      amount: req.depositSize,
      mint: req.mintBytes,
      terms,
      changeCommitment: req.changeCommitment,
    });
    // Every cheaper check (pool, root, fee, relayer, nullifier, quote) has passed:
    // only now does the request cost a pairing, and only within its client's share of the verifier.
    const release = gate();
    if (!release)
      return {
        result: reject("rate-limited", ErrorName.RateLimited, "too many proofs from this client are being verified; wait for an answer before sending more"),
      };
    const t0 = this.now();
    let valid: boolean;
    try {
      valid = await this.deps.verifier.verify(req.proof, publicSignals);
    } catch (e) {
      if (e instanceof VerifierBusyError) return { result: reject("busy", ErrorName.ServerBusy, "the proof verifier is busy; try again in a moment") };
      return { result: reject("server", ErrorName.RelayFailed, `verifier unavailable: ${(e as Error).message}`) };
    } finally {
      release();
    }
    if (!valid) {
      return {
        result: reject(
          "client",
          ErrorName.InvalidProof,
          `proof ${NOT_UNDER_PROTOCOL} for these public inputs (root, nullifierHash, recipient, depositSize, mint, this relay's terms, changeCommitment)`,
        ),
      };
    }

    // A candidate now: recorded from here on. The record is the nullifier's lock (another
    // instance may hold it), durable before anything is sent; the states after it are not
    // awaited: what the chain keeps of this relay is ordered after them (submitAndSettle).
    const verifiedAt = this.now();
    if ((await store.create(record, RelayState.received(record.receivedAt))) === "locked") {
      return { result: { fault: "client", error: ErrorName.NullifierAlreadySpent, message: IN_FLIGHT } };
    }
    void store.advance(id, RelayState.verified(verifiedAt, verifiedAt - t0)).catch(() => {});
    if (swap) void store.recordSwap(id, swap.record).catch(() => {});
    const fail: Fail = async (fault, error, detail) => {
      await store.advance(id, RelayState.failed(this.now(), error, detail));
      return { fault, error, message: detail };
    };
    let listed: boolean;
    try {
      listed = this.deps.sanctions.check(req.recipient).listed;
    } catch (e) {
      return { result: await fail("server", ErrorName.RelayFailed, `sanctions list unavailable: ${(e as Error).message}`) };
    }
    if (listed) return { result: await fail("client", ErrorName.OFACCheckFailed, "recipient is on a sanctions list") };
    // After verification, so a request that changed minOut or output_mint under its proof is InvalidProof, not this.
    if (swap && swap.record.quotedOut < swap.leg.minOut) {
      const detail = `the venue now delivers ${swap.record.quotedOut} of ${swap.leg.outputMint} for ${swap.record.inAmount}, below minOut ${swap.leg.minOut}`;
      return { result: await fail("client", ErrorName.SlippageExceeded, detail) };
    }
    // Asked again just before sending: a switch (or the program guard's stop after an upgrade) set while the proof was verified holds too.
    const pausedNow = this.deps.pauses?.pausedReason(req.network, req.mint);
    if (pausedNow) return { result: await fail("busy", ErrorName.RelayPaused, pausedNow) };
    return this.submitAndSettle(id, req, chain, fee, swap, fail);
  }

  /**
   * Sends the verified withdrawal and records the chain's verdict; the answer waits for the
   * verdict and for the change leaf in the relay's own tree, both durable.
   */
  private async submitAndSettle(
    id: string,
    req: ParsedWithdrawal,
    chain: ChainBackend,
    fee: bigint,
    swap: QuotedSwap | undefined,
    fail: Fail,
  ): Promise<{ result: RelayOutcome } | { result: RelayOutcome; unknown: true }> {
    const { store } = this.deps;
    // Not awaited before sending: the record is already durable (create), and `submitted` only
    // tells a restart that something may have been sent. The chain's own evidence is durable after
    // it: the sandbox's ledger write is journaled behind it in the same store, and a solana
    // backend records each attempt (durably, ordered after this) before sending it.
    const submitted = store.advance(id, RelayState.submitted(this.now())).catch(() => {});
    let result;
    let indexing: Promise<void> | null = null;
    try {
      result = await chain.submitWithdrawal(
        {
          mint: req.mint,
          mintBytes: req.mintBytes,
          recipient: req.recipient,
          root: req.root,
          nullifierHash: req.nullifierHash,
          proof: req.proof,
          depositSize: req.depositSize,
          changeCommitment: req.changeCommitment,
          fee,
          ...(swap ? { swap: swap.leg } : {}),
        },
        {
          attempt: (a) => store.recordAttempt(id, a),
          // As a deposit's answer does: the relay's own tree takes the change leaf before the wallet asks get_proof for it.
          applied: () => void (indexing ??= this.indexerCaughtUp(req)),
        },
      );
    } catch (e) {
      // A backend that threw may have sent something: unknown, not "did not land"; the record stays without a verdict (resolveOrphans).
      this.log(`relay ${id}: submission failed: ${(e as Error).message}`);
      return { result: { fault: "server", error: ErrorName.RelayFailed, message: "transaction submission failed" }, unknown: true };
    }
    // Before any later state: on PostgreSQL each write has its own connection, so only this keeps the steps in order.
    // A failed write leaves the record without `submitted`; a restart then goes by the chain's evidence (settle).
    await submitted;
    if (swap && result.outAmount !== undefined) {
      const executedOut = result.outAmount;
      await store.recordSwap(id, { ...swap.record, executedOut, slippageSeenBps: slippageSeenBps(swap.record.quotedOut, executedOut) });
    }
    if (!result.ok) {
      const mapped = REJECTION[result.rejection];
      const detail = result.rejection === "InvalidProof" ? `${result.detail} (the proof ${NOT_UNDER_PROTOCOL})` : result.detail;
      // The transaction may still land: no verdict on record, the lock stays until the chain decides (resolveOrphans).
      if (result.rejection === "Unknown") return { result: { fault: mapped.fault, error: mapped.error, message: detail }, unknown: true };
      return { result: await fail(mapped.fault, mapped.error, detail) };
    }
    const changeLeafIndex = result.changeLeafIndex ?? (await this.changeLeafFromIndexer(req));
    // The verdict, and the change leaf in the relay's own tree (begun when the chain applied the withdrawal, or now).
    await Promise.all([
      store.advance(id, RelayState.confirmed(this.now(), result.signature, changeLeafIndex)),
      indexing ?? (result.changeLeafIndex !== null ? this.indexerCaughtUp(req) : null),
    ]);
    if (changeLeafIndex === null) this.log(`relay ${id}: landed as ${result.signature}, but where its change leaf went is not known yet`);
    // Null only when neither the chain's verdict nor the indexer could tell; a wallet then reads the transaction's WithdrawEvent.
    return { result: { status: 200, signature: result.signature, changeLeafIndex: changeLeafIndex as number } };
  }

  /**
   * Whether the pool knows the request's root. Where another instance follows the network, this
   * tree may be a poll behind the store (a deposit that instance just indexed): on a miss, it
   * catches up from the store once and looks again. The leader's tree is the store's.
   */
  private async knowsRoot(req: ParsedWithdrawal): Promise<boolean> {
    const { indexer } = this.deps;
    const known = (): boolean => indexer.get(req.network, req.mint)?.tree.isKnownRoot(req.root) ?? false;
    if (known() || indexer.leads(req.network)) return known();
    try {
      await indexer.sync(req.network, req.mint);
    } catch (e) {
      this.log(`relay: catching up ${req.network}/${req.mint} from the store for an unknown root: ${(e as Error).message}`);
    }
    return known();
  }

  /** Syncs the pool's tree, waiting at most CHANGE_LEAF_SYNC_MS: a slow chain delays the answer that long, never longer. */
  private async indexerCaughtUp(req: ParsedWithdrawal): Promise<void> {
    const synced = this.deps.indexer.sync(req.network, req.mint).catch((e: unknown) => {
      this.log(`relay: indexer sync after a withdrawal: ${(e as Error).message}`);
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, CHANGE_LEAF_SYNC_MS)));
    await Promise.race([synced, late]);
    clearTimeout(timer);
  }

  /** The withdrawal landed but the chain did not say where its change leaf went: the indexer applies it from the transaction. */
  private async changeLeafFromIndexer(req: ParsedWithdrawal): Promise<number | null> {
    const { indexer } = this.deps;
    // Real time, not this.now(): a test's frozen clock must not make this wait forever.
    const until = Date.now() + CHANGE_LEAF_WAIT_MS;
    for (;;) {
      try {
        await indexer.sync(req.network, req.mint);
      } catch (e) {
        this.log(`relay: indexer sync for the change leaf: ${(e as Error).message}`);
      }
      const found = indexer.changeLeafIndexOf(req.network, req.mint, req.nullifierHash);
      if (found !== null || Date.now() >= until) return found;
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /**
   * The quote the swap is held to: what depositSize − fee buys now (recorded once the
   * proof verified). No venue, no route or too little depth refuse the relay before any proof work; an
   * output below the proof's minOut refuses it after verification, before
   * anything is sent.
   */
  private async takeQuote(
    id: string,
    req: ParsedWithdrawal,
    terms: { outputMint: string; minOut: bigint },
    amount: bigint,
    reject: Reject,
  ): Promise<QuotedSwap | { outcome: RelayOutcome }> {
    const { outputMint, minOut } = terms;
    const venue = this.deps.swaps?.venueFor(req.network) ?? null;
    if (!venue) return { outcome: reject("client", ErrorName.SwapFailed, `no swap venue on ${req.network}`) };
    const slippage = this.deps.swaps!.slippageFor(req.network, req.mint, outputMint);
    let quoted;
    try {
      quoted = await venue.quote({ inputMint: req.mint, outputMint, amount, slippageBps: slippage.bps, dexes: [] });
    } catch (e) {
      this.log(`relay ${id}: quote failed: ${(e as Error).message}`);
      return { outcome: reject("client", ErrorName.SwapFailed, "the swap venue failed to quote") };
    }
    if (!quoted.ok) {
      const e = quoted.error;
      const name = e.kind === "InsufficientLiquidity" ? ErrorName.InsufficientLiquidity : ErrorName.SwapFailed;
      return { outcome: reject("client", name, e.detail) };
    }
    const q = quoted.value;
    const record: SwapRecord = {
      venue: venue.kind,
      quotedAt: this.now(),
      inAmount: amount,
      quotedOut: q.outAmount,
      priceImpactPct: q.priceImpactPct,
      slippageBps: slippage.bps,
      minOut,
      executedOut: null,
      slippageSeenBps: null,
    };
    return { leg: { outputMint, quote: q, minOut }, record };
  }
}
