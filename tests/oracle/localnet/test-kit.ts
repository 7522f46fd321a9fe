/**
 * TEST ORACLE: a tiny in-memory ledger that runs the TypeScript program models
 * of this folder (one transaction's writes are staged and applied only when
 * every instruction succeeds; logs and errors as a real cluster shows them),
 * without RPC, signatures or fees. Signers are just addresses. Differential
 * tests run the same transactions here and in LiteSVM.
 */
import { PublicKey, type TransactionInstruction } from "@solana/web3.js";
import { TOKEN_PROGRAM_ID, associatedTokenAddress, encodeTokenAccount, publicKeyBytes } from "../../../src-shared/pool-program";
import { MINT_SIZE, encodeMint } from "../../../src-localnet/ledger/token";
import { ProgramError, type AccountState, type AccountView, type CompiledInstruction, type ExecContext, type Program } from "./types";
import { describeError } from "./runtime-helpers";
import { loadTokenAccount } from "./spl-token";

export interface TxResult {
  err: { InstructionError: [number, ProgramError["error"]] } | null;
  /** The failing program's message, for test diagnostics. */
  message: string | null;
  logs: string[];
  unitsConsumed: number;
}

const DEFAULT_UNIT_LIMIT = 1_400_000;

export class MemoryLedger {
  readonly accounts = new Map<string, AccountState>();
  slot = 100;
  unixTime = 1_700_000_000;
  private readonly programs: Map<string, Program>;

  constructor(programs: readonly Program[]) {
    this.programs = new Map(programs.map((p) => [p.id, p]));
  }

  rentExempt(size: number): bigint {
    return BigInt((128 + size) * 6960);
  }

  get(address: string): AccountState | null {
    return this.accounts.get(address) ?? null;
  }

  lamports(address: string): bigint {
    return this.accounts.get(address)?.lamports ?? 0n;
  }

  airdrop(address: string, lamports: bigint): void {
    const cur = this.accounts.get(address);
    this.accounts.set(
      address,
      cur ? { ...cur, lamports: cur.lamports + lamports } : { lamports, owner: "11111111111111111111111111111111", data: new Uint8Array(0), executable: false },
    );
  }

  createMint(mint: string, decimals: number): void {
    const data = encodeMint({ mintAuthority: null, supply: 0n, decimals, freezeAuthority: null });
    this.accounts.set(mint, { lamports: this.rentExempt(MINT_SIZE), owner: TOKEN_PROGRAM_ID, data, executable: false });
  }

  /** Creates (or tops up) `owner`'s associated token account for `mint`; returns its address. */
  fundToken(owner: string, mint: string, amount: bigint): string {
    const address = associatedTokenAddress(owner, mint);
    const before = this.tokenBalance(address) ?? 0n;
    const data = encodeTokenAccount({ mint: publicKeyBytes(mint), owner: publicKeyBytes(owner), amount: before + amount });
    this.accounts.set(address, { lamports: this.rentExempt(165), owner: TOKEN_PROGRAM_ID, data, executable: false });
    return address;
  }

  /** A token account's amount, or null when there is none. */
  tokenBalance(address: string): bigint | null {
    const view: AccountView = { get: (a) => this.get(a), set: () => undefined, delete: () => undefined };
    const t = loadTokenAccount({ accounts: view } as ExecContext, address);
    return t ? t.amount : null;
  }

  /**
   * One transaction: `signers` (addresses; the first pays) sign; instructions
   * run in order against a staged view; writes land only if all succeed.
   */
  async run(
    instructions: readonly (TransactionInstruction | CompiledInstruction)[],
    signers: readonly string[],
    opts: { unitLimit?: number } = {},
  ): Promise<TxResult> {
    const compiled = compile(instructions, signers);
    const staged = new Map<string, AccountState | null>();
    const view: AccountView = {
      get: (a) => (staged.has(a) ? staged.get(a)! : (this.accounts.get(a) ?? null)),
      set: (a, s) => void staged.set(a, s),
      delete: (a) => void staged.set(a, null),
    };
    const logs: string[] = [];
    const limit = opts.unitLimit ?? DEFAULT_UNIT_LIMIT;
    let total = 0;
    for (const [index, ix] of compiled.entries()) {
      const program = this.programs.get(ix.programId);
      if (!program) throw new Error(`no program ${ix.programId}`);
      let used = 0;
      const ctx: ExecContext = {
        slot: this.slot,
        unixTime: this.unixTime,
        signers: new Set(signers),
        feePayer: signers[0]!,
        signature: "1".repeat(64),
        accounts: view,
        log: (line) => void logs.push(line),
        consumeUnits: (units) => {
          used += units;
          if (total + used > limit) throw new ProgramError("ComputationalBudgetExceeded", "compute budget exceeded");
        },
        rentExempt: (size) => this.rentExempt(size),
      };
      logs.push(`Program ${ix.programId} invoke [1]`);
      try {
        await program.execute(ix, ctx);
      } catch (e) {
        if (!(e instanceof ProgramError)) throw e;
        total += used;
        logs.push(`Program ${ix.programId} consumed ${used} of ${limit - total + used} compute units`);
        logs.push(`Program ${ix.programId} failed: ${describeError(e.error)}`);
        return { err: { InstructionError: [index, e.error] }, message: e.message, logs, unitsConsumed: total };
      }
      if (used === 0) used = program.baseUnits;
      total += used;
      logs.push(`Program ${ix.programId} consumed ${used} of ${limit - total + used} compute units`);
      logs.push(`Program ${ix.programId} success`);
    }
    for (const [a, s] of staged) {
      if (s === null || (s.lamports === 0n && s.data.length === 0)) this.accounts.delete(a);
      else this.accounts.set(a, s);
    }
    this.slot += 1;
    this.unixTime += 1;
    return { err: null, message: null, logs, unitsConsumed: total };
  }
}

/** As a message compiles: an account's signer and writable flags are the union over the transaction; signers sign everywhere. */
function compile(instructions: readonly (TransactionInstruction | CompiledInstruction)[], signers: readonly string[]): CompiledInstruction[] {
  const plain: CompiledInstruction[] = instructions.map((ix) =>
    "keys" in ix
      ? {
          programId: ix.programId.toBase58(),
          accounts: ix.keys.map((k) => ({ address: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
          data: new Uint8Array(ix.data),
        }
      : ix,
  );
  const writable = new Set<string>(signers.slice(0, 1));
  const signing = new Set<string>(signers);
  for (const ix of plain) for (const a of ix.accounts) if (a.isWritable) writable.add(a.address);
  return plain.map((ix) => ({
    ...ix,
    accounts: ix.accounts.map((a) => ({ address: a.address, isSigner: signing.has(a.address), isWritable: writable.has(a.address) })),
  }));
}

/** A fixed address for a label (not on the curve or on it: the programs do not care). */
export function address(label: string | number): string {
  const bytes = new Uint8Array(32);
  const text = new TextEncoder().encode(String(label));
  bytes.set(text.subarray(0, 31), 0);
  bytes[31] = 0x5a;
  return new PublicKey(bytes).toBase58();
}
