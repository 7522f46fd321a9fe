/**
 * The local validator's ledger, in memory: accounts, slots with one blockhash
 * each (block height = slot), the signature status cache, transaction history
 * per address, and the transaction pipeline (signature verification,
 * blockhash window, duplicates, fee payer, execution through the registered
 * programs, fees charged also on failure). Transactions execute strictly one
 * at a time. `snapshot()`/`restore()` give tests a JSON copy of everything.
 */
import { randomBytes } from "node:crypto";
import bs58 from "bs58";
import { associatedTokenAddress, encodeTokenAccount, NATIVE_MINT, TOKEN_ACCOUNT_OFFSETS, TOKEN_ACCOUNT_SIZE, TOKEN_PROGRAM_ID } from "../../src-shared/pool-program";
import { PublicKey } from "@solana/web3.js";
import type { AccountState, Program } from "../runtime/types";
import { verifyEd25519Signature } from "./ed25519";
import type { TransactionErrorJson } from "./errors";
import { executeTransaction, rentExemptMinimum, type StagedView } from "./executor";
import { decodeMint, encodeMint, MINT_SIZE, mintDecimals, readTokenAccount, uiTokenAmount, type UiTokenAmount } from "./token";
import {
  BPF_LOADER_UPGRADEABLE_ID,
  BUILTIN_PROGRAM_IDS,
  NATIVE_LOADER_ID,
  resolveAccounts,
  SYSTEM_PROGRAM_ID,
  type DecodedTransaction,
  type ResolvedAccounts,
} from "./transaction";

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
  /** Post-simulation state of the requested addresses (null when absent). */
  accounts: (AccountState | null)[] | null;
}

export type SubmitOutcome =
  | { landed: true; record: TransactionRecord }
  /** Not landed and nothing recorded: a real leader drops such a transaction. */
  | { landed: false; err: TransactionErrorJson };

export interface LedgerSnapshot {
  format: "localnet-ledger/1";
  slot: number;
  genesisHash: string;
  blockhashes: [hash: string, slot: number][];
  slotTimes: [slot: number, unixTime: number][];
  accounts: [address: string, account: { lamports: string; owner: string; data: string; executable: boolean }][];
  transactions: TransactionRecord[];
}

type Listener<A extends unknown[]> = (...args: A) => void;

interface Events {
  slot: [slot: number];
  /** A transaction landed (commitment processed). */
  transaction: [record: TransactionRecord];
  /** A landed transaction reached `confirmed` or `finalized`. */
  commitment: [level: Exclude<Commitment, "processed">, record: TransactionRecord];
  /** Accounts changed (by a transaction or a test method) in `slot`. */
  accounts: [addresses: string[], slot: number];
}

const PROGRAM_ACCOUNT_LAMPORTS = rentExemptMinimum(36);

export class Ledger {
  readonly confirmAfterSlots: number;
  readonly finalizeAfterSlots: number;
  readonly blockhashValidBlocks: number;
  readonly mintDecimalOverrides: Map<string, number>;
  private readonly now: () => number;

  private accounts = new Map<string, AccountState>();
  private programs = new Map<string, Program>();
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

  constructor(opts: LedgerOptions = {}) {
    this.confirmAfterSlots = opts.confirmAfterSlots ?? 1;
    this.finalizeAfterSlots = opts.finalizeAfterSlots ?? 32;
    this.blockhashValidBlocks = opts.blockhashValidBlocks ?? 150;
    this.mintDecimalOverrides = new Map(Object.entries(opts.mintDecimals ?? {}));
    this.now = opts.now ?? Date.now;
    this.genesisHash_ = bs58.encode(randomBytes(32));
    this.newBlockhash(0);
    // Wrapped SOL's mint exists on every cluster.
    this.accounts.set(NATIVE_MINT, {
      lamports: rentExemptMinimum(MINT_SIZE),
      owner: TOKEN_PROGRAM_ID,
      data: encodeMint({ mintAuthority: null, supply: 0n, decimals: 9, freezeAuthority: null }),
      executable: false,
    });
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

  getAccount(address: string): AccountState | null {
    const a = this.accounts.get(address);
    return a ? { lamports: a.lamports, owner: a.owner, data: a.data.slice(), executable: a.executable } : null;
  }

  /** Writes an account directly (genesis, tests). Zero lamports deletes it. */
  setAccount(address: string, account: AccountState | null): void {
    if (!account || account.lamports === 0n) this.accounts.delete(address);
    else this.accounts.set(address, { lamports: account.lamports, owner: account.owner, data: account.data.slice(), executable: account.executable });
    this.emit("accounts", [address], this.slot_);
  }

  /** Every account, for getProgramAccounts (no copies: callers must not mutate). */
  *allAccounts(): IterableIterator<[string, AccountState]> {
    yield* this.accounts.entries();
  }

  getBalance(address: string): bigint {
    return this.accounts.get(address)?.lamports ?? 0n;
  }

  rentExempt(size: number): bigint {
    return rentExemptMinimum(size);
  }

  decimalsOf(mint: string): number {
    return mintDecimals(mint, (a) => this.accounts.get(a) ?? null, this.mintDecimalOverrides);
  }

  // ------------------------------------------------------------ programs

  registerProgram(program: Program): void {
    this.programs.set(program.id, program);
    this.ensureExecutable(program.id);
  }

  /** An executable account at `programId` (a program the validator only knows by id). */
  ensureExecutable(programId: string): void {
    if (this.accounts.get(programId)?.executable) return;
    const builtin = BUILTIN_PROGRAM_IDS.has(programId);
    this.accounts.set(programId, {
      lamports: builtin ? 1n : PROGRAM_ACCOUNT_LAMPORTS,
      owner: builtin ? NATIVE_LOADER_ID : BPF_LOADER_UPGRADEABLE_ID,
      data: new Uint8Array(builtin ? 0 : 36),
      executable: true,
    });
  }

  get programIds(): string[] {
    return [...this.programs.keys()];
  }

  // ------------------------------------------------------------ test credits

  /**
   * Credits `amount` tokens of `mint` to the associated token account of
   * `owner`, creating the mint (default decimals) and the token account
   * (165-byte layout, rent-exempt) when missing. Returns the token account.
   */
  mintTo(owner: string, mint: string, amount: bigint): string {
    if (amount < 0n) throw new RangeError("amount must not be negative");
    const ownerKey = new PublicKey(owner);
    const mintKey = new PublicKey(mint);
    const ata = associatedTokenAddress(ownerKey.toBase58(), mintKey.toBase58());
    const changed: string[] = [mint, ata];
    const mintAccount = this.accounts.get(mint);
    let mintData = mintAccount ? decodeMint(mintAccount.data) : null;
    if (mintAccount && (mintAccount.owner !== TOKEN_PROGRAM_ID || !mintData)) throw new Error(`${mint} exists and is not an SPL token mint`);
    mintData ??= { mintAuthority: null, supply: 0n, decimals: this.decimalsOf(mint), freezeAuthority: null };
    mintData.supply += amount;
    this.accounts.set(mint, {
      lamports: mintAccount?.lamports ?? rentExemptMinimum(MINT_SIZE),
      owner: TOKEN_PROGRAM_ID,
      data: encodeMint(mintData),
      executable: false,
    });
    const existing = this.accounts.get(ata);
    if (existing) {
      const info = readTokenAccount(existing);
      if (!info || info.mint !== mint || info.owner !== owner) throw new Error(`${ata} exists and is not ${owner}'s token account for ${mint}`);
      const data = existing.data.slice();
      new DataView(data.buffer).setBigUint64(TOKEN_ACCOUNT_OFFSETS.amount, info.amount + amount, true);
      this.accounts.set(ata, { ...existing, data });
    } else {
      this.accounts.set(ata, {
        lamports: rentExemptMinimum(TOKEN_ACCOUNT_SIZE),
        owner: TOKEN_PROGRAM_ID,
        data: encodeTokenAccount({ mint: mintKey.toBytes(), owner: ownerKey.toBytes(), amount }),
        executable: false,
      });
    }
    this.emit("accounts", changed, this.slot_);
    return ata;
  }

  // ------------------------------------------------------------ transactions

  verifySignatures(tx: DecodedTransaction): boolean {
    for (let i = 0; i < tx.signatures.length; i++) {
      const key = new PublicKey(tx.staticKeys[i]!).toBytes();
      if (!verifyEd25519Signature(tx.messageBytes, tx.signatures[i]!, key)) return false;
    }
    return true;
  }

  hasSignature(signature: string): boolean {
    return this.statuses.has(signature);
  }

  /** Checks a real node makes before a transaction can land; failing any, nothing is charged. */
  private precheck(
    tx: DecodedTransaction,
    opts: { verifySignatures: boolean; checkStatusCache: boolean; blockhash: string },
  ): { ok: true; accounts: ResolvedAccounts } | { ok: false; err: TransactionErrorJson } {
    if (opts.verifySignatures && !this.verifySignatures(tx)) return { ok: false, err: "SignatureFailure" };
    if (tx.computeBudget.error) return { ok: false, err: tx.computeBudget.error };
    if (opts.checkStatusCache && this.statuses.has(tx.signature)) return { ok: false, err: "AlreadyProcessed" };
    if (!this.isBlockhashValid(opts.blockhash)) return { ok: false, err: "BlockhashNotFound" };
    const resolved = resolveAccounts(tx, (a) => this.accounts.get(a) ?? null);
    if (!resolved.ok) return resolved;
    const payer = this.accounts.get(tx.staticKeys[0]!);
    if (!payer || payer.lamports === 0n) return { ok: false, err: "AccountNotFound" };
    if (payer.owner !== SYSTEM_PROGRAM_ID || payer.executable) return { ok: false, err: "InvalidAccountForFee" };
    if (payer.lamports < tx.fee) return { ok: false, err: "InsufficientFundsForFee" };
    const min = rentExemptMinimum(payer.data.length);
    const after = payer.lamports - tx.fee;
    if (payer.lamports >= min && after > 0n && after < min) return { ok: false, err: { InsufficientFundsForRent: { account_index: 0 } } };
    return { ok: true, accounts: resolved.value };
  }

  /** The committed state with the fee already taken from the payer. */
  private feeCharged(payer: string, fee: bigint): (address: string) => AccountState | null {
    return (address) => {
      const a = this.accounts.get(address) ?? null;
      if (address !== payer || !a) return a;
      return { ...a, lamports: a.lamports - fee };
    };
  }

  private async run(tx: DecodedTransaction, accounts: ResolvedAccounts, slot: number) {
    const base = this.feeCharged(accounts.keys[0]!, tx.fee);
    const result = await executeTransaction({
      tx,
      accounts,
      slot,
      unixTime: this.unixTimeOf(slot),
      base,
      programs: this.programs,
      isExecutable: (a) => this.accounts.get(a)?.executable === true,
    });
    if (result.err === null) {
      const rentErr = this.rentCheck(result.stage, accounts, base);
      if (rentErr) return { ...result, err: rentErr };
    }
    return result;
  }

  /** An account left with lamports below its rent-exempt minimum fails the transaction (unless it was already rent-paying and did not grow). */
  private rentCheck(stage: StagedView, accounts: ResolvedAccounts, base: (a: string) => AccountState | null): TransactionErrorJson | null {
    for (const [address, after] of stage.writes) {
      if (!after || after.lamports === 0n) continue;
      const min = rentExemptMinimum(after.data.length);
      if (after.lamports >= min) continue;
      const before = base(address);
      const wasRentPaying = before !== null && before.lamports > 0n && before.lamports < rentExemptMinimum(before.data.length);
      if (wasRentPaying && before.data.length === after.data.length && after.lamports <= before.lamports) continue;
      return { InsufficientFundsForRent: { account_index: accounts.keys.indexOf(address) } };
    }
    return null;
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
    const pre = this.precheck(tx, { verifySignatures: opts.verifySignatures ?? false, checkStatusCache: true, blockhash });
    if (!pre.ok) return { err: pre.err, logs: [], unitsConsumed: 0, accounts: null };
    const result = await this.run(tx, pre.accounts, this.slot_);
    const accounts =
      opts.accounts?.map((address) => {
        if (result.err === null) return result.stage.get(address);
        return this.feeCharged(pre.accounts.keys[0]!, tx.fee)(address);
      }) ?? null;
    return { err: result.err, logs: result.logs, unitsConsumed: result.unitsConsumed, accounts };
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

  private async process(tx: DecodedTransaction): Promise<SubmitOutcome> {
    const pre = this.precheck(tx, { verifySignatures: true, checkStatusCache: true, blockhash: tx.recentBlockhash });
    if (!pre.ok) return { landed: false, err: pre.err };
    const accounts = pre.accounts;
    const slot = this.slot_;
    const keys = accounts.keys;
    const preBalances = keys.map((k) => Number(this.accounts.get(k)?.lamports ?? 0n));
    const preTokenBalances = this.tokenBalances(keys);
    const result = await this.run(tx, accounts, slot);
    // Between the start and here nothing else ran (one transaction at a time), but a snapshot may have been restored.
    if (this.statuses.has(tx.signature)) return { landed: false, err: "AlreadyProcessed" };
    const payer = keys[0]!;
    const changed = new Set<string>([payer]);
    const payerAccount = this.accounts.get(payer)!;
    this.putAccount(payer, { ...payerAccount, lamports: payerAccount.lamports - tx.fee });
    if (result.err === null) {
      for (const [address, account] of result.stage.writes) {
        this.putAccount(address, account);
        changed.add(address);
      }
    }
    const record: TransactionRecord = {
      signature: tx.signature,
      signatures: tx.signatureStrings,
      slot,
      blockTime: this.unixTimeOf(slot),
      err: result.err,
      fee: Number(tx.fee),
      preBalances,
      postBalances: keys.map((k) => Number(this.accounts.get(k)?.lamports ?? 0n)),
      preTokenBalances,
      postTokenBalances: this.tokenBalances(keys),
      logs: result.logs,
      unitsConsumed: result.unitsConsumed,
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
    this.emit("accounts", [...changed], slot);
    this.emitCommitments();
    return { landed: true, record };
  }

  private putAccount(address: string, account: AccountState | null): void {
    if (!account || account.lamports === 0n) this.accounts.delete(address);
    else this.accounts.set(address, account);
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

  private tokenBalances(keys: readonly string[]): TokenBalanceJson[] {
    const out: TokenBalanceJson[] = [];
    keys.forEach((key, accountIndex) => {
      const info = readTokenAccount(this.accounts.get(key) ?? null);
      if (!info) return;
      out.push({
        accountIndex,
        mint: info.mint,
        owner: info.owner,
        programId: TOKEN_PROGRAM_ID,
        uiTokenAmount: uiTokenAmount(info.amount, this.decimalsOf(info.mint)),
      });
    });
    return out;
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
      format: "localnet-ledger/1",
      slot: this.slot_,
      genesisHash: this.genesisHash_,
      blockhashes: [...this.blockhashes.entries()],
      slotTimes: [...this.slotTimes.entries()],
      accounts: [...this.accounts.entries()].map(([address, a]) => [
        address,
        { lamports: a.lamports.toString(), owner: a.owner, data: Buffer.from(a.data).toString("base64"), executable: a.executable },
      ]),
      transactions: structuredClone(this.records),
    };
  }

  /** Replaces the whole state with a snapshot (registered programs stay). */
  restore(snapshot: LedgerSnapshot): void {
    if (snapshot.format !== "localnet-ledger/1") throw new Error(`unknown ledger snapshot format ${String(snapshot.format)}`);
    this.slot_ = snapshot.slot;
    this.genesisHash_ = snapshot.genesisHash;
    this.blockhashes = new Map(snapshot.blockhashes);
    this.slotHashes = new Map(snapshot.blockhashes.map(([h, s]) => [s, h]));
    this.slotTimes = new Map(snapshot.slotTimes);
    this.accounts = new Map(
      snapshot.accounts.map(([address, a]) => [
        address,
        { lamports: BigInt(a.lamports), owner: a.owner, data: new Uint8Array(Buffer.from(a.data, "base64")), executable: a.executable },
      ]),
    );
    for (const id of this.programs.keys()) this.ensureExecutable(id);
    this.records = [];
    this.statuses = new Map();
    this.history = new Map();
    this.pendingConfirmed = [];
    this.pendingFinalized = [];
    for (const r of structuredClone(snapshot.transactions)) this.addRecord(r);
    this.pendingConfirmed = this.pendingConfirmed.filter((r) => r.slot + this.confirmAfterSlots > this.slot_);
    this.pendingFinalized = this.pendingFinalized.filter((r) => r.slot + this.finalizeAfterSlots > this.slot_);
    this.emit("accounts", [...this.accounts.keys()], this.slot_);
  }
}
