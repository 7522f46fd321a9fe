/**
 * Runs a transaction's instructions through the registered programs with
 * staged account writes: an instruction's writes are checked (only writable
 * accounts of the instruction change, executable accounts do not, lamports
 * are conserved) and merged into the transaction's stage; the ledger commits
 * the stage only when every instruction succeeded. Logs follow the real
 * runtime's format.
 */
import {
  ProgramError,
  type AccountState,
  type AccountView,
  type CompiledInstruction,
  type ExecContext,
  type Program,
} from "../runtime/types";
import { encodeInstructionsSysvar, instructionsSysvarAccount, setInstructionsSysvarIndex, SYSVAR_INSTRUCTIONS_ID } from "../runtime/instructions-sysvar";
import { instructionError, instructionErrorText, type InstructionErrorJson, type TransactionErrorJson } from "./errors";
import { BUILTIN_PROGRAM_IDS, COMPUTE_BUDGET_PROGRAM_ID, type DecodedTransaction, type ResolvedAccounts } from "./transaction";

export const rentExemptMinimum = (size: number): bigint => BigInt(128 + size) * 6960n;

export function cloneAccount(a: AccountState): AccountState {
  return { lamports: a.lamports, owner: a.owner, data: a.data.slice(), executable: a.executable };
}

function sameAccount(a: AccountState | null, b: AccountState | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.lamports !== b.lamports || a.owner !== b.owner || a.executable !== b.executable || a.data.length !== b.data.length) return false;
  for (let i = 0; i < a.data.length; i++) if (a.data[i] !== b.data[i]) return false;
  return true;
}

/** Writes staged over a base view. `get` hands out copies, so a caller's mutation never reaches the ledger. */
export class StagedView implements AccountView {
  readonly writes = new Map<string, AccountState | null>();
  constructor(private readonly base: (address: string) => AccountState | null) {}

  /** The current value without copying (internal use). */
  peek(address: string): AccountState | null {
    if (this.writes.has(address)) return this.writes.get(address) ?? null;
    return this.base(address);
  }
  get(address: string): AccountState | null {
    const a = this.peek(address);
    return a ? cloneAccount(a) : null;
  }
  set(address: string, account: AccountState): void {
    if (typeof account.lamports !== "bigint") throw new TypeError(`AccountView.set(${address}): lamports must be a bigint`);
    if (!(account.data instanceof Uint8Array)) throw new TypeError(`AccountView.set(${address}): data must be a Uint8Array`);
    this.writes.set(address, cloneAccount(account));
  }
  delete(address: string): void {
    this.writes.set(address, null);
  }
}

export interface ExecutionInput {
  tx: DecodedTransaction;
  accounts: ResolvedAccounts;
  slot: number;
  unixTime: number;
  /** The committed state (after the fee was charged). */
  base: (address: string) => AccountState | null;
  programs: ReadonlyMap<string, Program>;
  /** Whether an executable account exists for a program id that has no implementation. */
  isExecutable: (address: string) => boolean;
}

export interface ExecutionResult {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: number;
  /** The transaction's stage: apply it only when err is null. */
  stage: StagedView;
}

class BudgetExceeded extends ProgramError {
  constructor() {
    super("ComputationalBudgetExceeded", "computational budget exceeded");
  }
}

const COMPUTE_BUDGET_BUILTIN: Program = { id: COMPUTE_BUDGET_PROGRAM_ID, baseUnits: 150, execute: () => {} };

export async function executeTransaction(input: ExecutionInput): Promise<ExecutionResult> {
  const { tx, accounts } = input;
  const logs: string[] = [];
  const stage = new StagedView(input.base);
  const limit = tx.computeBudget.effectiveLimit;
  let consumed = 0;
  const signers = new Set(accounts.keys.slice(0, tx.header.numRequiredSignatures));

  // Loading: every invoked program must exist (a load failure has no logs; the fee is still charged).
  for (const raw of tx.instructions) {
    const programId = accounts.keys[raw.programIdIndex]!;
    if (!input.programs.has(programId) && programId !== COMPUTE_BUDGET_PROGRAM_ID && !input.isExecutable(programId)) {
      return { err: "ProgramAccountNotFound", logs: [], unitsConsumed: 0, stage };
    }
  }

  const compiled: CompiledInstruction[] = tx.instructions.map((raw) => ({
    programId: accounts.keys[raw.programIdIndex]!,
    accounts: raw.accountIndexes.map((i) => ({ address: accounts.keys[i]!, isSigner: signers.has(accounts.keys[i]!), isWritable: accounts.writable[i]! })),
    data: raw.data.slice(),
  }));
  // The Instructions sysvar exists for a transaction that lists it: its top-level instructions, and which one runs.
  const sysvar = accounts.keys.includes(SYSVAR_INSTRUCTIONS_ID) ? encodeInstructionsSysvar(compiled) : null;

  for (let index = 0; index < tx.instructions.length; index++) {
    const programId = compiled[index]!.programId;
    const program = input.programs.get(programId) ?? (programId === COMPUTE_BUDGET_PROGRAM_ID ? COMPUTE_BUDGET_BUILTIN : undefined);
    if (!program) {
      // An executable account (opts.programIds) with no implementation registered here.
      logs.push(`Program ${programId} invoke [1]`, `Program ${programId} failed: ${instructionErrorText("UnsupportedProgramId")}`);
      return { err: instructionError(index, "UnsupportedProgramId"), logs, unitsConsumed: consumed, stage };
    }
    const ix: CompiledInstruction = { ...compiled[index]!, data: compiled[index]!.data.slice() };
    const remaining = limit - consumed;
    if (sysvar) setInstructionsSysvarIndex(sysvar, index);
    const ixView = new StagedView((address) => (sysvar && address === SYSVAR_INSTRUCTIONS_ID ? instructionsSysvarAccount(sysvar) : stage.peek(address)));
    let charged = 0;
    const ctx: ExecContext = {
      slot: input.slot,
      unixTime: input.unixTime,
      signers,
      feePayer: accounts.keys[0]!,
      signature: tx.signature,
      accounts: ixView,
      log: (line) => {
        logs.push(line);
      },
      consumeUnits: (units) => {
        if (!Number.isFinite(units) || units < 0) throw new RangeError(`consumeUnits(${units})`);
        charged += units;
        if (charged > remaining) throw new BudgetExceeded();
      },
      rentExempt: rentExemptMinimum,
    };
    logs.push(`Program ${programId} invoke [1]`);
    let failure: InstructionErrorJson | null = null;
    try {
      await program.execute(ix, ctx);
      if (charged === 0) charged = program.baseUnits;
      if (charged > remaining) throw new BudgetExceeded();
      failure = checkInstructionWrites(ix, ixView, stage);
    } catch (e) {
      if (e instanceof ProgramError) {
        failure = e.error;
      } else {
        failure = "ProgramFailedToComplete";
        logs.push(`Program log: panicked at '${e instanceof Error ? e.message : String(e)}'`);
        if (process.env.LOCALNET_DEBUG) console.error(`[localnet] program ${programId} threw`, e);
      }
      if (charged === 0) charged = Math.min(program.baseUnits, remaining);
    }
    if (failure === "ComputationalBudgetExceeded") charged = remaining;
    charged = Math.min(charged, remaining);
    consumed += charged;
    if (!BUILTIN_PROGRAM_IDS.has(programId)) logs.push(`Program ${programId} consumed ${charged} of ${remaining} compute units`);
    if (failure !== null) {
      logs.push(`Program ${programId} failed: ${instructionErrorText(failure)}`);
      return { err: instructionError(index, failure), logs, unitsConsumed: consumed, stage };
    }
    logs.push(`Program ${programId} success`);
    for (const [address, account] of ixView.writes) stage.writes.set(address, account);
  }
  return { err: null, logs, unitsConsumed: consumed, stage };
}

/** The runtime's checks on what one instruction changed. */
function checkInstructionWrites(ix: CompiledInstruction, ixView: StagedView, before: StagedView): InstructionErrorJson | null {
  let lamportsBefore = 0n;
  let lamportsAfter = 0n;
  for (const [address, after] of ixView.writes) {
    const prior = before.peek(address);
    if (sameAccount(prior, after)) continue;
    const meta = ix.accounts.find((a) => a.address === address);
    const dataChanged = !prior || !after || prior.owner !== after.owner || !sameAccount({ ...prior, lamports: 0n }, { ...after, lamports: 0n });
    if (!meta || !meta.isWritable) return dataChanged ? "ReadonlyDataModified" : "ReadonlyLamportChange";
    if (prior?.executable) return dataChanged ? "ExecutableDataModified" : "ExecutableLamportChange";
    if (after && after.lamports < 0n) return "ArithmeticOverflow";
    lamportsBefore += prior?.lamports ?? 0n;
    lamportsAfter += after?.lamports ?? 0n;
  }
  return lamportsBefore === lamportsAfter ? null : "UnbalancedInstruction";
}
