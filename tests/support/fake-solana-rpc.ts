/**
 * A scripted SolanaRpc for unit tests (landing engine, SolanaChain): block
 * height advancing per call, blockhashes with a short life, sends that land or
 * drop by rule, signature statuses, account reads, outages. Test-only.
 */
import {
  PublicKey,
  VersionedTransaction,
  type AccountInfo,
  type GetProgramAccountsConfig,
  type GetProgramAccountsResponse,
  type RecentPrioritizationFees,
  type SignatureStatus,
  type SimulatedTransactionResponse,
  type TransactionError,
} from "@solana/web3.js";
import { Buffer } from "buffer";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import type { SolanaRpc, NodeHealth } from "../../src-server/adapters/chain-solana/rpc";

export interface SentTx {
  signature: string;
  blockhash: string;
  tx: VersionedTransaction;
  /** How many times these bytes were sent so far (1 = first send). */
  count: number;
}

export class FakeRpc implements SolanaRpc {
  height = 1000;
  /** Block height gained per getBlockHeight call. */
  heightStep = 1;
  /** A blockhash's lastValidBlockHeight = the height it was handed out at + this. */
  blockhashLife = 150;
  blockhashCount = 0;
  simulations: VersionedTransaction[] = [];
  simulation: { err: TransactionError | string | null; logs: string[]; unitsConsumed: number } = { err: null, logs: [], unitsConsumed: 50_000 };
  prioritizationFees: number[] = [];
  prioritizationAccounts: string[][] = [];
  sends: SentTx[] = [];
  /** Decides on each send whether the transaction lands now (default: at the first send); `{ err }` lands it failed. */
  onSend: (s: SentTx) => boolean | { err: TransactionError } = () => true;
  /** The log messages a transaction that lands without an error gets (the program's events). */
  landedLogs: (tx: VersionedTransaction) => string[] = () => [];
  /** Status of landed transactions; confirmationStatus "confirmed". */
  readonly statuses = new Map<string, SignatureStatus>();
  landings = 0;
  /** Every call throws while set (an RPC outage). */
  down: string | null = null;
  /** Per method: throw this many times before answering. */
  failures = new Map<string, number>();
  accounts = new Map<string, AccountInfo<Buffer>>();
  /** What simulateTransaction reports of an account asked for with `accounts` (default: `accounts`). */
  simulatedAccounts = new Map<string, AccountInfo<Buffer>>();
  programAccounts: GetProgramAccountsResponse = [];
  balance = 5_000_000_000;
  health: NodeHealth = { ok: true };
  transactions = new Map<
    string,
    {
      slot: number;
      blockTime?: number | null;
      meta: {
        err: unknown;
        logMessages?: string[] | null;
        innerInstructions?: unknown[];
        loadedAddresses?: { writable: PublicKey[]; readonly: PublicKey[] };
      } | null;
      transaction?: unknown;
    }
  >();
  calls: string[] = [];

  private gate(method: string): void {
    this.calls.push(method);
    if (this.down !== null) throw new Error(this.down);
    const n = this.failures.get(method) ?? 0;
    if (n > 0) {
      this.failures.set(method, n - 1);
      throw new Error(`${method}: injected failure`);
    }
  }

  async getVersion() {
    this.gate("getVersion");
    return { "solana-core": "2.1.0" };
  }
  async getSlot() {
    this.gate("getSlot");
    return this.height;
  }
  async getBlockHeight() {
    this.gate("getBlockHeight");
    this.height += this.heightStep;
    return this.height;
  }
  async getHealth() {
    this.gate("getHealth");
    return this.health;
  }
  async getBalance() {
    this.gate("getBalance");
    return this.balance;
  }
  async getAccountInfo(key: PublicKey) {
    this.gate("getAccountInfo");
    return this.accounts.get(key.toBase58()) ?? null;
  }
  async getProgramAccounts(_programId: PublicKey, _config: GetProgramAccountsConfig): Promise<GetProgramAccountsResponse> {
    this.gate("getProgramAccounts");
    return this.programAccounts;
  }
  async getMinimumBalanceForRentExemption(size: number) {
    this.gate("getMinimumBalanceForRentExemption");
    return (128 + size) * 6960;
  }
  async getRecentPrioritizationFees(config?: { lockedWritableAccounts?: PublicKey[] }): Promise<RecentPrioritizationFees[]> {
    this.gate("getRecentPrioritizationFees");
    this.prioritizationAccounts.push((config?.lockedWritableAccounts ?? []).map((k) => k.toBase58()));
    return this.prioritizationFees.map((f, i) => ({ slot: i, prioritizationFee: f }));
  }
  async simulateTransaction(tx: VersionedTransaction, config?: { accounts?: { addresses: string[] } }) {
    this.gate("simulateTransaction");
    this.simulations.push(tx);
    const value: SimulatedTransactionResponse = { err: this.simulation.err, logs: this.simulation.logs, unitsConsumed: this.simulation.unitsConsumed };
    // Simulated account states: `simulatedAccounts`, else the account as it is.
    if (config?.accounts) {
      value.accounts = config.accounts.addresses.map((a) => {
        const info = this.simulatedAccounts.get(a) ?? this.accounts.get(a) ?? null;
        return info
          ? { executable: false, owner: info.owner.toBase58(), lamports: info.lamports, data: [Buffer.from(info.data).toString("base64"), "base64"] }
          : null;
      });
    }
    return { context: { slot: this.height }, value };
  }
  async getLatestBlockhash() {
    this.gate("getLatestBlockhash");
    this.blockhashCount++;
    const bytes = new Uint8Array(32);
    new DataView(bytes.buffer).setUint32(0, this.blockhashCount);
    bytes[31] = 7;
    return { blockhash: encodeBase58(bytes), lastValidBlockHeight: this.height + this.blockhashLife };
  }
  async sendRawTransaction(raw: Buffer | Uint8Array) {
    this.gate("sendRawTransaction");
    const tx = VersionedTransaction.deserialize(raw);
    const signature = encodeBase58(tx.signatures[0]!);
    const count = this.sends.filter((s) => s.signature === signature).length + 1;
    const sent: SentTx = { signature, blockhash: tx.message.recentBlockhash, tx, count };
    this.sends.push(sent);
    if (!this.statuses.has(signature)) {
      const lands = this.onSend(sent);
      if (lands) {
        this.landings++;
        const err = typeof lands === "object" ? lands.err : null;
        this.statuses.set(signature, { slot: this.height, confirmations: 1, err, confirmationStatus: "confirmed" });
        this.transactions.set(signature, {
          slot: this.height,
          meta: {
            err,
            logMessages: err ? ["Program log: Error: NullifierSpent"] : this.landedLogs(tx),
            innerInstructions: [],
            loadedAddresses: this.loadedAddresses(tx),
          },
          transaction: { message: tx.message, signatures: [signature] },
        });
      }
    }
    return signature;
  }
  /** meta.loadedAddresses of a v0 transaction, from the lookup tables in `accounts` (what a reader needs to name its accounts). */
  private loadedAddresses(tx: VersionedTransaction): { writable: PublicKey[]; readonly: PublicKey[] } {
    const out = { writable: [] as PublicKey[], readonly: [] as PublicKey[] };
    for (const l of tx.message.addressTableLookups) {
      const data = this.accounts.get(l.accountKey.toBase58())?.data;
      if (!data) continue;
      const key = (i: number) => new PublicKey(data.subarray(56 + 32 * i, 88 + 32 * i));
      out.writable.push(...l.writableIndexes.map(key));
      out.readonly.push(...l.readonlyIndexes.map(key));
    }
    return out;
  }
  async getSignatureStatuses(signatures: string[]) {
    this.gate("getSignatureStatuses");
    return { context: { slot: this.height }, value: signatures.map((s) => this.statuses.get(s) ?? null) };
  }
  async getSignaturesForAddress() {
    this.gate("getSignaturesForAddress");
    return [];
  }
  async getTransaction(signature: string) {
    this.gate("getTransaction");
    return (this.transactions.get(signature) ?? null) as never;
  }
}

/** An account as web3.js returns it. */
export function accountInfo(data: Uint8Array, owner: string, opts: { executable?: boolean; lamports?: number } = {}): AccountInfo<Buffer> {
  return { data: Buffer.from(data), owner: new PublicKey(owner), executable: opts.executable ?? false, lamports: opts.lamports ?? 1_000_000, rentEpoch: 0 };
}
