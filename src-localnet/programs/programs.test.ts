import { ComputeBudgetProgram, PublicKey, SystemProgram, type TransactionInstruction } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { ASSOCIATED_TOKEN_PROGRAM_ID, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID, associatedTokenAddress } from "../../src-shared/pool-program";
import { AssociatedTokenProgram } from "./associated-token";
import { ComputeBudgetProgram as ComputeBudget } from "./compute-budget";
import { TokenProgram } from "./spl-token";
import { SystemProgram as System } from "./system";
import { address, MemoryLedger, type TxResult } from "./test-kit";

const SOL = 1_000_000_000n;
const alice = address("alice");
const bob = address("bob");
const mint = address("mint");
const otherMint = address("other-mint");

function ledger(): MemoryLedger {
  const l = new MemoryLedger([new System(), new ComputeBudget(), new TokenProgram(), new AssociatedTokenProgram()]);
  l.airdrop(alice, 5n * SOL);
  return l;
}

const pk = (a: string) => new PublicKey(a);
const u64 = (v: bigint) => new Uint8Array(new BigUint64Array([v]).buffer);

function tokenTransfer(source: string, destination: string, owner: string, amount: bigint): TransactionInstruction {
  return {
    programId: pk(TOKEN_PROGRAM_ID),
    keys: [
      { pubkey: pk(source), isSigner: false, isWritable: true },
      { pubkey: pk(destination), isSigner: false, isWritable: true },
      { pubkey: pk(owner), isSigner: true, isWritable: false },
    ],
    data: Buffer.from([3, ...u64(amount)]),
  } as TransactionInstruction;
}

function transferChecked(source: string, m: string, destination: string, owner: string, amount: bigint, decimals: number): TransactionInstruction {
  return {
    programId: pk(TOKEN_PROGRAM_ID),
    keys: [
      { pubkey: pk(source), isSigner: false, isWritable: true },
      { pubkey: pk(m), isSigner: false, isWritable: false },
      { pubkey: pk(destination), isSigner: false, isWritable: true },
      { pubkey: pk(owner), isSigner: true, isWritable: false },
    ],
    data: Buffer.from([12, ...u64(amount), decimals]),
  } as TransactionInstruction;
}

function createAta(payer: string, wallet: string, m: string, tag: number[] = [1], at = associatedTokenAddress(wallet, m)): TransactionInstruction {
  return {
    programId: pk(ASSOCIATED_TOKEN_PROGRAM_ID),
    keys: [
      { pubkey: pk(payer), isSigner: true, isWritable: true },
      { pubkey: pk(at), isSigner: false, isWritable: true },
      { pubkey: pk(wallet), isSigner: false, isWritable: false },
      { pubkey: pk(m), isSigner: false, isWritable: false },
      { pubkey: pk(SYSTEM_PROGRAM_ID), isSigner: false, isWritable: false },
      { pubkey: pk(TOKEN_PROGRAM_ID), isSigner: false, isWritable: false },
    ],
    data: Buffer.from(tag),
  } as TransactionInstruction;
}

function expectOk(r: TxResult): void {
  if (r.err) throw new Error(`transaction failed: ${JSON.stringify(r.err)} ${r.message}\n${r.logs.join("\n")}`);
}

describe("system program", () => {
  it("Transfer (web3.js SystemProgram.transfer) moves lamports from the signer", async () => {
    const l = ledger();
    expectOk(await l.run([SystemProgram.transfer({ fromPubkey: pk(alice), toPubkey: pk(bob), lamports: SOL })], [alice]));
    expect(l.lamports(alice)).toBe(4n * SOL);
    expect(l.lamports(bob)).toBe(SOL);
  });

  it("Transfer refuses an unsigned sender (MissingRequiredSignature) and more than it holds (Custom 1, the real log line)", async () => {
    const l = ledger();
    const unsigned = SystemProgram.transfer({ fromPubkey: pk(alice), toPubkey: pk(bob), lamports: 1n });
    expect((await l.run([unsigned], [bob])).err).toEqual({ InstructionError: [0, "MissingRequiredSignature"] });
    const r = await l.run([SystemProgram.transfer({ fromPubkey: pk(alice), toPubkey: pk(bob), lamports: 6n * SOL })], [alice]);
    expect(r.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(r.logs).toContain(`Program log: Transfer: insufficient lamports ${5n * SOL}, need ${6n * SOL}`);
    expect(l.lamports(alice)).toBe(5n * SOL);
  });

  it("CreateAccount (web3.js SystemProgram.createAccount) allocates the space for the owner; an address in use fails with Custom 0", async () => {
    const l = ledger();
    const fresh = address("fresh");
    const ix = SystemProgram.createAccount({ fromPubkey: pk(alice), newAccountPubkey: pk(fresh), lamports: 2_000_000, space: 40, programId: pk(TOKEN_PROGRAM_ID) });
    expectOk(await l.run([ix], [alice, fresh]));
    expect(l.get(fresh)).toEqual({ lamports: 2_000_000n, owner: TOKEN_PROGRAM_ID, data: new Uint8Array(40), executable: false });
    const again = await l.run([ix], [alice, fresh]);
    expect(again.err).toEqual({ InstructionError: [0, { Custom: 0 }] });
    expect(again.logs.join("\n")).toMatch(/already in use/);
    expect((await l.run([SystemProgram.createAccount({ fromPubkey: pk(alice), newAccountPubkey: pk(address("x")), lamports: 1, space: 0, programId: pk(SYSTEM_PROGRAM_ID) })], [alice])).err).toEqual({
      InstructionError: [0, "MissingRequiredSignature"],
    });
  });
});

describe("compute budget program", () => {
  it("accepts SetComputeUnitLimit and SetComputeUnitPrice as no-ops of 150 units each, and refuses malformed data", async () => {
    const l = ledger();
    const r = await l.run([ComputeBudgetProgram.setComputeUnitLimit({ units: 300_000 }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 5 })], [alice]);
    expectOk(r);
    expect(r.unitsConsumed).toBe(300);
    const bad = { programId: ComputeBudgetProgram.programId, keys: [], data: Buffer.from([2, 1]) } as unknown as TransactionInstruction;
    expect((await l.run([bad], [alice])).err).toEqual({ InstructionError: [0, "InvalidInstructionData"] });
  });
});

describe("SPL token subset", () => {
  it("Transfer moves tokens between accounts of one mint when the owner signs", async () => {
    const l = ledger();
    const a = l.fundToken(alice, mint, 100n);
    const b = l.fundToken(bob, mint, 0n);
    const r = await l.run([tokenTransfer(a, b, alice, 40n)], [alice]);
    expectOk(r);
    expect(r.logs).toContain("Program log: Instruction: Transfer");
    expect([l.tokenBalance(a), l.tokenBalance(b)]).toEqual([60n, 40n]);
  });

  it("Transfer refuses: another owner (Custom 4), no signature, more than the balance (Custom 1), different mints (Custom 3)", async () => {
    const l = ledger();
    const a = l.fundToken(alice, mint, 100n);
    const b = l.fundToken(bob, mint, 0n);
    const c = l.fundToken(bob, otherMint, 0n);
    expect((await l.run([tokenTransfer(a, b, bob, 1n)], [bob])).err).toEqual({ InstructionError: [0, { Custom: 4 }] });
    const unsigned = tokenTransfer(a, b, alice, 1n);
    unsigned.keys[2]!.isSigner = false;
    expect((await l.run([unsigned], [bob])).err).toEqual({ InstructionError: [0, "MissingRequiredSignature"] });
    const poor = await l.run([tokenTransfer(a, b, alice, 101n)], [alice]);
    expect(poor.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(poor.logs).toContain("Program log: Error: insufficient funds");
    expect((await l.run([tokenTransfer(a, c, alice, 1n)], [alice])).err).toEqual({ InstructionError: [0, { Custom: 3 }] });
    expect(l.tokenBalance(a)).toBe(100n);
  });

  it("TransferChecked checks the mint's decimals (Custom 18 on a mismatch)", async () => {
    const l = ledger();
    l.createMint(mint, 6);
    const a = l.fundToken(alice, mint, 100n);
    const b = l.fundToken(bob, mint, 0n);
    expect((await l.run([transferChecked(a, mint, b, alice, 10n, 9)], [alice])).err).toEqual({ InstructionError: [0, { Custom: 18 }] });
    expectOk(await l.run([transferChecked(a, mint, b, alice, 10n, 6)], [alice]));
    expect(l.tokenBalance(b)).toBe(10n);
  });
});

describe("associated token account program", () => {
  it("CreateIdempotent creates the wallet's 165-byte token account at the PDA, rent paid by the payer, and accepts it when it exists", async () => {
    const l = ledger();
    l.createMint(mint, 6);
    const ata = associatedTokenAddress(bob, mint);
    expectOk(await l.run([createAta(alice, bob, mint)], [alice]));
    const acc = l.get(ata)!;
    expect(acc.owner).toBe(TOKEN_PROGRAM_ID);
    expect(acc.data.length).toBe(165);
    expect(acc.lamports).toBe(l.rentExempt(165));
    expect(encodeBase58(acc.data.subarray(0, 32))).toBe(mint);
    expect(encodeBase58(acc.data.subarray(32, 64))).toBe(bob);
    expect(l.tokenBalance(ata)).toBe(0n);
    expect(l.lamports(alice)).toBe(5n * SOL - l.rentExempt(165));
    expectOk(await l.run([createAta(alice, bob, mint)], [alice]));
    expect(l.lamports(alice)).toBe(5n * SOL - l.rentExempt(165));
  });

  it("Create (not idempotent) fails on an existing account; an address that is not the PDA fails with InvalidSeeds", async () => {
    const l = ledger();
    expectOk(await l.run([createAta(alice, bob, mint, [])], [alice]));
    expect((await l.run([createAta(alice, bob, mint, [0])], [alice])).err).toEqual({ InstructionError: [0, { Custom: 0 }] });
    expect((await l.run([createAta(alice, bob, mint, [1], associatedTokenAddress(alice, mint))], [alice])).err).toEqual({ InstructionError: [0, "InvalidSeeds"] });
  });
});
