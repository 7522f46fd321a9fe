/**
 * The local validator's ledger, assembled from its parts: the slot clock
 * (clock.ts: slots, blockhashes, block times, commitment levels), the
 * transaction history (history.ts: status cache, history per address), the
 * transaction pipeline (pipeline.ts: the ledger's checks around the engine
 * that holds the accounts and executes, engine.ts: LiteSVM in svm.ts), the
 * test credits (credits.ts) and the events (events.ts). Transactions execute
 * strictly one at a time. `snapshot()`/`restore()` give tests a JSON copy of
 * everything.
 */
import { NATIVE_MINT } from "../../src-shared/pool-program";
import { SlotClock } from "./clock";
import { createMint, mintTo, type CreditedLedger } from "./credits";
import type { AccountState, LedgerEngine } from "./engine";
import { LedgerEventHub, type LedgerEvents, type Listener } from "./events";
import { TransactionHistory } from "./history";
import { TransactionPipeline } from "./pipeline";
import { SvmEngine } from "./svm";
import { mintDecimals } from "./token";
import type { DecodedTransaction } from "./transaction";
import type { Commitment, LedgerSnapshot, SimulationResult, SubmitOutcome, TransactionRecord } from "./types";

export interface LedgerOptions {
  /** A landed transaction is `confirmed` this many slots after its slot (default 1). */
  confirmAfterSlots?: number;
  /** … and `finalized` this many (default 32). */
  finalizeAfterSlots?: number;
  /** A blockhash is valid while block height ≤ its height + this (default 150). */
  blockhashValidBlocks?: number;
  /** Decimals of mints that have no mint account (default 9 for wrapped SOL, 6 otherwise). */
  mintDecimals?: Record<string, number>;
  /** Wall clock in ms (tests may pin it). */
  now?: () => number;
}

export class Ledger {
  readonly mintDecimalOverrides: Map<string, number>;
  readonly engine: LedgerEngine;
  private readonly clock: SlotClock;
  private readonly history = new TransactionHistory();
  private readonly events = new LedgerEventHub();
  private readonly pipeline: TransactionPipeline;
  private readonly credited: CreditedLedger;

  constructor(opts: LedgerOptions = {}, engine: LedgerEngine = new SvmEngine()) {
    this.engine = engine;
    this.clock = new SlotClock({
      confirmAfterSlots: opts.confirmAfterSlots ?? 1,
      finalizeAfterSlots: opts.finalizeAfterSlots ?? 32,
      blockhashValidBlocks: opts.blockhashValidBlocks ?? 150,
      now: opts.now ?? Date.now,
    });
    this.mintDecimalOverrides = new Map(Object.entries(opts.mintDecimals ?? {}));
    this.pipeline = new TransactionPipeline({
      engine,
      clock: this.clock,
      history: this.history,
      decimalsOf: (mint) => this.decimalsOf(mint),
      landed: (record, changed, slot) => {
        this.history.add(record);
        this.events.emit("transaction", record);
        this.events.emit("accounts", changed, slot);
        this.emitCommitments();
      },
    });
    this.credited = {
      engine,
      setAccount: (address, account) => this.setAccount(address, account),
      announce: (addresses) => this.events.emit("accounts", addresses, this.clock.slot),
      rentExempt: (size) => this.rentExempt(size),
      decimalsOf: (mint) => this.decimalsOf(mint),
    };
    // Wrapped SOL's mint exists on every cluster.
    if (!this.engine.getAccount(NATIVE_MINT)) this.createMint(NATIVE_MINT, 9);
  }

  get confirmAfterSlots(): number {
    return this.clock.confirmAfterSlots;
  }
  get finalizeAfterSlots(): number {
    return this.clock.finalizeAfterSlots;
  }
  get blockhashValidBlocks(): number {
    return this.clock.blockhashValidBlocks;
  }

  // ------------------------------------------------------------ events

  on<K extends keyof LedgerEvents>(event: K, listener: Listener<LedgerEvents[K]>): () => void {
    return this.events.on(event, listener);
  }

  // ------------------------------------------------------------ clock

  get slot(): number {
    return this.clock.slot;
  }
  /** Block height: one block per slot. */
  get blockHeight(): number {
    return this.clock.slot;
  }
  get genesisHash(): string {
    return this.clock.genesisHash;
  }
  get transactionCount(): number {
    return this.history.count;
  }

  /** Produces the next `n` slots (each with its blockhash). */
  advanceSlots(n = 1): void {
    for (let i = 0; i < n; i++) {
      const slot = this.clock.next();
      this.events.emit("slot", slot);
      this.emitCommitments();
    }
  }

  private emitCommitments(): void {
    const { confirmAfterSlots, finalizeAfterSlots } = this.clock;
    for (let r; (r = this.history.takeReached("confirmed", this.clock.slot, confirmAfterSlots));) this.events.emit("commitment", "confirmed", r);
    for (let r; (r = this.history.takeReached("finalized", this.clock.slot, finalizeAfterSlots));) this.events.emit("commitment", "finalized", r);
  }

  /** The newest blockhash (of `slot`, default the current one) and the last block height it is valid at. */
  latestBlockhash(atSlot = this.clock.slot): { blockhash: string; lastValidBlockHeight: number; slot: number } {
    return this.clock.latestBlockhash(atSlot);
  }

  /** Last valid block height of a known blockhash, or null. */
  blockhashLastValidHeight(blockhash: string): number | null {
    return this.clock.blockhashLastValidHeight(blockhash);
  }

  /** Produces slots until `blockhash` is past its last valid block height (nothing for an unknown or already expired one). */
  expireBlockhash(blockhash: string): void {
    const last = this.blockhashLastValidHeight(blockhash);
    if (last !== null && this.blockHeight <= last) this.advanceSlots(last + 1 - this.blockHeight);
  }

  isBlockhashValid(blockhash: string): boolean {
    return this.clock.isBlockhashValid(blockhash);
  }

  unixTimeOf(slot: number): number {
    return this.clock.unixTimeOf(slot);
  }

  /** The commitment a landed transaction of `slot` has reached. */
  commitmentOf(slot: number): Commitment {
    return this.clock.commitmentOf(slot);
  }

  reached(slot: number, commitment: Commitment): boolean {
    return this.clock.reached(slot, commitment);
  }

  // ------------------------------------------------------------ accounts

  /** A copy of an account, null when there is none. */
  getAccount(address: string): AccountState | null {
    return this.engine.getAccount(address);
  }

  /** Writes an account directly (genesis, tests). Zero lamports deletes it. */
  setAccount(address: string, account: AccountState | null): void {
    this.engine.setAccount(address, account);
    this.events.emit("accounts", [address], this.clock.slot);
  }

  /** Accounts owned by `owner` (getProgramAccounts). */
  accountsOwnedBy(owner: string): [string, AccountState][] {
    return this.engine.accountsOwnedBy(owner);
  }

  getBalance(address: string): bigint {
    return this.engine.getBalance(address);
  }

  rentExempt(size: number): bigint {
    return this.engine.rentExempt(size);
  }

  decimalsOf(mint: string): number {
    return mintDecimals(mint, (a) => this.engine.getAccount(a), this.mintDecimalOverrides);
  }

  // ------------------------------------------------------------ programs

  /** Ids of the programs the validator added (besides the runtime's own). */
  get programIds(): string[] {
    return this.engine.programIds;
  }

  // ------------------------------------------------------------ test credits (credits.ts)

  /** Creates an SPL token mint (no authority, no supply), or leaves an existing one; returns its decimals. */
  createMint(mint: string, decimals = this.decimalsOf(mint)): number {
    return createMint(this.credited, mint, decimals);
  }

  /** Credits `amount` tokens of `mint` to `owner`'s associated token account; returns the token account. */
  mintTo(owner: string, mint: string, amount: bigint): string {
    return mintTo(this.credited, owner, mint, amount);
  }

  // ------------------------------------------------------------ transactions (pipeline.ts)

  verifySignatures(tx: DecodedTransaction): boolean {
    return this.engine.verifySignatures(tx);
  }

  hasSignature(signature: string): boolean {
    return this.history.has(signature);
  }

  /**
   * Runs a transaction without changing anything. `replaceRecentBlockhash`
   * runs it as if it carried the latest blockhash.
   */
  simulate(
    tx: DecodedTransaction,
    opts: { verifySignatures?: boolean; replaceRecentBlockhash?: boolean; accounts?: string[] } = {},
  ): Promise<SimulationResult> {
    return this.pipeline.simulate(tx, opts);
  }

  /**
   * Processes a transaction for real, after every transaction submitted
   * before it. Signatures are always verified here: a transaction sent with
   * skipPreflight and a bad signature is dropped, as a leader would.
   */
  submit(tx: DecodedTransaction): Promise<SubmitOutcome> {
    return this.pipeline.submit(tx);
  }

  /** Resolves when every transaction submitted so far has been processed. */
  idle(): Promise<void> {
    return this.pipeline.idle();
  }

  // ------------------------------------------------------------ history (history.ts)

  getTransaction(signature: string): TransactionRecord | null {
    return this.history.get(signature);
  }

  /**
   * Signatures of landed transactions that touched `address`, newest first,
   * at `commitment` or better; `before`/`until` are exclusive bounds.
   */
  signaturesForAddress(address: string, opts: { before?: string; until?: string; limit?: number; commitment?: Commitment } = {}): TransactionRecord[] {
    return this.history.forAddress(address, (slot, commitment) => this.clock.reached(slot, commitment), opts);
  }

  /**
   * Per slot of the last 150: the lowest compute-unit price (micro-lamports)
   * among landed transactions that write one of `writable` (any transaction
   * when empty), the highest over the accounts; 0 for none.
   */
  recentPrioritizationFees(writable: readonly string[]): { slot: number; prioritizationFee: number }[] {
    return this.history.recentPrioritizationFees(writable, this.clock.slot);
  }

  // ------------------------------------------------------------ snapshot

  snapshot(): LedgerSnapshot {
    const clock = this.clock.snapshot();
    return {
      format: "localnet-ledger/2",
      slot: clock.slot,
      genesisHash: clock.genesisHash,
      blockhashes: clock.blockhashes,
      slotTimes: clock.slotTimes,
      state: this.engine.snapshotState(),
      transactions: this.history.snapshot(),
    };
  }

  /** Replaces the whole state with a snapshot (of a ledger on the same kind of engine). */
  restore(snapshot: LedgerSnapshot): void {
    if (snapshot.format !== "localnet-ledger/2") throw new Error(`unknown ledger snapshot format ${String(snapshot.format)}`);
    this.engine.restoreState(snapshot.state);
    this.clock.restore(snapshot);
    this.history.restore(snapshot.transactions, this.clock.slot, this.clock.confirmAfterSlots, this.clock.finalizeAfterSlots);
    this.events.emit("accounts", null, this.clock.slot);
  }
}
