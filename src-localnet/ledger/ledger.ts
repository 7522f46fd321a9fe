/**
 * The local validator's ledger: slots with one blockhash each (block height =
 * slot) and their block times, the signature status cache, transaction history
 * per address, commitment levels, and the transaction pipeline around the
 * engine that holds the accounts and executes (engine.ts: LiteSVM in
 * svm.ts): the status cache and the blockhash window are checked here, then
 * the engine verifies signatures, charges the fee (also on failure) and runs
 * the programs. Transactions execute strictly one at a time.
 * `snapshot()`/`restore()` give tests a JSON copy of everything.
 */
import { randomBytes } from "node:crypto";
import bs58 from "bs58";
import { PublicKey } from "@solana/web3.js";
import { associatedTokenAddress, encodeTokenAccount, NATIVE_MINT, TOKEN_ACCOUNT_OFFSETS, TOKEN_ACCOUNT_SIZE, TOKEN_PROGRAM_ID } from "../../src-shared/pool-program";
import type { AccountState, InnerInstructionsJson, LedgerEngine, ReturnDataJson } from "./engine";
import type { TransactionErrorJson } from "./errors";
import { decodeMint, encodeMint, MINT_SIZE, mintDecimals, readTokenAccount, uiTokenAmount, type UiTokenAmount } from "./token";
import { BUILTIN_PROGRAM_IDS, resolveAccounts, type DecodedTransaction, type ResolvedAccounts } from "./transaction";
import { SvmEngine } from "./svm";

export type Commitment = "processed" | "confirmed" | "finalized";
export const COMMITMENTS: readonly Commitment[] = ["processed", "confirmed", "finalized"];

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

export interface TokenBalanceJson {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: UiTokenAmount;
}

/** A landed transaction (successful, or failed with its fee charged). JSON-safe. */
export interface TransactionRecord {
  signature: string;
  signatures: string[];
  slot: number;
  blockTime: number;
  err: TransactionErrorJson | null;
  fee: number;
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalanceJson[];
  postTokenBalances: TokenBalanceJson[];
  logs: string[];
  unitsConsumed: number;
  innerInstructions: InnerInstructionsJson[];
  returnData: ReturnDataJson | null;
  version: "legacy" | 0;
  /** The message in the RPC's `json` encoding. */
  message: {
    accountKeys: string[];
    header: DecodedTransaction["header"];
    instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight: null }[];
    recentBlockhash: string;
    addressTableLookups?: DecodedTransaction["lookups"];
  };
  loadedAddresses: { writable: string[]; readonly: string[] };
  /** Every account key (static then loaded) and which are writable. */
  accountKeys: string[];
  writable: boolean[];
  /** Micro-lamports per compute unit, decimal. */
  unitPrice: string;
  /** The wire transaction, base64. */
  wire: string;
}

export interface SimulationResult {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: number;
  innerInstructions: InnerInstructionsJson[];
  returnData: ReturnDataJson | null;
  /** Post-simulation state of the requested addresses (null when absent). */
  accounts: (AccountState | null)[] | null;
}

export type SubmitOutcome =
  | { landed: true; record: TransactionRecord }
  /** Not landed and nothing recorded: a real leader drops such a transaction. */
  | { landed: false; err: TransactionErrorJson };

export interface LedgerSnapshot {
  format: "localnet-ledger/2";
  slot: number;
  genesisHash: string;
  blockhashes: [hash: string, slot: number][];
  slotTimes: [slot: number, unixTime: number][];
  /** The engine's accounts (LiteSVM: its whole state, gzipped, base64). */
  state: unknown;
  transactions: TransactionRecord[];
}

type Listener<A extends unknown[]> = (...args: A) => void;

interface Events {
  slot: [slot: number];
  /** A transaction landed (commitment processed). */
  transaction: [record: TransactionRecord];
  /** A landed transaction reached `confirmed` or `finalized`. */
  commitment: [level: Exclude<Commitment, "processed">, record: TransactionRecord];
  /** Accounts changed (by a transaction or a test method) in `slot`; null: any account may have changed (a restore). */
  accounts: [addresses: string[] | null, slot: number];
}

export class Ledger {
  readonly confirmAfterSlots: number;
  readonly finalizeAfterSlots: number;
  readonly blockhashValidBlocks: number;
  readonly mintDecimalOverrides: Map<string, number>;
  private readonly now: () => number;
  readonly engine: LedgerEngine;

  private slot_ = 0;
  private genesisHash_ = "";
  private blockhashes = new Map<string, number>();
  private slotHashes = new Map<number, string>();
  private slotTimes = new Map<number, number>();
  private records: TransactionRecord[] = [];
  private statuses = new Map<string, TransactionRecord>();
  private history = new Map<string, TransactionRecord[]>();
  private pendingConfirmed: TransactionRecord[] = [];
  private pendingFinalized: TransactionRecord[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private listeners: { [K in keyof Events]: Set<Listener<Events[K]>> } = {
    slot: new Set(),
    transaction: new Set(),
    commitment: new Set(),
    accounts: new Set(),
  };

  constructor(opts: LedgerOptions = {}, engine: LedgerEngine = new SvmEngine()) {
    this.engine = engine;
    this.confirmAfterSlots = opts.confirmAfterSlots ?? 1;
    this.finalizeAfterSlots = opts.finalizeAfterSlots ?? 32;
    this.blockhashValidBlocks = opts.blockhashValidBlocks ?? 150;
    this.mintDecimalOverrides = new Map(Object.entries(opts.mintDecimals ?? {}));
    this.now = opts.now ?? Date.now;
    this.genesisHash_ = bs58.encode(randomBytes(32));
    this.newBlockhash(0);
    // Wrapped SOL's mint exists on every cluster.
    if (!this.engine.getAccount(NATIVE_MINT)) this.createMint(NATIVE_MINT, 9);
  }

  // ------------------------------------------------------------ events

  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    (this.listeners[event] as Set<Listener<Events[K]>>).add(listener);
    return () => (this.listeners[event] as Set<Listener<Events[K]>>).delete(listener);
  }

  private emit<K extends keyof Events>(event: K, ...args: Events[K]): void {
    for (const l of this.listeners[event] as Set<Listener<Events[K]>>) {
      try {
        l(...args);
      } catch (e) {
        console.error(`[localnet] ${event} listener failed`, e);
      }
    }
  }

  // ------------------------------------------------------------ clock

  get slot(): number {
    return this.slot_;
  }
  /** Block height: one block per slot. */
  get blockHeight(): number {
    return this.slot_;
  }
  get genesisHash(): string {
    return this.genesisHash_;
  }
  get transactionCount(): number {
    return this.records.length;
  }

  private newBlockhash(slot: number): void {
    const hash = bs58.encode(randomBytes(32));
    this.blockhashes.set(hash, slot);
    this.slotHashes.set(slot, hash);
    this.slotTimes.set(slot, Math.floor(this.now() / 1000));
  }

  /** Produces the next `n` slots (each with its blockhash). */
  advanceSlots(n = 1): void {
    for (let i = 0; i < n; i++) {
      this.slot_ += 1;
      this.newBlockhash(this.slot_);
      this.prune();
      this.emit("slot", this.slot_);
      this.emitCommitments();
    }
  }

  private prune(): void {
    const keepFrom = this.slot_ - 2 * this.blockhashValidBlocks - 10;
    const old = this.slotHashes.get(keepFrom);
    if (old !== undefined) {
      this.blockhashes.delete(old);
      this.slotHashes.delete(keepFrom);
      this.slotTimes.delete(keepFrom);
    }
  }

  private emitCommitments(): void {
    while (this.pendingConfirmed.length && this.pendingConfirmed[0]!.slot + this.confirmAfterSlots <= this.slot_) {
      this.emit("commitment", "confirmed", this.pendingConfirmed.shift()!);
    }
    while (this.pendingFinalized.length && this.pendingFinalized[0]!.slot + this.finalizeAfterSlots <= this.slot_) {
      this.emit("commitment", "finalized", this.pendingFinalized.shift()!);
    }
  }

  /** The newest blockhash (of `slot`, default the current one) and the last block height it is valid at. */
  latestBlockhash(atSlot = this.slot_): { blockhash: string; lastValidBlockHeight: number; slot: number } {
    let s = Math.max(0, Math.min(atSlot, this.slot_));
    while (!this.slotHashes.has(s) && s < this.slot_) s += 1;
    return { blockhash: this.slotHashes.get(s)!, lastValidBlockHeight: s + this.blockhashValidBlocks, slot: s };
  }

  /** Last valid block height of a known blockhash, or null. */
  blockhashLastValidHeight(blockhash: string): number | null {
    const s = this.blockhashes.get(blockhash);
    return s === undefined ? null : s + this.blockhashValidBlocks;
  }

  /** Produces slots until `blockhash` is past its last valid block height (nothing for an unknown or already expired one). */
  expireBlockhash(blockhash: string): void {
    const last = this.blockhashLastValidHeight(blockhash);
    if (last !== null && this.blockHeight <= last) this.advanceSlots(last + 1 - this.blockHeight);
  }

  isBlockhashValid(blockhash: string): boolean {
    const last = this.blockhashLastValidHeight(blockhash);
    return last !== null && this.blockHeight <= last;
  }

  unixTimeOf(slot: number): number {
    return this.slotTimes.get(slot) ?? Math.floor(this.now() / 1000);
  }

  /** The commitment a landed transaction of `slot` has reached. */
  commitmentOf(slot: number): Commitment {
    const d = this.slot_ - slot;
    if (d >= this.finalizeAfterSlots) return "finalized";
    if (d >= this.confirmAfterSlots) return "confirmed";
    return "processed";
  }

  reached(slot: number, commitment: Commitment): boolean {
    return COMMITMENTS.indexOf(this.commitmentOf(slot)) >= COMMITMENTS.indexOf(commitment);
  }

  // ------------------------------------------------------------ accounts

  /** A copy of an account, null when there is none. */
  getAccount(address: string): AccountState | null {
    return this.engine.getAccount(address);
  }

  /** Writes an account directly (genesis, tests). Zero lamports deletes it. */
  setAccount(address: string, account: AccountState | null): void {
    this.engine.setAccount(address, account);
    this.emit("accounts", [address], this.slot_);
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

  // ------------------------------------------------------------ test credits

  /**
   * Creates an SPL token mint (no mint authority, no supply) at `mint`, or
   * leaves an existing mint as it is. Returns its decimals.
   */
  createMint(mint: string, decimals = this.decimalsOf(mint)): number {
    const existing = this.engine.getAccount(mint);
    if (existing) {
      const m = existing.owner === TOKEN_PROGRAM_ID ? decodeMint(existing.data) : null;
      if (!m) throw new Error(`${mint} exists and is not an SPL token mint`);
      return m.decimals;
    }
    this.setAccount(mint, {
      lamports: this.rentExempt(MINT_SIZE),
      owner: TOKEN_PROGRAM_ID,
      data: encodeMint({ mintAuthority: null, supply: 0n, decimals, freezeAuthority: null }),
      executable: false,
    });
    return decimals;
  }

  /**
   * Credits `amount` tokens of `mint` to the associated token account of
   * `owner`, creating the mint (default decimals) and the token account
   * (165-byte layout, rent-exempt) when missing. Wrapped SOL is credited as
   * the token program keeps it: a native account whose lamports are its rent
   * plus its amount. Returns the token account.
   */
  mintTo(owner: string, mint: string, amount: bigint): string {
    if (amount < 0n) throw new RangeError("amount must not be negative");
    const ownerKey = new PublicKey(owner);
    const mintKey = new PublicKey(mint);
    const ata = associatedTokenAddress(ownerKey.toBase58(), mintKey.toBase58());
    const native = mint === NATIVE_MINT;
    const rent = this.rentExempt(TOKEN_ACCOUNT_SIZE);
    const existing = this.engine.getAccount(ata);
    const info = existing ? readTokenAccount(existing) : null;
    if (existing && (!info || info.mint !== mint || info.owner !== owner)) throw new Error(`${ata} exists and is not ${owner}'s token account for ${mint}`);
    this.createMint(mint);
    if (!native && amount > 0n) {
      const m = this.engine.getAccount(mint)!;
      const data = decodeMint(m.data)!;
      this.engine.setAccount(mint, { ...m, data: encodeMint({ ...data, supply: data.supply + amount }) });
    }
    let account: AccountState;
    if (existing && info) {
      const data = existing.data.slice();
      new DataView(data.buffer).setBigUint64(TOKEN_ACCOUNT_OFFSETS.amount, info.amount + amount, true);
      account = { ...existing, data, lamports: existing.lamports + (native ? amount : 0n) };
    } else {
      const data = encodeTokenAccount({ mint: mintKey.toBytes(), owner: ownerKey.toBytes(), amount });
      if (native) {
        // isNative: COption<u64> Some(rent-exempt reserve).
        const view = new DataView(data.buffer);
        view.setUint32(TOKEN_ACCOUNT_OFFSETS.isNative, 1, true);
        view.setBigUint64(TOKEN_ACCOUNT_OFFSETS.isNative + 4, rent, true);
      }
      account = { lamports: rent + (native ? amount : 0n), owner: TOKEN_PROGRAM_ID, data, executable: false };
    }
    this.engine.setAccount(ata, account);
    this.emit("accounts", [mint, ata], this.slot_);
    return ata;
  }

  // ------------------------------------------------------------ transactions

  verifySignatures(tx: DecodedTransaction): boolean {
    return this.engine.verifySignatures(tx);
  }

  hasSignature(signature: string): boolean {
    return this.statuses.has(signature);
  }

  /** The ledger's own checks (status cache, blockhash window, lookup tables); the engine checks the rest. */
  private precheck(tx: DecodedTransaction, blockhash: string): { ok: true; accounts: ResolvedAccounts } | { ok: false; err: TransactionErrorJson } {
    if (this.statuses.has(tx.signature)) return { ok: false, err: "AlreadyProcessed" };
    if (!this.isBlockhashValid(blockhash)) return { ok: false, err: "BlockhashNotFound" };
    const resolved = resolveAccounts(tx, (a) => this.engine.getAccount(a));
    if (!resolved.ok) return resolved;
    return { ok: true, accounts: resolved.value };
  }

  /**
   * Runs a transaction without changing anything. `replaceRecentBlockhash`
   * runs it as if it carried the latest blockhash.
   */
  async simulate(
    tx: DecodedTransaction,
    opts: { verifySignatures?: boolean; replaceRecentBlockhash?: boolean; accounts?: string[] } = {},
  ): Promise<SimulationResult> {
    const blockhash = opts.replaceRecentBlockhash ? this.latestBlockhash().blockhash : tx.recentBlockhash;
    const pre = this.precheck(tx, blockhash);
    if (!pre.ok) return { err: pre.err, logs: [], unitsConsumed: 0, innerInstructions: [], returnData: null, accounts: null };
    const slot = this.slot_;
    return this.engine.simulate(tx, pre.accounts, { slot, unixTime: this.unixTimeOf(slot), sigverify: opts.verifySignatures ?? false, addresses: opts.accounts });
  }

  /**
   * Processes a transaction for real, after every transaction submitted
   * before it. Signatures are always verified here: a transaction sent with
   * skipPreflight and a bad signature is dropped, as a leader would.
   */
  submit(tx: DecodedTransaction): Promise<SubmitOutcome> {
    const job = this.queue.then(() => this.process(tx));
    this.queue = job.catch(() => undefined);
    return job;
  }

  /** Resolves when every transaction submitted so far has been processed. */
  async idle(): Promise<void> {
    await this.queue;
  }

  /** Keys whose token balances the record shows: every key but the programs the transaction invokes and the builtins. */
  private tokenBalanceKeys(tx: DecodedTransaction, keys: readonly string[]): boolean[] {
    const invoked = new Set(tx.instructions.map((ix) => ix.programIdIndex));
    return keys.map((k, i) => !invoked.has(i) && !BUILTIN_PROGRAM_IDS.has(k) && !k.startsWith("Sysvar"));
  }

  private async process(tx: DecodedTransaction): Promise<SubmitOutcome> {
    const pre = this.precheck(tx, tx.recentBlockhash);
    if (!pre.ok) return { landed: false, err: pre.err };
    const accounts = pre.accounts;
    const slot = this.slot_;
    const keys = accounts.keys;
    const tokenKeys = this.tokenBalanceKeys(tx, keys);
    const before = this.balances(keys, tokenKeys);
    const result = await this.engine.execute(tx, accounts, { slot, unixTime: this.unixTimeOf(slot) });
    if (!result.landed) return { landed: false, err: result.err };
    const after = this.balances(keys, tokenKeys);
    const record: TransactionRecord = {
      signature: tx.signature,
      signatures: tx.signatureStrings,
      slot,
      blockTime: this.unixTimeOf(slot),
      err: result.err,
      fee: Number(result.fee),
      preBalances: before.lamports,
      postBalances: after.lamports,
      preTokenBalances: before.tokens,
      postTokenBalances: after.tokens,
      logs: result.logs,
      unitsConsumed: result.unitsConsumed,
      innerInstructions: result.innerInstructions,
      returnData: result.returnData,
      version: tx.version,
      message: {
        accountKeys: tx.staticKeys,
        header: tx.header,
        instructions: tx.instructions.map((ix) => ({
          programIdIndex: ix.programIdIndex,
          accounts: ix.accountIndexes,
          data: bs58.encode(ix.data),
          stackHeight: null,
        })),
        recentBlockhash: tx.recentBlockhash,
        ...(tx.version === 0 ? { addressTableLookups: tx.lookups } : {}),
      },
      loadedAddresses: accounts.loaded,
      accountKeys: keys,
      writable: accounts.writable,
      unitPrice: tx.computeBudget.unitPrice.toString(),
      wire: Buffer.from(tx.wire).toString("base64"),
    };
    this.addRecord(record);
    this.emit("transaction", record);
    this.emit("accounts", result.changed, slot);
    this.emitCommitments();
    return { landed: true, record };
  }

  private addRecord(record: TransactionRecord): void {
    this.records.push(record);
    this.statuses.set(record.signature, record);
    for (const key of new Set(record.accountKeys)) {
      let list = this.history.get(key);
      if (!list) this.history.set(key, (list = []));
      list.push(record);
    }
    this.pendingConfirmed.push(record);
    this.pendingFinalized.push(record);
  }

  /** Lamports of every key, and the token balances of the keys that may be token accounts (programs' accounts are not read whole). */
  private balances(keys: readonly string[], mayBeToken: readonly boolean[]): { lamports: number[]; tokens: TokenBalanceJson[] } {
    const lamports: number[] = [];
    const out: TokenBalanceJson[] = [];
    keys.forEach((key, accountIndex) => {
      if (!mayBeToken[accountIndex]) {
        lamports.push(Number(this.engine.getBalance(key)));
        return;
      }
      const account = this.engine.getAccount(key);
      lamports.push(Number(account?.lamports ?? 0n));
      const info = readTokenAccount(account);
      if (!info) return;
      out.push({
        accountIndex,
        mint: info.mint,
        owner: info.owner,
        programId: TOKEN_PROGRAM_ID,
        uiTokenAmount: uiTokenAmount(info.amount, this.decimalsOf(info.mint)),
      });
    });
    return { lamports, tokens: out };
  }

  // ------------------------------------------------------------ history

  getTransaction(signature: string): TransactionRecord | null {
    return this.statuses.get(signature) ?? null;
  }

  /**
   * Signatures of landed transactions that touched `address`, newest first,
   * at `commitment` or better; `before`/`until` are exclusive bounds.
   */
  signaturesForAddress(
    address: string,
    opts: { before?: string; until?: string; limit?: number; commitment?: Commitment } = {},
  ): TransactionRecord[] {
    const list = this.history.get(address) ?? [];
    const limit = opts.limit ?? 1000;
    const commitment = opts.commitment ?? "finalized";
    let i = list.length - 1;
    if (opts.before !== undefined) {
      const at = list.findIndex((r) => r.signature === opts.before);
      if (at < 0) return [];
      i = at - 1;
    }
    const out: TransactionRecord[] = [];
    for (; i >= 0 && out.length < limit; i--) {
      const r = list[i]!;
      if (r.signature === opts.until) break;
      if (!this.reached(r.slot, commitment)) continue;
      out.push(r);
    }
    return out;
  }

  /**
   * Per slot of the last 150: the lowest compute-unit price (micro-lamports)
   * among landed transactions that write one of `writable` (any transaction
   * when empty), the highest over the accounts; 0 for none.
   */
  recentPrioritizationFees(writable: readonly string[]): { slot: number; prioritizationFee: number }[] {
    const from = Math.max(0, this.slot_ - 149);
    const bySlot = new Map<number, Map<string, bigint>>();
    for (let i = this.records.length - 1; i >= 0; i--) {
      const r = this.records[i]!;
      if (r.slot < from) break;
      const price = BigInt(r.unitPrice);
      const targets = writable.length ? writable.filter((a) => r.accountKeys.some((k, j) => k === a && r.writable[j])) : ["*"];
      let m = bySlot.get(r.slot);
      if (!m) bySlot.set(r.slot, (m = new Map()));
      for (const t of targets) {
        const prev = m.get(t);
        if (prev === undefined || price < prev) m.set(t, price);
      }
    }
    const out: { slot: number; prioritizationFee: number }[] = [];
    for (let s = from; s <= this.slot_; s++) {
      let fee = 0n;
      for (const v of bySlot.get(s)?.values() ?? []) if (v > fee) fee = v;
      out.push({ slot: s, prioritizationFee: Number(fee) });
    }
    return out;
  }

  // ------------------------------------------------------------ snapshot

  snapshot(): LedgerSnapshot {
    return {
      format: "localnet-ledger/2",
      slot: this.slot_,
      genesisHash: this.genesisHash_,
      blockhashes: [...this.blockhashes.entries()],
      slotTimes: [...this.slotTimes.entries()],
      state: this.engine.snapshotState(),
      transactions: structuredClone(this.records),
    };
  }

  /** Replaces the whole state with a snapshot (of a ledger on the same kind of engine). */
  restore(snapshot: LedgerSnapshot): void {
    if (snapshot.format !== "localnet-ledger/2") throw new Error(`unknown ledger snapshot format ${String(snapshot.format)}`);
    this.engine.restoreState(snapshot.state);
    this.slot_ = snapshot.slot;
    this.genesisHash_ = snapshot.genesisHash;
    this.blockhashes = new Map(snapshot.blockhashes);
    this.slotHashes = new Map(snapshot.blockhashes.map(([h, s]) => [s, h]));
    this.slotTimes = new Map(snapshot.slotTimes);
    this.records = [];
    this.statuses = new Map();
    this.history = new Map();
    this.pendingConfirmed = [];
    this.pendingFinalized = [];
    for (const r of structuredClone(snapshot.transactions)) this.addRecord(r);
    this.pendingConfirmed = this.pendingConfirmed.filter((r) => r.slot + this.confirmAfterSlots > this.slot_);
    this.pendingFinalized = this.pendingFinalized.filter((r) => r.slot + this.finalizeAfterSlots > this.slot_);
    this.emit("accounts", null, this.slot_);
  }
}
