/**
 * The transaction pipeline around the engine: the ledger's own checks (status
 * cache, blockhash window, lookup tables), then the engine verifies
 * signatures, charges the fee (also on failure) and runs the programs; a
 * landed transaction becomes a record with its balances before and after.
 * Transactions are processed strictly one at a time, in submission order.
 */
import bs58 from "bs58";
import { TOKEN_PROGRAM_ID } from "../../src-shared/pool-program";
import type { LedgerEngine } from "./engine";
import type { TransactionErrorJson } from "./errors";
import type { SlotClock } from "./clock";
import type { TransactionHistory } from "./history";
import { readTokenAccount, uiTokenAmount } from "./token";
import { BUILTIN_PROGRAM_IDS, resolveAccounts, type DecodedTransaction, type ResolvedAccounts } from "./transaction";
import type { SimulationResult, SubmitOutcome, TokenBalanceJson, TransactionRecord } from "./types";

export interface PipelineParts {
  engine: LedgerEngine;
  clock: SlotClock;
  history: TransactionHistory;
  decimalsOf: (mint: string) => number;
  /** Called for each landed transaction, before its submit resolves: `changed` are the accounts it wrote. */
  landed: (record: TransactionRecord, changed: string[], slot: number) => void;
}

export class TransactionPipeline {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly parts: PipelineParts) {}

  /** The ledger's own checks (status cache, blockhash window, lookup tables); the engine checks the rest. */
  private precheck(tx: DecodedTransaction, blockhash: string): { ok: true; accounts: ResolvedAccounts } | { ok: false; err: TransactionErrorJson } {
    const { engine, clock, history } = this.parts;
    if (history.has(tx.signature)) return { ok: false, err: "AlreadyProcessed" };
    if (!clock.isBlockhashValid(blockhash)) return { ok: false, err: "BlockhashNotFound" };
    const resolved = resolveAccounts(tx, (a) => engine.getAccount(a));
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
    const { engine, clock } = this.parts;
    const blockhash = opts.replaceRecentBlockhash ? clock.latestBlockhash().blockhash : tx.recentBlockhash;
    const pre = this.precheck(tx, blockhash);
    if (!pre.ok) return { err: pre.err, logs: [], unitsConsumed: 0, innerInstructions: [], returnData: null, accounts: null };
    const slot = clock.slot;
    return engine.simulate(tx, pre.accounts, { slot, unixTime: clock.unixTimeOf(slot), sigverify: opts.verifySignatures ?? false, addresses: opts.accounts });
  }

  /** Processes a transaction for real, after every transaction submitted before it. */
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
    const { engine, clock } = this.parts;
    const pre = this.precheck(tx, tx.recentBlockhash);
    if (!pre.ok) return { landed: false, err: pre.err };
    const accounts = pre.accounts;
    const slot = clock.slot;
    const keys = accounts.keys;
    const tokenKeys = this.tokenBalanceKeys(tx, keys);
    const before = this.balances(keys, tokenKeys);
    const result = await engine.execute(tx, accounts, { slot, unixTime: clock.unixTimeOf(slot) });
    if (!result.landed) return { landed: false, err: result.err };
    const after = this.balances(keys, tokenKeys);
    const record: TransactionRecord = {
      signature: tx.signature,
      signatures: tx.signatureStrings,
      slot,
      blockTime: clock.unixTimeOf(slot),
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
    this.parts.landed(record, result.changed, slot);
    return { landed: true, record };
  }

  /** Lamports of every key, and the token balances of the keys that may be token accounts (programs' accounts are not read whole). */
  private balances(keys: readonly string[], mayBeToken: readonly boolean[]): { lamports: number[]; tokens: TokenBalanceJson[] } {
    const { engine, decimalsOf } = this.parts;
    const lamports: number[] = [];
    const out: TokenBalanceJson[] = [];
    keys.forEach((key, accountIndex) => {
      if (!mayBeToken[accountIndex]) {
        lamports.push(Number(engine.getBalance(key)));
        return;
      }
      const account = engine.getAccount(key);
      lamports.push(Number(account?.lamports ?? 0n));
      const info = readTokenAccount(account);
      if (!info) return;
      out.push({
        accountIndex,
        mint: info.mint,
        owner: info.owner,
        programId: TOKEN_PROGRAM_ID,
        uiTokenAmount: uiTokenAmount(info.amount, decimalsOf(info.mint)),
      });
    });
    return { lamports, tokens: out };
  }
}
