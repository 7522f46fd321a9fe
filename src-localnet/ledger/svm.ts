/**
 * The local validator's runtime: npm `litesvm` (the Solana SVM as a native
 * module). It holds every account and executes every transaction with the
 * real runtime: the BPF loader, compute budget, rent, ownership and signature
 * rules, the System and Compute Budget builtins, the SPL Token, Associated
 * Token and Memo programs it ships, and the SBF programs added here (the pool
 * program and the cp-swap venue, `programs/…/*.so`).
 *
 * LiteSVM's own blockhash check and transaction history are off: the ledger
 * (ledger.ts) keeps the slot/blockhash timeline (a blockhash is valid for 150
 * blocks, not only the latest one) and the status cache. Its clock sysvar
 * follows the ledger's slot and block time.
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { PublicKey } from "@solana/web3.js";
import bs58 from "bs58";
import {
  Account,
  Clock,
  FailedTransactionMetadata,
  InstructionErrorBorshIo,
  InstructionErrorCustom,
  LiteSvm,
  TransactionErrorDuplicateInstruction,
  TransactionErrorInstructionError,
  TransactionErrorInsufficientFundsForRent,
  TransactionErrorProgramExecutionTemporarilyRestricted,
  type InnerInstruction,
  type TransactionMetadata,
} from "litesvm/dist/internal.js";
import { verifyEd25519Native as verifyEd25519Signature } from "../../src-shared/node/ed25519-native";
import type { AccountState, EngineExecution, EngineSimulation, ExecutionContext, ExecutionReport, InnerInstructionsJson, LedgerEngine } from "./engine";
import type { InstructionErrorJson, TransactionErrorJson } from "./errors";
import { SYSTEM_PROGRAM_ID, type DecodedTransaction, type ResolvedAccounts } from "./transaction";

/** An SBF program to load: its id and its ELF (bytes, or a path to the `.so`). */
export interface SbfProgram {
  id: string;
  so: Uint8Array | string;
}

/** LiteSVM's TransactionErrorFieldless, in its order (a const enum: names are not available at run time). */
const TRANSACTION_ERRORS = [
  "AccountInUse",
  "AccountLoadedTwice",
  "AccountNotFound",
  "ProgramAccountNotFound",
  "InsufficientFundsForFee",
  "InvalidAccountForFee",
  "AlreadyProcessed",
  "BlockhashNotFound",
  "CallChainTooDeep",
  "MissingSignatureForFee",
  "InvalidAccountIndex",
  "SignatureFailure",
  "InvalidProgramForExecution",
  "SanitizeFailure",
  "ClusterMaintenance",
  "AccountBorrowOutstanding",
  "WouldExceedMaxBlockCostLimit",
  "UnsupportedVersion",
  "InvalidWritableAccount",
  "WouldExceedMaxAccountCostLimit",
  "WouldExceedAccountDataBlockLimit",
  "TooManyAccountLocks",
  "AddressLookupTableNotFound",
  "InvalidAddressLookupTableOwner",
  "InvalidAddressLookupTableData",
  "InvalidAddressLookupTableIndex",
  "InvalidRentPayingAccount",
  "WouldExceedMaxVoteCostLimit",
  "WouldExceedAccountDataTotalLimit",
  "MaxLoadedAccountsDataSizeExceeded",
  "ResanitizationNeeded",
  "InvalidLoadedAccountsDataSizeLimit",
  "UnbalancedTransaction",
  "ProgramCacheHitMaxLimit",
  "CommitCancelled",
] as const;

/** LiteSVM's InstructionErrorFieldless, in its order. */
const INSTRUCTION_ERRORS = [
  "GenericError",
  "InvalidArgument",
  "InvalidInstructionData",
  "InvalidAccountData",
  "AccountDataTooSmall",
  "InsufficientFunds",
  "IncorrectProgramId",
  "MissingRequiredSignature",
  "AccountAlreadyInitialized",
  "UninitializedAccount",
  "UnbalancedInstruction",
  "ModifiedProgramId",
  "ExternalAccountLamportSpend",
  "ExternalAccountDataModified",
  "ReadonlyLamportChange",
  "ReadonlyDataModified",
  "DuplicateAccountIndex",
  "ExecutableModified",
  "RentEpochModified",
  "NotEnoughAccountKeys",
  "AccountDataSizeChanged",
  "AccountNotExecutable",
  "AccountBorrowFailed",
  "AccountBorrowOutstanding",
  "DuplicateAccountOutOfSync",
  "InvalidError",
  "ExecutableDataModified",
  "ExecutableLamportChange",
  "ExecutableAccountNotRentExempt",
  "UnsupportedProgramId",
  "CallDepth",
  "MissingAccount",
  "ReentrancyNotAllowed",
  "MaxSeedLengthExceeded",
  "InvalidSeeds",
  "InvalidRealloc",
  "ComputationalBudgetExceeded",
  "PrivilegeEscalation",
  "ProgramEnvironmentSetupFailure",
  "ProgramFailedToComplete",
  "ProgramFailedToCompile",
  "Immutable",
  "IncorrectAuthority",
  "AccountNotRentExempt",
  "InvalidAccountOwner",
  "ArithmeticOverflow",
  "UnsupportedSysvar",
  "IllegalOwner",
  "MaxAccountsDataAllocationsExceeded",
  "MaxAccountsExceeded",
  "MaxInstructionTraceLengthExceeded",
  "BuiltinProgramsMustConsumeComputeUnits",
  "BorshIoError",
] as const;

function instructionErrorJson(e: unknown): InstructionErrorJson {
  if (typeof e === "number") return INSTRUCTION_ERRORS[e] ?? `InstructionError${e}`;
  if (e instanceof InstructionErrorCustom) return { Custom: e.code };
  if (e instanceof InstructionErrorBorshIo) return "BorshIoError";
  return String(e);
}

/** A LiteSVM transaction error in the RPC's JSON (`"BlockhashNotFound"`, `{ InstructionError: [1, { Custom: 6002 }] }`). */
export function transactionErrorJson(e: ReturnType<FailedTransactionMetadata["err"]>): TransactionErrorJson {
  if (typeof e === "number") return TRANSACTION_ERRORS[e] ?? `TransactionError${e}`;
  if (e instanceof TransactionErrorInstructionError) return { InstructionError: [e.index, instructionErrorJson(e.err())] };
  if (e instanceof TransactionErrorDuplicateInstruction) return { DuplicateInstruction: e.index };
  if (e instanceof TransactionErrorInsufficientFundsForRent) return { InsufficientFundsForRent: { account_index: e.accountIndex } };
  if (e instanceof TransactionErrorProgramExecutionTemporarilyRestricted) return { ProgramExecutionTemporarilyRestricted: { account_index: e.accountIndex } };
  return String(e);
}

export type SvmExecution = ExecutionReport;

export interface SvmSimulation extends SvmExecution {
  /** Writable accounts after the simulated transaction (successful simulations only). */
  postAccounts: Map<string, AccountState | null>;
}

/** base58 → 32 bytes, cached (the same few hundred keys come back in every transaction). */
const keyCache = new Map<string, Uint8Array>();
function key(address: string): Uint8Array {
  let k = keyCache.get(address);
  if (!k) {
    k = new PublicKey(address).toBytes();
    if (keyCache.size >= 20_000) keyCache.delete(keyCache.keys().next().value!);
    keyCache.set(address, k);
  }
  return k;
}

function fromAccount(a: Account | null): AccountState | null {
  if (!a || a.lamports() === 0n) return null;
  return { lamports: a.lamports(), owner: bs58.encode(a.owner()), data: new Uint8Array(a.data()), executable: a.executable() };
}

function innerInstructionsJson(list: InnerInstruction[][]): InnerInstructionsJson[] {
  const out: InnerInstructionsJson[] = [];
  list.forEach((inner, index) => {
    if (!inner.length) return;
    out.push({
      index,
      instructions: inner.map((ii) => {
        const ix = ii.instruction();
        return { programIdIndex: ix.programIdIndex(), accounts: [...ix.accounts()], data: bs58.encode(ix.data()), stackHeight: ii.stackHeight() };
      }),
    });
  });
  return out;
}

function execution(meta: TransactionMetadata, err: TransactionErrorJson | null): SvmExecution {
  const rd = meta.returnData();
  const data = rd.data();
  return {
    err,
    logs: meta.logs(),
    unitsConsumed: Number(meta.computeUnitsConsumed()),
    innerInstructions: innerInstructionsJson(meta.innerInstructions()),
    returnData: data.length ? { programId: bs58.encode(rd.programId()), data: [Buffer.from(data).toString("base64"), "base64"] } : null,
  };
}

export const SVM_SNAPSHOT_FORMAT = "litesvm/gzip";

/** The SVM, configured as the validator runs it. */
export class SvmRuntime {
  private svm: LiteSvm;
  private readonly programs: string[] = [];
  private clock: { slot: number; unixTime: number } | null = null;

  constructor(programs: readonly SbfProgram[] = []) {
    this.svm = SvmRuntime.configure(new LiteSvm());
    for (const p of programs) this.addProgram(p);
  }

  private static configure(svm: LiteSvm): LiteSvm {
    svm.setSigverify(true);
    // The ledger keeps the blockhash window (150 blocks) and the status cache.
    svm.setBlockhashCheck(false);
    svm.setTransactionHistory(0n);
    return svm;
  }

  addProgram(p: SbfProgram): void {
    const bytes = typeof p.so === "string" ? readFileSync(p.so) : p.so;
    this.svm.addProgram(key(p.id), bytes);
    if (!this.programs.includes(p.id)) this.programs.push(p.id);
  }

  /** Ids of the SBF programs added here (the SVM's own programs not included). */
  get programIds(): string[] {
    return [...this.programs];
  }

  /** The clock sysvar at this slot and unix time (set only when it changed). */
  syncClock(slot: number, unixTime: number): void {
    if (this.clock && this.clock.slot === slot && this.clock.unixTime === unixTime) return;
    this.svm.setClock(new Clock(BigInt(slot), BigInt(unixTime), 0n, 0n, BigInt(unixTime)));
    this.clock = { slot, unixTime };
  }

  getAccount(address: string): AccountState | null {
    return fromAccount(this.svm.getAccount(key(address)));
  }

  getBalance(address: string): bigint {
    return this.svm.getBalance(key(address)) ?? 0n;
  }

  /** Writes an account; null or zero lamports deletes it. */
  setAccount(address: string, account: AccountState | null): void {
    const a = account && account.lamports > 0n ? account : { lamports: 0n, owner: SYSTEM_PROGRAM_ID, data: new Uint8Array(0), executable: false };
    this.svm.setAccount(key(address), new Account(a.lamports, a.data, key(a.owner), a.executable, 0n));
  }

  accountsOwnedBy(owner: string): [string, AccountState][] {
    const out: [string, AccountState][] = [];
    for (const x of this.svm.getProgramAccounts(key(owner))) {
      const a = fromAccount(x.account());
      if (a) out.push([bs58.encode(x.address), a]);
    }
    return out;
  }

  rentExempt(size: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(size));
  }

  /** Executes and commits (a failed transaction commits only its fee, when it got that far). */
  send(tx: DecodedTransaction): SvmExecution {
    const r = tx.version === "legacy" ? this.svm.sendLegacyTransaction(tx.wire) : this.svm.sendVersionedTransaction(tx.wire);
    if (r instanceof FailedTransactionMetadata) return execution(r.meta(), transactionErrorJson(r.err()));
    return execution(r, null);
  }

  /** Runs without committing anything; signatures are checked only when asked (as the RPC's sigVerify). */
  simulate(tx: DecodedTransaction, opts: { sigverify: boolean }): SvmSimulation {
    if (!opts.sigverify) this.svm.setSigverify(false);
    try {
      const r = tx.version === "legacy" ? this.svm.simulateLegacyTransaction(tx.wire) : this.svm.simulateVersionedTransaction(tx.wire);
      if (r instanceof FailedTransactionMetadata) return { ...execution(r.meta(), transactionErrorJson(r.err())), postAccounts: new Map() };
      const postAccounts = new Map<string, AccountState | null>();
      for (const x of r.postAccounts()) postAccounts.set(bs58.encode(x.address), fromAccount(x.account()));
      return { ...execution(r.meta(), null), postAccounts };
    } finally {
      if (!opts.sigverify) this.svm.setSigverify(true);
    }
  }

  /** The whole SVM state (accounts, programs, sysvars), gzipped and base64-encoded. */
  snapshot(): string {
    return gzipSync(this.svm.toBytes(), { level: 1 }).toString("base64");
  }

  restore(snapshot: string): void {
    this.svm = SvmRuntime.configure(LiteSvm.fromBytes(gunzipSync(Buffer.from(snapshot, "base64"))));
    this.clock = null;
  }
}

/** The ledger's engine on LiteSVM. */
export class SvmEngine implements LedgerEngine {
  readonly kind = "svm";
  readonly runtime: SvmRuntime;

  constructor(programs: readonly SbfProgram[] = []) {
    this.runtime = new SvmRuntime(programs);
  }

  get programIds(): string[] {
    return this.runtime.programIds;
  }

  getAccount(address: string): AccountState | null {
    return this.runtime.getAccount(address);
  }

  getBalance(address: string): bigint {
    return this.runtime.getBalance(address);
  }

  setAccount(address: string, account: AccountState | null): void {
    this.runtime.setAccount(address, account);
  }

  accountsOwnedBy(owner: string): [string, AccountState][] {
    return this.runtime.accountsOwnedBy(owner);
  }

  rentExempt(size: number): bigint {
    return this.runtime.rentExempt(size);
  }

  verifySignatures(tx: DecodedTransaction): boolean {
    for (let i = 0; i < tx.signatures.length; i++) {
      if (!verifyEd25519Signature(tx.messageBytes, tx.signatures[i]!, new PublicKey(tx.staticKeys[i]!).toBytes())) return false;
    }
    return true;
  }

  async execute(tx: DecodedTransaction, accounts: ResolvedAccounts, ctx: ExecutionContext): Promise<EngineExecution> {
    this.runtime.syncClock(ctx.slot, ctx.unixTime);
    const payer = accounts.keys[0]!;
    const before = this.runtime.getBalance(payer);
    const r = this.runtime.send(tx);
    if (r.err === null) return { landed: true, fee: tx.fee, changed: accounts.keys.filter((_, i) => accounts.writable[i]), ...r };
    // A failed transaction landed when the runtime charged its fee (it got past sanitizing, signatures and the fee payer).
    const charged = before - this.runtime.getBalance(payer);
    if (charged === 0n) return { landed: false, err: r.err };
    return { landed: true, fee: charged, changed: [payer], ...r };
  }

  async simulate(
    tx: DecodedTransaction,
    _accounts: ResolvedAccounts,
    ctx: ExecutionContext & { sigverify: boolean; addresses?: string[] },
  ): Promise<EngineSimulation> {
    this.runtime.syncClock(ctx.slot, ctx.unixTime);
    const { postAccounts, ...r } = this.runtime.simulate(tx, { sigverify: ctx.sigverify });
    const accounts = ctx.addresses?.map((a) => (postAccounts.has(a) ? postAccounts.get(a)! : this.runtime.getAccount(a))) ?? null;
    return { ...r, accounts };
  }

  snapshotState(): { kind: "svm"; format: typeof SVM_SNAPSHOT_FORMAT; state: string } {
    return { kind: "svm", format: SVM_SNAPSHOT_FORMAT, state: this.runtime.snapshot() };
  }

  restoreState(state: unknown): void {
    const s = state as ReturnType<SvmEngine["snapshotState"]>;
    if (s?.kind !== "svm" || s.format !== SVM_SNAPSHOT_FORMAT) throw new Error("the snapshot was taken of another engine");
    this.runtime.restore(s.state);
  }
}
