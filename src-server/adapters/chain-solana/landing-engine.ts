/**
 * Lands one set of instructions signed by the relayer (docs/solana.md
 * "Landing engine"):
 *
 *  1. simulate (no signature check, latest blockhash, maximum compute units):
 *     a failed simulation is a definitive refusal and nothing is sent;
 *  2. compute-unit limit from the simulated units, compute-unit price from the
 *     recent prioritization fees of the writable accounts, capped by the config
 *     and by what the relay fee covers (fee-policy.ts);
 *  3. a fresh blockhash, the signature, the attempt reported `pending` (the
 *     relay records it durably before anything is sent), then the same bytes
 *     sent and re-sent every `rebroadcastMs` while the signature status is
 *     polled, until it reaches the commitment or the block height passes the
 *     blockhash's lastValidBlockHeight; a final status lookup with history then
 *     tells landed / failed / expired;
 *  4. expired: a new attempt from step 1 (the state may have changed), up to
 *     `maxAttempts`.
 *
 * "Did not land" is only ever claimed with evidence (the block height passed
 * the blockhash's life and the signature is unknown). When the RPC stays
 * unreachable so long that no verdict is possible, the outcome is `unknown`.
 */
import {
  ComputeBudgetProgram,
  type AddressLookupTableAccount,
  PublicKey,
  TransactionMessage,
  VersionedTransaction,
  type Commitment,
  type SignatureStatus,
  type TransactionError,
  type TransactionInstruction,
} from "@solana/web3.js";
import { Buffer } from "buffer";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import type { SubmissionAttempt, SubmissionObserver } from "../../ports/chain";
import type { SolanaNetworkConfig } from "../../config/schema";
import type { Signer } from "../../../src-shared/node/keypair-file";
import { computeUnitLimit, decidePrice, MAX_COMPUTE_UNIT_LIMIT, networkFeeLamports, percentileFee } from "./fee-policy";
import type { SolanaRpc } from "./rpc";

export interface LandingRequest {
  /** What the transaction does; the engine adds the two compute-budget instructions in front. */
  instructions: TransactionInstruction[];
  /** Data sizes of the accounts this transaction creates with the relayer's lamports (their rent is a cost). */
  createdAccountSizes: number[];
  /** The relay fee the network cost must stay under, in `mint` base units; null: no fee (a revert). */
  feeBudget: { mint: string; fee: bigint } | null;
  /** The most the priority fee may cost, lamports (a revert's budget: no relay fee bounds it). */
  priorityBudgetLamports?: number;
  observer?: SubmissionObserver;
  /** For log lines ("withdraw <mint>"). */
  label: string;
  /** Address lookup tables the v0 message may load accounts from (a Jupiter route's). */
  addressLookupTables?: AddressLookupTableAccount[];
  /**
   * Read these accounts' simulated state (simulateTransaction's `accounts`);
   * `check` returns why the transaction must not be sent (→ vetoed), or null.
   */
  simulationCheck?: { addresses: string[]; check(accounts: ({ owner: string; lamports: number; data: Uint8Array } | null)[]): string | null };
}

/** Where a refusal happened: simulation (nothing sent) or on chain (the fee was paid, nothing else happened). */
export interface Refusal {
  kind: "refused";
  stage: "simulation" | "chain";
  err: TransactionError | string;
  logs: string[];
  /** Program id of each instruction of the transaction, by index (for mapping custom errors). */
  programIds: string[];
  signature: string | null;
  attempts: SubmissionAttempt[];
}

export type LandingOutcome =
  | {
      kind: "landed";
      signature: string;
      slot: number;
      networkFeeLamports: number;
      rentLamports: number;
      /** The signed transaction's wire size (at most 1232). */
      sizeBytes: number;
      attempts: SubmissionAttempt[];
    }
  | Refusal
  /** The simulation's account states failed the request's simulationCheck (nothing sent). */
  | { kind: "vetoed"; detail: string; attempts: SubmissionAttempt[] }
  /** The signed transaction would exceed the 1232-byte packet (nothing simulated or sent). */
  | { kind: "too-large"; detail: string; attempts: SubmissionAttempt[] }
  /** The network cost would exceed the relay fee (nothing sent). */
  | { kind: "unprofitable"; detail: string; attempts: SubmissionAttempt[] }
  /** Nothing of this attempt reached the network (RPC unreachable before sending, attempt not recorded); earlier attempts expired. */
  | { kind: "not-sent"; detail: string; attempts: SubmissionAttempt[] }
  /** Every attempt's blockhash expired without it landing. */
  | { kind: "expired"; detail: string; attempts: SubmissionAttempt[] }
  /** A signed transaction may still be in flight and no verdict could be reached. */
  | { kind: "unknown"; detail: string; signature: string; attempts: SubmissionAttempt[] };

export interface LandingTiming {
  /** Signature status poll interval (default 400 ms). */
  pollMs?: number;
  /** No verdict possible (RPC unreachable, block height not advancing) this long → unknown. Default 180 000 (≈ 3 blockhash lives). */
  unknownAfterMs?: number;
  /** Before anything is sent, RPC failures are retried this long, then the submission fails (nothing in flight). Default 30 000. */
  preSendRetryMs?: number;
  /** First back-off after an RPC error (default 250 ms), doubled up to maxBackoffMs (default 5 000). */
  backoffMs?: number;
  maxBackoffMs?: number;
  now?: () => number;
}

/** The relayer's signature is the only one: the fee payer signs alone. */
const SIGNATURES = 1;

/** What step 2 decided for one attempt. */
interface PricedAttempt {
  limit: number;
  price: number;
  rentLamports: number;
}

type Settings = Pick<
  SolanaNetworkConfig,
  "commitment" | "computeUnitMargin" | "priorityFeePercentile" | "maxPriorityMicroLamports" | "maxAttempts" | "rebroadcastMs" | "lamportsPerUnit" | "allowLoss"
>;

/** Any valid base58 blockhash; simulation replaces it with the latest one. */
const PLACEHOLDER_BLOCKHASH = PublicKey.default.toBase58();
/** A transaction's largest wire size (the network's packet data size). */
const PACKET_DATA_SIZE = 1232;
/** getRecentPrioritizationFees takes at most 128 accounts. */
const MAX_FEE_ACCOUNTS = 128;

class RpcUnavailable extends Error {}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const message = (e: unknown) => (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 200);

export class LandingEngine {
  private readonly pollMs: number;
  private readonly unknownAfterMs: number;
  private readonly preSendRetryMs: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly now: () => number;
  private readonly payer: PublicKey;
  /** Rent-exempt minimum per data size, asked once. */
  private readonly rent = new Map<number, number>();

  constructor(
    private readonly rpc: SolanaRpc,
    private readonly signer: Signer,
    private readonly cfg: Settings,
    timing: LandingTiming = {},
    private readonly log: (line: string) => void = () => {},
  ) {
    this.pollMs = timing.pollMs ?? 400;
    this.unknownAfterMs = timing.unknownAfterMs ?? 180_000;
    this.preSendRetryMs = timing.preSendRetryMs ?? 30_000;
    this.backoffMs = timing.backoffMs ?? 250;
    this.maxBackoffMs = timing.maxBackoffMs ?? 5_000;
    this.now = timing.now ?? Date.now;
    this.payer = new PublicKey(signer.publicKey);
  }

  /** Rent-exempt lamports of an account of `size` bytes (cached per size). */
  async rentExempt(size: number): Promise<number> {
    const cached = this.rent.get(size);
    if (cached !== undefined) return cached;
    const v = await this.rpc.getMinimumBalanceForRentExemption(size);
    this.rent.set(size, v);
    return v;
  }

  async land(req: LandingRequest): Promise<LandingOutcome> {
    const attempts: SubmissionAttempt[] = [];
    const maxAttempts = Math.max(1, Math.floor(this.cfg.maxAttempts));
    for (let n = 1; n <= maxAttempts; n++) {
      const outcome = await this.attempt(n, req, attempts);
      if (outcome !== "expired") return outcome;
    }
    return { kind: "expired", detail: `did not land: the blockhash of each of ${attempts.length} attempts expired`, attempts };
  }

  /** One fresh-blockhash attempt; "expired" asks for the next. */
  private async attempt(n: number, req: LandingRequest, attempts: SubmissionAttempt[]): Promise<LandingOutcome | "expired"> {
    const programIds = [
      "ComputeBudget111111111111111111111111111111",
      "ComputeBudget111111111111111111111111111111",
      ...req.instructions.map((i) => i.programId.toBase58()),
    ];
    // The packet limit: a transaction that does not fit is refused before any RPC call.
    const oversize = this.oversize(req);
    if (oversize) return { kind: "too-large", detail: oversize, attempts };
    const simulated = await this.simulate(req, programIds, attempts);
    if ("kind" in simulated) return simulated;
    const priced = await this.price(req, simulated.unitsConsumed, attempts);
    if ("kind" in priced) return priced;
    return this.signRecordAndSend(n, req, priced, programIds, attempts);
  }

  /** Step 1: simulate, and let the request veto what the simulation would leave behind. */
  private async simulate(req: LandingRequest, programIds: string[], attempts: SubmissionAttempt[]): Promise<LandingOutcome | { unitsConsumed: number }> {
    let sim;
    try {
      sim = await this.beforeSend("simulateTransaction", () =>
        this.rpc.simulateTransaction(this.unsigned(req.instructions, MAX_COMPUTE_UNIT_LIMIT, 0, PLACEHOLDER_BLOCKHASH, req.addressLookupTables), {
          sigVerify: false,
          replaceRecentBlockhash: true,
          commitment: this.cfg.commitment,
          ...(req.simulationCheck ? { accounts: { encoding: "base64" as const, addresses: req.simulationCheck.addresses } } : {}),
        }),
      );
    } catch (e) {
      return this.notSent(e, attempts);
    }
    if (sim.value.err !== null && sim.value.err !== undefined) {
      return { kind: "refused", stage: "simulation", err: sim.value.err, logs: sim.value.logs ?? [], programIds, signature: null, attempts };
    }
    if (req.simulationCheck) {
      const simulated = sim.value.accounts;
      const wanted = req.simulationCheck.addresses.length;
      // Without the simulated accounts nothing can be checked: not sent.
      const veto =
        !Array.isArray(simulated) || simulated.length !== wanted
          ? "the simulation did not return the accounts asked for"
          : req.simulationCheck.check(
              simulated.map((a) => (a ? { owner: a.owner, lamports: a.lamports, data: new Uint8Array(Buffer.from(a.data[0] ?? "", "base64")) } : null)),
            );
      if (veto !== null) return { kind: "vetoed", detail: veto, attempts };
    }
    return { unitsConsumed: sim.value.unitsConsumed ?? MAX_COMPUTE_UNIT_LIMIT };
  }

  /** Step 2: the compute-unit limit from the simulation, and a price the relay fee can pay. */
  private async price(req: LandingRequest, unitsConsumed: number, attempts: SubmissionAttempt[]): Promise<LandingOutcome | PricedAttempt> {
    const cfg = this.cfg;
    const limit = computeUnitLimit(unitsConsumed, cfg.computeUnitMargin);
    let wanted: number;
    let rentLamports: number;
    try {
      const writable = this.writableAccounts(req.instructions);
      const fees = await this.beforeSend("getRecentPrioritizationFees", () => this.rpc.getRecentPrioritizationFees({ lockedWritableAccounts: writable }));
      wanted = percentileFee(
        fees.map((f) => f.prioritizationFee),
        cfg.priorityFeePercentile,
      );
      rentLamports = 0;
      for (const size of req.createdAccountSizes) rentLamports += await this.beforeSend("getMinimumBalanceForRentExemption", () => this.rentExempt(size));
    } catch (e) {
      return this.notSent(e, attempts);
    }
    const decision = decidePrice({
      signatures: SIGNATURES,
      unitLimit: limit,
      rentLamports,
      wantedPrice: wanted,
      maxPrice: cfg.maxPriorityMicroLamports,
      budget: req.feeBudget ? { fee: req.feeBudget.fee, lamportsPerUnit: cfg.lamportsPerUnit[req.feeBudget.mint] } : null,
      allowLoss: cfg.allowLoss,
      ...(req.priorityBudgetLamports !== undefined ? { maxPriorityLamports: req.priorityBudgetLamports } : {}),
    });
    if (!decision.ok) return { kind: "unprofitable", detail: decision.detail, attempts };
    if (decision.cappedBy)
      this.log(
        `${req.label}: compute-unit price ${wanted} µlamports capped to ${decision.price} by the ${decision.cappedBy === "fee" ? "relay fee" : "config (maxPriorityMicroLamports)"}`,
      );
    return { limit, price: decision.price, rentLamports };
  }

  /** Step 3: blockhash, signature, durable record, then send and follow to a verdict. */
  private async signRecordAndSend(
    n: number,
    req: LandingRequest,
    priced: PricedAttempt,
    programIds: string[],
    attempts: SubmissionAttempt[],
  ): Promise<LandingOutcome | "expired"> {
    let blockhash: { blockhash: string; lastValidBlockHeight: number };
    try {
      blockhash = await this.beforeSend("getLatestBlockhash", () => this.rpc.getLatestBlockhash(this.cfg.commitment));
    } catch (e) {
      return this.notSent(e, attempts);
    }
    const { limit, price, rentLamports } = priced;
    const tx = this.unsigned(req.instructions, limit, price, blockhash.blockhash, req.addressLookupTables);
    const sigBytes = this.signer.sign(tx.message.serialize());
    tx.addSignature(this.payer, sigBytes);
    const signature = encodeBase58(sigBytes);
    const wire = tx.serialize();
    const attempt: SubmissionAttempt = {
      n,
      signature,
      blockhash: blockhash.blockhash,
      lastValidBlockHeight: blockhash.lastValidBlockHeight,
      computeUnitLimit: limit,
      computeUnitPriceMicroLamports: price,
      networkFeeLamports: networkFeeLamports(SIGNATURES, price, limit),
      sentAt: this.now(),
      broadcasts: 0,
      verdict: "pending",
      verdictAt: null,
      slot: null,
      detail: null,
    };
    if (req.observer) {
      let recorded: boolean;
      try {
        recorded = await req.observer.attempt({ ...attempt });
      } catch (e) {
        // Not recorded, so not sent: a crash now must not leave an unrecorded transaction in flight.
        return { kind: "not-sent", detail: `the attempt could not be recorded before sending: ${message(e)}`, attempts };
      }
      if (!recorded)
        return { kind: "not-sent", detail: "the relay's record already has a verdict (resolved while this attempt was prepared); not sent", attempts };
    }
    attempts.push(attempt);

    const verdict = await this.track(wire, attempt, req.label);
    attempt.verdict = verdict.verdict;
    attempt.verdictAt = this.now();
    attempt.slot = verdict.slot;
    attempt.detail = verdict.detail;
    if (req.observer) {
      try {
        await req.observer.attempt({ ...attempt });
      } catch (e) {
        this.log(`${req.label}: recording the verdict of ${signature} failed: ${message(e)}`);
      }
    }
    switch (verdict.verdict) {
      case "landed":
        return {
          kind: "landed",
          signature,
          slot: verdict.slot!,
          networkFeeLamports: attempt.networkFeeLamports,
          rentLamports,
          sizeBytes: wire.length,
          attempts,
        };
      case "failed": {
        const logs = await this.failureLogs(signature);
        return { kind: "refused", stage: "chain", err: verdict.err!, logs, programIds, signature, attempts };
      }
      case "unknown":
        return { kind: "unknown", detail: verdict.detail ?? "no verdict", signature, attempts };
      case "expired":
        this.log(`${req.label}: attempt ${n} (${signature}) expired after ${attempt.broadcasts} broadcasts`);
        return "expired";
    }
  }

  private unsigned(
    instructions: TransactionInstruction[],
    limit: number,
    price: number,
    blockhash: string,
    lookupTables: AddressLookupTableAccount[] = [],
  ): VersionedTransaction {
    const msg = new TransactionMessage({
      payerKey: this.payer,
      recentBlockhash: blockhash,
      instructions: [
        ComputeBudgetProgram.setComputeUnitLimit({ units: limit }),
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports: price }),
        ...instructions,
      ],
    }).compileToV0Message(lookupTables);
    return new VersionedTransaction(msg);
  }

  /**
   * Why the transaction cannot be sent at all: its signed size above the
   * 1232-byte packet (web3.js refuses to serialize it), or null.
   */
  private oversize(req: LandingRequest): string | null {
    let size: number;
    try {
      const msg = this.unsigned(req.instructions, MAX_COMPUTE_UNIT_LIMIT, 0, PLACEHOLDER_BLOCKHASH, req.addressLookupTables).message;
      size = 1 + 64 * msg.header.numRequiredSignatures + msg.serialize().length;
    } catch (e) {
      return `${req.label}: the transaction does not fit in a packet (${message(e)})`;
    }
    return size > PACKET_DATA_SIZE ? `${req.label}: the transaction is ${size} bytes, more than a packet's ${PACKET_DATA_SIZE}` : null;
  }

  private writableAccounts(instructions: TransactionInstruction[]): PublicKey[] {
    const seen = new Map<string, PublicKey>([[this.payer.toBase58(), this.payer]]);
    for (const ix of instructions) for (const k of ix.keys) if (k.isWritable) seen.set(k.pubkey.toBase58(), k.pubkey);
    return [...seen.values()].slice(0, MAX_FEE_ACCOUNTS);
  }

  private notSent(e: unknown, attempts: SubmissionAttempt[]): LandingOutcome {
    if (!(e instanceof RpcUnavailable)) throw e;
    return { kind: "not-sent", detail: e.message, attempts };
  }

  /** An RPC call made before anything is in flight: retried with back-off for preSendRetryMs, then RpcUnavailable. */
  private async beforeSend<T>(what: string, call: () => Promise<T>): Promise<T> {
    const start = this.now();
    let delay = this.backoffMs;
    for (;;) {
      try {
        return await call();
      } catch (e) {
        if (this.now() - start + delay > this.preSendRetryMs) throw new RpcUnavailable(`RPC unavailable (${what}): ${message(e)}`);
        await sleep(delay);
        delay = Math.min(delay * 2, this.maxBackoffMs);
      }
    }
  }

  /**
   * Sends and re-sends the signed bytes until a verdict: the status reached
   * the commitment (landed or failed), or the block height passed the
   * blockhash's life and the signature is not found (expired).
   */
  private async track(
    wire: Uint8Array,
    a: SubmissionAttempt,
    label: string,
  ): Promise<{ verdict: "landed" | "failed" | "expired" | "unknown"; slot: number | null; err: TransactionError | null; detail: string | null }> {
    const commitment = this.cfg.commitment;
    let lastSendAt = -Infinity;
    let expired = false;
    let lastHeight = -1;
    let progressAt = this.now();
    let delay = this.backoffMs;
    let lastError = "";
    for (;;) {
      if (!expired && this.now() - lastSendAt >= this.cfg.rebroadcastMs) {
        lastSendAt = this.now();
        try {
          await this.rpc.sendRawTransaction(wire, { skipPreflight: true, maxRetries: 0 });
          a.broadcasts++;
        } catch (e) {
          lastError = `sendTransaction: ${message(e)}`;
        }
      }
      let failed = false;
      try {
        const status = (await this.rpc.getSignatureStatuses([a.signature])).value[0] ?? null;
        if (status && reached(status, commitment)) return verdictOf(status);
        const height = await this.rpc.getBlockHeight(commitment);
        if (height > lastHeight) {
          lastHeight = height;
          progressAt = this.now();
        }
        if (height > a.lastValidBlockHeight) {
          expired = true;
          // The blockhash can no longer land anywhere: the history decides.
          const final = (await this.rpc.getSignatureStatuses([a.signature], { searchTransactionHistory: true })).value[0] ?? null;
          if (final === null)
            return { verdict: "expired", slot: null, err: null, detail: `not found after block height ${height} passed ${a.lastValidBlockHeight}` };
          if (reached(final, commitment)) return verdictOf(final);
          // Seen in a block not yet at the commitment: keep watching it.
        }
        delay = this.backoffMs;
      } catch (e) {
        failed = true;
        lastError = message(e);
      }
      if (this.now() - progressAt > this.unknownAfterMs) {
        const why = lastError ? `RPC unavailable: ${lastError}` : "the block height did not advance";
        this.log(`${label}: no verdict for ${a.signature} within ${Math.round(this.unknownAfterMs / 1000)} s (${why}); it may still land`);
        return { verdict: "unknown", slot: null, err: null, detail: `no verdict within ${Math.round(this.unknownAfterMs / 1000)} s: ${why}` };
      }
      if (failed) {
        await sleep(delay);
        delay = Math.min(delay * 2, this.maxBackoffMs);
      } else if (expired) {
        await sleep(this.pollMs);
      } else {
        // Most transactions land within a slot or two of the send: look early, then settle at pollMs.
        const sinceSend = this.now() - lastSendAt;
        const poll = Math.min(this.pollMs, Math.max(FIRST_POLL_MS, sinceSend / 2));
        await sleep(Math.max(1, Math.min(poll, lastSendAt + this.cfg.rebroadcastMs - this.now())));
      }
    }
  }

  /** The failed transaction's logs, best effort (for the program's `Error: <Name>` line). */
  private async failureLogs(signature: string): Promise<string[]> {
    try {
      const tx = await this.rpc.getTransaction(signature, {
        maxSupportedTransactionVersion: 0,
        commitment: this.cfg.commitment === "finalized" ? "finalized" : "confirmed",
      });
      return tx?.meta?.logMessages ?? [];
    } catch {
      return [];
    }
  }
}

/** The first status check after a send; the interval then grows with the time since the send, up to pollMs. */
const FIRST_POLL_MS = 40;

const RANK: Record<string, number> = { processed: 0, confirmed: 1, finalized: 2 };

/** Whether a status is at least at `commitment` (no confirmationStatus: rooted, confirmations null). */
export function reached(s: SignatureStatus, commitment: Commitment): boolean {
  const have = s.confirmationStatus ?? (s.confirmations === null ? "finalized" : "processed");
  return (RANK[have] ?? 0) >= (RANK[commitment] ?? 1);
}

function verdictOf(s: SignatureStatus): { verdict: "landed" | "failed"; slot: number; err: TransactionError | null; detail: string | null } {
  return s.err
    ? { verdict: "failed", slot: s.slot, err: s.err, detail: `failed on chain: ${JSON.stringify(s.err)}` }
    : { verdict: "landed", slot: s.slot, err: null, detail: null };
}
