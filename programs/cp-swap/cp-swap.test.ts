/**
 * The cp-swap SBF program (programs/cp-swap/src/cp_swap.c) run by the real Solana runtime
 * (LiteSVM, with the real SPL Token and Associated Token programs). Pools, vaults and
 * balances are made with setAccount exactly as the local validator makes them
 * (createCpPool of tests/oracle/localnet/cp-swap.ts over a ledger adapter); swaps are the
 * instructions the local Jupiter API builds (cpSwapInstruction).
 *
 * Every transaction also runs in the TypeScript model (CpSwapProgram in the programs'
 * MemoryLedger, on copies of the same accounts) and the two must agree on the error, the
 * program's own `Program log:` lines and the token balances afterwards; the only exceptions
 * are states that only setAccount can make, where the C program checks more (marked).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Keypair, PublicKey, Transaction, TransactionInstruction } from "@solana/web3.js";
import { getTransactionDecoder } from "@solana/kit";
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from "litesvm";
import { beforeAll, describe, expect, it } from "vitest";
import { cpAmountOut } from "../../src-shared/swap/constant-product";
import { TOKEN_ACCOUNT_OFFSETS, TOKEN_PROGRAM_ID, associatedTokenAddress, decodeTokenAccount, encodeTokenAccount } from "../../src-shared/pool-program";
import {
  CP_POOL_SIZE,
  CP_SWAP_PROGRAM_ID,
  createCpPool,
  cpSwapInstruction,
  cpVaultAddress,
  findCpPoolAddress,
  type CpPoolLedger,
} from "../../src-localnet/programs/cp-swap-client";
import { CpSwapProgram } from "../../tests/oracle/localnet/cp-swap";
import { MemoryLedger } from "../../tests/oracle/localnet/test-kit";
import { MINT_SIZE, encodeMint } from "../../src-localnet/ledger/token";

const SO = join(__dirname, "cp-swap.so");
const U64_MAX = (1n << 64n) - 1n;

/** The constant-product output, written out again: floor(amountIn·997·rOut / (rIn·1000 + amountIn·997)). */
function expectedOut(amountIn: bigint, rIn: bigint, rOut: bigint): bigint {
  return (amountIn * 997n * rOut) / (rIn * 1000n + amountIn * 997n);
}

// ------------------------------------------------------------------ LiteSVM world

type Encoded = { address: string; lamports: bigint; programAddress: string; data: Uint8Array; executable: boolean; space: bigint };

interface Outcome {
  ok: boolean;
  logs: string[];
  units: bigint;
  /** "Custom:6001", "InvalidInstructionData", … (null when it landed). */
  error: string | null;
}

class World implements CpPoolLedger {
  readonly svm: LiteSVM;
  readonly payer = Keypair.generate();

  constructor(readonly programId: string) {
    this.svm = new LiteSVM();
    this.svm.addProgramFromFile(programId as never, SO);
    this.svm.airdrop(this.payer.publicKey.toBase58() as never, 1_000_000_000_000n as never);
  }

  // CpPoolLedger: what createCpPool needs, as src-localnet's Ledger does it.
  getAccount(address: string): { lamports: bigint; owner: string; data: Uint8Array; executable: boolean } | null {
    const a = this.svm.getAccount(address as never) as unknown as ({ exists: boolean } & Partial<Encoded>) | null;
    if (!a || !a.exists) return null;
    return { lamports: BigInt(a.lamports!), owner: String(a.programAddress), data: new Uint8Array(a.data!), executable: a.executable! };
  }

  setAccount(address: string, account: { lamports: bigint; owner: string; data: Uint8Array; executable: boolean } | null): void {
    const a = account ?? { lamports: 0n, owner: "11111111111111111111111111111111", data: new Uint8Array(0), executable: false };
    this.svm.setAccount({
      address,
      lamports: a.lamports,
      programAddress: a.owner,
      data: a.data,
      executable: a.executable,
      space: BigInt(a.data.length),
    } as never);
  }

  rentExempt(size: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(size));
  }

  /** As Ledger.mintTo: the mint (created when missing) and the owner's associated token account credited. */
  mintTo(owner: string, mint: string, amount: bigint): string {
    if (!this.getAccount(mint)) {
      this.setAccount(mint, {
        lamports: this.rentExempt(MINT_SIZE),
        owner: TOKEN_PROGRAM_ID,
        data: encodeMint({ mintAuthority: null, supply: 0n, decimals: 6, freezeAuthority: null }),
        executable: false,
      });
    }
    const ata = associatedTokenAddress(owner, mint);
    const existing = this.getAccount(ata);
    const held = existing ? decodeTokenAccount(existing.data) : null;
    const before = held && held.ok ? held.value.amount : 0n;
    this.setTokenAccount(ata, owner, mint, before + amount);
    return ata;
  }

  /** A token account at any address (165-byte layout, rent-exempt). */
  setTokenAccount(address: string, owner: string, mint: string, amount: bigint): void {
    const data = encodeTokenAccount({ mint: new PublicKey(mint).toBytes(), owner: new PublicKey(owner).toBytes(), amount });
    this.setAccount(address, { lamports: this.rentExempt(data.length), owner: TOKEN_PROGRAM_ID, data, executable: false });
  }

  balance(address: string): bigint {
    const a = this.getAccount(address);
    if (!a) throw new Error(`${address} does not exist`);
    return new DataView(a.data.buffer, a.data.byteOffset).getBigUint64(TOKEN_ACCOUNT_OFFSETS.amount, true);
  }

  setBalance(address: string, amount: bigint): void {
    const a = this.getAccount(address)!;
    const data = a.data.slice();
    new DataView(data.buffer).setBigUint64(TOKEN_ACCOUNT_OFFSETS.amount, amount, true);
    this.setAccount(address, { ...a, data });
  }

  newUser(): Keypair {
    const k = Keypair.generate();
    this.svm.airdrop(k.publicKey.toBase58() as never, 10_000_000_000n as never);
    return k;
  }

  /**
   * One transaction in LiteSVM. Unless `model: false`, the same instruction first runs in the
   * TypeScript model (CpSwapProgram in a MemoryLedger holding copies of the instruction's
   * accounts), and the two must agree: the same error (or none), the same `Program log:` lines
   * of the cp-swap program itself, the same token balances afterwards.
   */
  async send(ixs: TransactionInstruction[], signers: Keypair[], opts: { model?: boolean } = {}): Promise<Outcome> {
    const model = opts.model === false || ixs.length !== 1 ? null : await this.runModel(ixs[0]!, signers);
    this.svm.expireBlockhash();
    const tx = new Transaction({ feePayer: signers[0]!.publicKey, recentBlockhash: String(this.svm.latestBlockhash()) }).add(...ixs);
    tx.sign(...signers);
    const decoded = getTransactionDecoder().decode(tx.serialize());
    const r = this.svm.sendTransaction(decoded as never) as TransactionMetadata | FailedTransactionMetadata;
    let out: Outcome;
    if (r instanceof FailedTransactionMetadata) {
      const meta = r.meta();
      out = { ok: false, logs: meta.logs(), units: meta.computeUnitsConsumed(), error: errorName(r) };
    } else {
      out = { ok: true, logs: r.logs(), units: r.computeUnitsConsumed(), error: null };
    }
    if (model) {
      const e = model.result.err?.InstructionError[1];
      const modelError = e === undefined ? null : typeof e === "string" ? e : `Custom:${e.Custom}`;
      expect(out.error, `the model says ${model.result.message}`).toBe(modelError);
      expect(ownLogs(out.logs, this.programId)).toEqual(ownLogs(model.result.logs, this.programId));
      for (const k of ixs[0]!.keys) {
        const address = k.pubkey.toBase58();
        const a = this.getAccount(address);
        if (a && a.owner === TOKEN_PROGRAM_ID && a.data.length === 165)
          expect(this.balance(address), `balance of ${address}`).toBe(model.ledger.tokenBalance(address));
      }
    }
    return out;
  }

  private async runModel(ix: TransactionInstruction, signers: Keypair[]) {
    const ledger = new MemoryLedger([new CpSwapProgram(this.programId)]);
    for (const address of new Set([...ix.keys.map((k) => k.pubkey.toBase58()), ...signers.map((s) => s.publicKey.toBase58())])) {
      const a = this.getAccount(address);
      if (a) ledger.accounts.set(address, a);
    }
    const result = await ledger.run(
      [ix],
      signers.map((s) => s.publicKey.toBase58()),
    );
    return { ledger, result };
  }
}

/** The `Program log:` lines a program wrote itself (depth 1), not those of the programs it invoked. */
function ownLogs(logs: readonly string[], programId: string): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const l of logs) {
    const invoke = /^Program (\w+) invoke \[\d+\]$/.exec(l);
    if (invoke) {
      stack.push(invoke[1]!);
      continue;
    }
    if (/^Program \w+ (success|failed: .*)$/.test(l)) {
      stack.pop();
      continue;
    }
    if (stack.length === 1 && stack[0] === programId && l.startsWith("Program log: ")) out.push(l);
  }
  return out;
}

function errorName(r: FailedTransactionMetadata): string {
  const e = r.err() as unknown as { err?: () => unknown; index?: number };
  if (typeof e === "object" && e !== null && typeof e.err === "function") {
    const inner = e.err() as unknown;
    if (typeof inner === "object" && inner !== null && "code" in inner) return `Custom:${(inner as { code: number }).code}`;
    return INSTRUCTION_ERROR_NAMES[inner as number] ?? `InstructionError:${String(inner)}`;
  }
  return `TransactionError:${String(e)}`;
}

// litesvm's InstructionErrorFieldless (a const enum: not importable at run time)
const INSTRUCTION_ERROR_NAMES: Record<number, string> = {
  0: "GenericError",
  1: "InvalidArgument",
  2: "InvalidInstructionData",
  3: "InvalidAccountData",
  6: "IncorrectProgramId",
  7: "MissingRequiredSignature",
  9: "UninitializedAccount",
  15: "ReadonlyDataModified",
  19: "NotEnoughAccountKeys",
  31: "MissingAccount",
  36: "ComputationalBudgetExceeded",
  37: "PrivilegeEscalation",
  39: "ProgramFailedToComplete",
};

// ------------------------------------------------------------------ fixtures

interface Pair {
  w: World;
  x: string;
  y: string;
  pool: string;
  user: Keypair;
  /** user's token accounts */
  ux: string;
  uy: string;
}

/** A pool of (x, y) with these reserves, and a user holding `held` of each mint. */
function pair(w: World, rx: bigint, ry: bigint, held = 1_000_000_000_000n): Pair {
  const x = Keypair.generate().publicKey.toBase58();
  const y = Keypair.generate().publicKey.toBase58();
  const info = createCpPool(w, x, y, rx, ry, w.programId);
  const user = w.newUser();
  const ux = w.mintTo(user.publicKey.toBase58(), x, held);
  const uy = w.mintTo(user.publicKey.toBase58(), y, held);
  return { w, x, y, pool: info.pool, user, ux, uy };
}

function swapIx(
  p: Pair,
  amountIn: bigint,
  minAmountOut: bigint,
  opts: { reverse?: boolean; destination?: string; source?: string } = {},
): TransactionInstruction {
  const [inputMint, outputMint] = opts.reverse ? [p.y, p.x] : [p.x, p.y];
  return cpSwapInstruction({
    user: p.user.publicKey.toBase58(),
    inputMint,
    outputMint,
    amountIn,
    minAmountOut,
    programId: p.w.programId,
    ...(opts.source ? { source: opts.source } : {}),
    ...(opts.destination ? { destination: opts.destination } : {}),
  });
}

/** The instruction with account `i` replaced. */
function withAccount(ix: TransactionInstruction, i: number, pubkey: string, flags: { isSigner?: boolean; isWritable?: boolean } = {}): TransactionInstruction {
  const keys = ix.keys.map((k, j) =>
    j === i ? { pubkey: new PublicKey(pubkey), isSigner: flags.isSigner ?? k.isSigner, isWritable: flags.isWritable ?? k.isWritable } : k,
  );
  return new TransactionInstruction({ programId: ix.programId, keys, data: ix.data });
}

function balances(p: Pair): bigint[] {
  return [cpVaultAddress(p.pool, p.x), cpVaultAddress(p.pool, p.y), p.ux, p.uy].map((a) => p.w.balance(a));
}

function errorLog(o: Outcome, name: string): void {
  expect(o.logs).toContain(`Program log: Error: ${name}`);
}

// ------------------------------------------------------------------ tests

const built = existsSync(SO);

describe.skipIf(!built)("cp-swap SBF program in LiteSVM", () => {
  let w: World;
  beforeAll(() => {
    // Any program id: the program takes its id from the input.
    w = new World(Keypair.generate().publicKey.toBase58());
  });

  it("swaps x → y: pays the constant-product output, moves the reserves by amountIn and amountOut, logs as the model", async () => {
    const p = pair(w, 1_000_000_000n, 5_000_000_000n);
    const amountIn = 12_345_678n;
    const out = expectedOut(amountIn, 1_000_000_000n, 5_000_000_000n);
    const before = balances(p);
    const o = await w.send([swapIx(p, amountIn, out)], [p.user]);
    expect(o.error).toBeNull();
    const after = balances(p);
    expect(after[0]! - before[0]!).toBe(amountIn);
    expect(before[1]! - after[1]!).toBe(out);
    expect(before[2]! - after[2]!).toBe(amountIn);
    expect(after[3]! - before[3]!).toBe(out);
    expect(o.logs).toContain("Program log: Instruction: Swap");
    expect(o.logs).toContain(`Program log: swap ${amountIn} ${p.x} -> ${out} ${p.y}`);
    expect(o.logs).toContain(`Program ${TOKEN_PROGRAM_ID} invoke [2]`);
    console.log(`cp-swap swap: ${o.units} CU for the whole transaction (the TypeScript model charged 24,000 for the instruction)`);
    expect(o.units).toBeLessThan(40_000n);
  });

  it("swaps y → x the other way through the same pool, and into a destination of another owner", async () => {
    const p = pair(w, 7_000_000n, 3_000_000n);
    const other = Keypair.generate().publicKey.toBase58();
    const dest = w.mintTo(other, p.x, 0n);
    const out = expectedOut(500_000n, 3_000_000n, 7_000_000n);
    const o = await w.send([swapIx(p, 500_000n, 1n, { reverse: true, destination: dest })], [p.user]);
    expect(o.error).toBeNull();
    expect(w.balance(dest)).toBe(out);
    expect(w.balance(cpVaultAddress(p.pool, p.y))).toBe(3_500_000n);
    expect(w.balance(cpVaultAddress(p.pool, p.x))).toBe(7_000_000n - out);
    expect(o.logs).toContain(`Program log: swap 500000 ${p.y} -> ${out} ${p.x}`);
  });

  it("logs mints with leading zero bytes and the largest key in web3.js's base58", async () => {
    const key = (bytes: number[]) => new PublicKey(Uint8Array.from(bytes)).toBase58();
    const random = (n: number) => Array.from(Keypair.generate().publicKey.toBytes().subarray(0, n));
    const mints = [
      key([...new Array(31).fill(0), 5]),
      key([0, 0, 0, ...random(29)]),
      key(new Array(32).fill(0xff)),
      key([0, ...new Array(31).fill(0xff)]),
      key([1, ...new Array(31).fill(0)]),
    ];
    for (let i = 0; i + 1 < mints.length; i++) {
      const [x, y] = [mints[i]!, mints[i + 1]!];
      const info = createCpPool(w, x, y, 1_000_000n, 2_000_000n, w.programId);
      const user = w.newUser();
      w.mintTo(user.publicKey.toBase58(), x, 10_000n);
      w.mintTo(user.publicKey.toBase58(), y, 0n);
      const out = expectedOut(10_000n, 1_000_000n, 2_000_000n);
      const o = await w.send(
        [cpSwapInstruction({ user: user.publicKey.toBase58(), inputMint: x, outputMint: y, amountIn: 10_000n, minAmountOut: out, programId: w.programId })],
        [user],
      );
      expect(o.error).toBeNull();
      expect(o.logs).toContain(`Program log: swap 10000 ${x} -> ${out} ${y}`);
      expect(info.pool).toBe(findCpPoolAddress(x, y, w.programId)[0]);
    }
  });

  it("SlippageToleranceExceeded (6001) one unit above the output, with nothing moved; the exact output as minimum lands", async () => {
    const p = pair(w, 2_000_000n, 9_000_000n);
    const out = expectedOut(100_000n, 2_000_000n, 9_000_000n);
    const before = balances(p);
    const o = await w.send([swapIx(p, 100_000n, out + 1n)], [p.user]);
    expect(o.error).toBe("Custom:6001");
    errorLog(o, "SlippageToleranceExceeded");
    expect(balances(p)).toEqual(before);
    expect((await w.send([swapIx(p, 100_000n, out)], [p.user])).error).toBeNull();
  });

  it("ZeroAmount (6004) and EmptyReserve (6000)", async () => {
    const p = pair(w, 1_000n, 1_000n);
    const z = await w.send([swapIx(p, 0n, 0n)], [p.user]);
    expect(z.error).toBe("Custom:6004");
    errorLog(z, "ZeroAmount");
    w.setBalance(cpVaultAddress(p.pool, p.y), 0n);
    const e = await w.send([swapIx(p, 10n, 0n)], [p.user]);
    expect(e.error).toBe("Custom:6000");
    errorLog(e, "EmptyReserve");
    w.setBalance(cpVaultAddress(p.pool, p.y), 1_000n);
    w.setBalance(cpVaultAddress(p.pool, p.x), 0n);
    expect((await w.send([swapIx(p, 10n, 0n)], [p.user])).error).toBe("Custom:6000");
  });

  it("malformed data is InvalidInstructionData and too few accounts NotEnoughAccountKeys, never a fault", async () => {
    const p = pair(w, 1_000_000n, 1_000_000n);
    const good = swapIx(p, 1_000n, 0n);
    const cases: Buffer[] = [
      Buffer.alloc(0),
      Buffer.from([1]),
      good.data.subarray(0, 16),
      Buffer.concat([good.data, Buffer.from([0])]),
      Buffer.from([2, ...good.data.subarray(1)]),
      Buffer.from([0, ...good.data.subarray(1)]),
    ];
    for (const data of cases) {
      const o = await w.send([new TransactionInstruction({ programId: good.programId, keys: good.keys, data })], [p.user]);
      expect(o.error, `data ${data.toString("hex")}`).toBe("InvalidInstructionData");
    }
    for (const n of [0, 1, 6]) {
      const o = await w.send([new TransactionInstruction({ programId: good.programId, keys: good.keys.slice(0, n), data: good.data })], [p.user]);
      expect(o.error, `${n} accounts`).toBe("NotEnoughAccountKeys");
    }
  });

  it("refuses a token program that is not SPL Token (IncorrectProgramId)", async () => {
    const p = pair(w, 1_000_000n, 1_000_000n);
    const o = await w.send([withAccount(swapIx(p, 1_000n, 0n), 6, "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb", { isWritable: false })], [p.user]);
    expect(o.error).toBe("IncorrectProgramId");
  });

  it("refuses a missing user signature (MissingRequiredSignature) with nothing moved", async () => {
    const p = pair(w, 1_000_000n, 1_000_000n);
    const before = balances(p);
    const ix = withAccount(swapIx(p, 1_000n, 0n), 3, p.user.publicKey.toBase58(), { isSigner: false });
    const o = await w.send([ix], [w.payer]);
    expect(o.error).toBe("MissingRequiredSignature");
    expect(balances(p)).toEqual(before);
  });

  it("a vault, source or destination passed read-only fails in the runtime with nothing moved", async () => {
    const p = pair(w, 1_000_000n, 1_000_000n);
    const before = balances(p);
    for (const i of [1, 2, 4, 5]) {
      const o = await w.send([withAccount(swapIx(p, 1_000n, 0n), i, swapIx(p, 1_000n, 0n).keys[i]!.pubkey.toBase58(), { isWritable: false })], [p.user]);
      expect(o.error, `account ${i}`).toBe("ReadonlyDataModified");
      expect(balances(p)).toEqual(before);
    }
  });

  describe("account substitutions are InvalidPool (6002) or InvalidTokenAccount (6003)", () => {
    let p: Pair;
    let good: TransactionInstruction;
    beforeAll(() => {
      p = pair(w, 5_000_000n, 5_000_000n);
      good = swapIx(p, 1_000n, 0n);
    });
    const refused = async (ix: TransactionInstruction, name: "InvalidPool" | "InvalidTokenAccount", opts: { model?: boolean } = {}) => {
      const before = balances(p);
      const o = await w.send([ix], [p.user], opts);
      expect(o.error).toBe(name === "InvalidPool" ? "Custom:6002" : "Custom:6003");
      errorLog(o, name);
      expect(balances(p)).toEqual(before);
    };

    it("a pool owned by another program", async () => {
      const real = w.getAccount(p.pool)!;
      w.setAccount(p.pool, { ...real, owner: TOKEN_PROGRAM_ID });
      try {
        await refused(good, "InvalidPool");
      } finally {
        w.setAccount(p.pool, real);
      }
      expect((await w.send([good], [p.user])).error).toBeNull();
    });

    it("a pool at another address (the same state copied, owned by the program)", async () => {
      const real = w.getAccount(p.pool)!;
      const fake = Keypair.generate().publicKey.toBase58();
      w.setAccount(fake, real);
      await refused(withAccount(good, 0, fake), "InvalidPool");
    });

    it("a look-alike pool: the same state owned by the program at another address, with its own associated-token vaults", async () => {
      const real = w.getAccount(p.pool)!;
      const fake = Keypair.generate().publicKey.toBase58();
      w.setAccount(fake, real);
      const fx = cpVaultAddress(fake, p.x);
      const fy = cpVaultAddress(fake, p.y);
      w.setTokenAccount(fx, fake, p.x, 1n);
      w.setTokenAccount(fy, fake, p.y, 10_000_000n);
      await refused(withAccount(withAccount(withAccount(good, 0, fake), 1, fx), 2, fy), "InvalidPool");
      expect([w.balance(fx), w.balance(fy)]).toEqual([1n, 10_000_000n]);
    });

    it("a pool whose stored magic is wrong, or of the wrong size (as the model)", async () => {
      const real = w.getAccount(p.pool)!;
      const magic = real.data.slice();
      magic[0] = 0x43;
      try {
        for (const data of [magic, new Uint8Array([...real.data, 0]), real.data.slice(0, CP_POOL_SIZE - 1)]) {
          w.setAccount(p.pool, { ...real, data });
          await refused(good, "InvalidPool");
        }
      } finally {
        w.setAccount(p.pool, real);
      }
    });

    it("a pool whose stored bump or mint order does not derive its address (beyond the model, which derives the address from the sorted mints and ignores the bump)", async () => {
      // Only setAccount can make these states; the program signs for the pool with exactly these seeds, so it must check them.
      const real = w.getAccount(p.pool)!;
      const bump = real.data.slice();
      bump[72] = (bump[72]! + 255) % 256;
      const swapped = real.data.slice();
      swapped.set(real.data.subarray(40, 72), 8);
      swapped.set(real.data.subarray(8, 40), 40);
      try {
        for (const data of [bump, swapped]) {
          w.setAccount(p.pool, { ...real, data });
          await refused(good, "InvalidPool", { model: false });
        }
      } finally {
        w.setAccount(p.pool, real);
      }
    });

    it("another pool of this program (other mints) with these vaults", async () => {
      const q = pair(w, 1_000n, 1_000n);
      await refused(withAccount(good, 0, q.pool), "InvalidPool");
    });

    it("a token account of the input mint owned by the pool PDA that is not its associated token account (a fake reserve)", async () => {
      const fake = Keypair.generate().publicKey.toBase58();
      w.setTokenAccount(fake, p.pool, p.x, 1n);
      await refused(withAccount(good, 1, fake), "InvalidPool");
      const fakeOut = Keypair.generate().publicKey.toBase58();
      w.setTokenAccount(fakeOut, p.pool, p.y, 10_000_000n);
      await refused(withAccount(good, 2, fakeOut), "InvalidPool");
    });

    it("the vault of the other mint, both vaults the same, the vaults swapped in place, a vault of another pool", async () => {
      const vx = cpVaultAddress(p.pool, p.x);
      const vy = cpVaultAddress(p.pool, p.y);
      await refused(withAccount(good, 1, vy), "InvalidPool");
      await refused(withAccount(good, 2, vx), "InvalidPool");
      // input vault of y and output vault of x while the source holds x
      await refused(withAccount(withAccount(good, 1, vy), 2, vx), "InvalidTokenAccount");
      const q = pair(w, 1_000n, 1_000n);
      await refused(withAccount(good, 1, cpVaultAddress(q.pool, q.x)), "InvalidPool");
      await refused(withAccount(good, 2, cpVaultAddress(q.pool, q.y)), "InvalidPool");
    });

    it("a vault that is the user's own token account, or not a token account at all", async () => {
      await refused(withAccount(good, 1, p.ux), "InvalidPool");
      await refused(withAccount(good, 2, p.uy), "InvalidPool");
      await refused(withAccount(good, 1, p.user.publicKey.toBase58()), "InvalidPool");
      const stray = Keypair.generate().publicKey.toBase58();
      await refused(withAccount(good, 2, stray), "InvalidPool");
    });

    it("an associated-token-address vault whose token owner is not the pool (beyond the model, which would take the user's input into the user's own account)", async () => {
      // Only setAccount can make this state (the ATA program creates the pool PDA's ATA owned by the pool).
      const vx = cpVaultAddress(p.pool, p.x);
      const real = w.getAccount(vx)!;
      w.setTokenAccount(vx, p.user.publicKey.toBase58(), p.x, w.balance(vx));
      try {
        await refused(good, "InvalidPool", { model: false });
      } finally {
        w.setAccount(vx, real);
      }
    });

    it("a source of the output mint, a destination of the input mint, a destination that is not a token account", async () => {
      await refused(withAccount(good, 4, p.uy), "InvalidTokenAccount");
      await refused(withAccount(good, 5, p.ux), "InvalidTokenAccount");
      await refused(withAccount(good, 5, p.user.publicKey.toBase58()), "InvalidTokenAccount");
      // the pool's state account as the destination
      await refused(withAccount(good, 5, p.pool), "InvalidTokenAccount");
    });

    it("someone else's source token account: the token program refuses the transfer (owner mismatch), nothing moves", async () => {
      const other = Keypair.generate().publicKey.toBase58();
      const theirs = w.mintTo(other, p.x, 1_000_000n);
      const before = balances(p);
      const o = await w.send([withAccount(good, 4, theirs)], [p.user]);
      expect(o.error).toBe("Custom:4"); // spl-token OwnerMismatch
      expect(balances(p)).toEqual(before);
      expect(w.balance(theirs)).toBe(1_000_000n);
    });
  });

  it("compute units of a swap across pools (the vaults' address checks search their bumps, so the cost depends on the pair)", async () => {
    const units: bigint[] = [];
    for (let i = 0; i < 24; i++) {
      const p = pair(w, 1_000_000_000n, 1_000_000_000n);
      const o = await w.send([swapIx(p, 1_000_000n, 1n)], [p.user]);
      expect(o.error).toBeNull();
      units.push(o.units);
    }
    units.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    console.log(`cp-swap swap CU over ${units.length} pools: min ${units[0]}, median ${units[units.length >> 1]}, max ${units[units.length - 1]}`);
    expect(units[units.length - 1]).toBeLessThan(60_000n);
  });

  it("runs under the model's default program id with the instruction the local Jupiter API builds", async () => {
    const v = new World(CP_SWAP_PROGRAM_ID);
    const x = Keypair.generate().publicKey.toBase58();
    const y = Keypair.generate().publicKey.toBase58();
    const info = createCpPool(v, x, y, 40_000_000n, 10_000_000n);
    expect(info.pool).toBe(findCpPoolAddress(x, y)[0]);
    const user = v.newUser();
    v.mintTo(user.publicKey.toBase58(), x, 1_000_000n);
    v.mintTo(user.publicKey.toBase58(), y, 0n);
    const out = expectedOut(1_000_000n, 40_000_000n, 10_000_000n);
    const o = await v.send(
      [cpSwapInstruction({ user: user.publicKey.toBase58(), inputMint: x, outputMint: y, amountIn: 1_000_000n, minAmountOut: out })],
      [user],
    );
    expect(o.error).toBeNull();
    expect(v.balance(associatedTokenAddress(user.publicKey.toBase58(), y))).toBe(out);
  });

  it("exact at the edges of u64: output and minimum (= passes, +1 = SlippageToleranceExceeded) for extreme reserves and amounts", async () => {
    const cases: Array<[bigint, bigint, bigint]> = [
      [1n, 1n, 1n],
      [1n, 1n, U64_MAX],
      [U64_MAX - 1n, 1n, U64_MAX],
      [U64_MAX / 2n, U64_MAX / 2n, U64_MAX],
      [(1n << 63n) + 12345n, (1n << 62n) - 1n, U64_MAX - 7n],
      [1_000n, U64_MAX - 1_000n, U64_MAX],
      [U64_MAX - 1_000n, 1_000n, 1n],
      [0xdeadbeefcafebaben, 0x0123456789abcdefn, 0xfedcba9876543210n],
      [3n, 1_000n, 1_000_000n],
      [(1n << 32n) - 1n, (1n << 32n) + 1n, (1n << 53n) + 1n],
    ];
    const p = pair(w, 1n, 1n, 0n);
    const vx = cpVaultAddress(p.pool, p.x);
    const vy = cpVaultAddress(p.pool, p.y);
    for (const [amountIn, rIn, rOut] of cases) {
      const out = expectedOut(amountIn, rIn, rOut);
      expect(out).toBe(cpAmountOut(amountIn, rIn, rOut));
      w.setBalance(vx, rIn);
      w.setBalance(vy, rOut);
      w.setBalance(p.ux, amountIn);
      w.setBalance(p.uy, 0n);
      const label = `${amountIn} into (${rIn}, ${rOut})`;
      expect((await w.send([swapIx(p, amountIn, out + 1n)], [p.user])).error, label).toBe("Custom:6001");
      const o = await w.send([swapIx(p, amountIn, out)], [p.user]);
      expect(o.error, label).toBeNull();
      expect(w.balance(p.uy), label).toBe(out);
      expect(w.balance(vx), label).toBe(rIn + amountIn);
      expect(w.balance(vy), label).toBe(rOut - out);
    }
  });

  it("differential: a sequence of swaps both ways gives the outputs and reserves of the TypeScript model's cpAmountOut", async () => {
    let seed = 0x2545f4914f6cdd1dn;
    const rand = (bits: bigint): bigint => {
      seed ^= (seed << 13n) & U64_MAX;
      seed ^= seed >> 7n;
      seed ^= (seed << 17n) & U64_MAX;
      return seed & ((1n << bits) - 1n);
    };
    let rx = 3_000_000_000_000n;
    let ry = 250_000_000_000n;
    const p = pair(w, rx, ry, 1n << 60n);
    const outs: bigint[] = [];
    const modelOuts: bigint[] = [];
    const units: bigint[] = [];
    for (let i = 0; i < 40; i++) {
      const reverse = rand(1n) === 1n;
      const amountIn = 1n + rand(BigInt(8 + (i % 32)));
      const [rIn, rOut] = reverse ? [ry, rx] : [rx, ry];
      const model = cpAmountOut(amountIn, rIn, rOut);
      modelOuts.push(model);
      const destination = reverse ? p.ux : p.uy;
      const before = w.balance(destination);
      const o = await w.send([swapIx(p, amountIn, 0n, { reverse })], [p.user]);
      expect(o.error, `swap ${i}`).toBeNull();
      units.push(o.units);
      outs.push(w.balance(destination) - before);
      if (reverse) {
        ry += amountIn;
        rx -= model;
      } else {
        rx += amountIn;
        ry -= model;
      }
    }
    expect(outs).toEqual(modelOuts);
    units.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    console.log(`cp-swap swap CU over ${units.length} swaps of one pool: ${units[0]} .. ${units[units.length - 1]}`);
    expect(w.balance(cpVaultAddress(p.pool, p.x))).toBe(rx);
    expect(w.balance(cpVaultAddress(p.pool, p.y))).toBe(ry);
  });
});

describe("cp-swap build", () => {
  it("the built program exists (npm run build:programs)", async () => {
    expect(existsSync(SO)).toBe(true);
    expect(readFileSync(SO).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  });
});
