/**
 * The ledger's engine that runs the TypeScript program models
 * (src-localnet/programs) over an in-memory account map. Kept until the SBF
 * programs run in LiteSVM (svm-engine.ts) everywhere.
 */
import { PublicKey } from "@solana/web3.js";
import type { AccountState, Program } from "../runtime/types";
import { verifyEd25519Signature } from "./ed25519";
import type { TransactionErrorJson } from "./errors";
import { executeTransaction, rentExemptMinimum, type StagedView } from "./executor";
import type { EngineExecution, EngineSimulation, ExecutionContext, LedgerEngine } from "./engine";
import { BPF_LOADER_UPGRADEABLE_ID, BUILTIN_PROGRAM_IDS, NATIVE_LOADER_ID, SYSTEM_PROGRAM_ID, type DecodedTransaction, type ResolvedAccounts } from "./transaction";

const PROGRAM_ACCOUNT_LAMPORTS = rentExemptMinimum(36);

const copy = (a: AccountState): AccountState => ({ lamports: a.lamports, owner: a.owner, data: a.data.slice(), executable: a.executable });

export class TsEngine implements LedgerEngine {
  readonly kind = "ts";
  private accounts = new Map<string, AccountState>();
  private readonly programs = new Map<string, Program>();

  constructor(programs: readonly Program[] = [], programIds: readonly string[] = []) {
    for (const p of programs) this.registerProgram(p);
    for (const id of programIds) this.ensureExecutable(id);
  }

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

  getAccount(address: string): AccountState | null {
    const a = this.accounts.get(address);
    return a ? copy(a) : null;
  }

  getBalance(address: string): bigint {
    return this.accounts.get(address)?.lamports ?? 0n;
  }

  setAccount(address: string, account: AccountState | null): void {
    if (!account || account.lamports === 0n) this.accounts.delete(address);
    else this.accounts.set(address, copy(account));
  }

  accountsOwnedBy(owner: string): [string, AccountState][] {
    const out: [string, AccountState][] = [];
    for (const [address, a] of this.accounts) if (a.owner === owner) out.push([address, a]);
    return out;
  }

  rentExempt(size: number): bigint {
    return rentExemptMinimum(size);
  }

  fee(tx: DecodedTransaction): bigint {
    return tx.fee;
  }

  verifySignatures(tx: DecodedTransaction): boolean {
    for (let i = 0; i < tx.signatures.length; i++) {
      const key = new PublicKey(tx.staticKeys[i]!).toBytes();
      if (!verifyEd25519Signature(tx.messageBytes, tx.signatures[i]!, key)) return false;
    }
    return true;
  }

  /** The checks on the fee payer a real node makes before a transaction can land; failing any, nothing is charged. */
  private payerCheck(tx: DecodedTransaction, opts: { verifySignatures: boolean }): TransactionErrorJson | null {
    if (opts.verifySignatures && !this.verifySignatures(tx)) return "SignatureFailure";
    if (tx.computeBudget.error) return tx.computeBudget.error;
    const payer = this.accounts.get(tx.staticKeys[0]!);
    if (!payer || payer.lamports === 0n) return "AccountNotFound";
    if (payer.owner !== SYSTEM_PROGRAM_ID || payer.executable) return "InvalidAccountForFee";
    if (payer.lamports < tx.fee) return "InsufficientFundsForFee";
    const min = rentExemptMinimum(payer.data.length);
    const after = payer.lamports - tx.fee;
    if (payer.lamports >= min && after > 0n && after < min) return { InsufficientFundsForRent: { account_index: 0 } };
    return null;
  }

  /** The committed state with the fee already taken from the payer. */
  private feeCharged(payer: string, fee: bigint): (address: string) => AccountState | null {
    return (address) => {
      const a = this.accounts.get(address) ?? null;
      if (address !== payer || !a) return a;
      return { ...a, lamports: a.lamports - fee };
    };
  }

  private async run(tx: DecodedTransaction, accounts: ResolvedAccounts, ctx: ExecutionContext) {
    const base = this.feeCharged(accounts.keys[0]!, tx.fee);
    const result = await executeTransaction({
      tx,
      accounts,
      slot: ctx.slot,
      unixTime: ctx.unixTime,
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

  async simulate(tx: DecodedTransaction, accounts: ResolvedAccounts, ctx: ExecutionContext & { sigverify: boolean; addresses?: string[] }): Promise<EngineSimulation> {
    const pre = this.payerCheck(tx, { verifySignatures: ctx.sigverify });
    if (pre) return { err: pre, logs: [], unitsConsumed: 0, innerInstructions: [], returnData: null, accounts: null };
    const result = await this.run(tx, accounts, ctx);
    const out =
      ctx.addresses?.map((address) => {
        if (result.err === null) return result.stage.get(address);
        return this.feeCharged(accounts.keys[0]!, tx.fee)(address);
      }) ?? null;
    return { err: result.err, logs: result.logs, unitsConsumed: result.unitsConsumed, innerInstructions: [], returnData: null, accounts: out };
  }

  async execute(tx: DecodedTransaction, accounts: ResolvedAccounts, ctx: ExecutionContext & { commit: () => boolean }): Promise<EngineExecution> {
    const pre = this.payerCheck(tx, { verifySignatures: true });
    if (pre) return { landed: false, err: pre };
    const result = await this.run(tx, accounts, ctx);
    // Between the start and here nothing else ran (one transaction at a time), but a snapshot may have been restored.
    if (!ctx.commit()) return { landed: false, err: "AlreadyProcessed" };
    const payer = accounts.keys[0]!;
    const changed = new Set<string>([payer]);
    const payerAccount = this.accounts.get(payer)!;
    this.setAccount(payer, { ...payerAccount, lamports: payerAccount.lamports - tx.fee });
    if (result.err === null) {
      for (const [address, account] of result.stage.writes) {
        this.setAccount(address, account);
        changed.add(address);
      }
    }
    return {
      landed: true,
      fee: tx.fee,
      changed: [...changed],
      err: result.err,
      logs: result.logs,
      unitsConsumed: result.unitsConsumed,
      innerInstructions: [],
      returnData: null,
    };
  }

  snapshotState(): { kind: "ts"; accounts: [string, { lamports: string; owner: string; data: string; executable: boolean }][] } {
    return {
      kind: "ts",
      accounts: [...this.accounts.entries()].map(([address, a]) => [
        address,
        { lamports: a.lamports.toString(), owner: a.owner, data: Buffer.from(a.data).toString("base64"), executable: a.executable },
      ]),
    };
  }

  restoreState(state: unknown): void {
    const s = state as ReturnType<TsEngine["snapshotState"]>;
    if (s?.kind !== "ts") throw new Error("the snapshot was taken of another engine");
    this.accounts = new Map(
      s.accounts.map(([address, a]) => [address, { lamports: BigInt(a.lamports), owner: a.owner, data: new Uint8Array(Buffer.from(a.data, "base64")), executable: a.executable }]),
    );
    for (const id of this.programs.keys()) this.ensureExecutable(id);
  }
}
