import { PublicKey } from "@solana/web3.js";
import { beforeAll, describe, expect, it } from "vitest";
import type { FieldHasher } from "../crypto/hasher";
import { createPoseidonHasher } from "../crypto/poseidon-wasm";
import { computeLeaf } from "../crypto/protocol";
import { toHex as hex } from "../encoding/bytes";
import { FIELD_MODULUS, bigIntToBytes32 } from "../encoding/field";
import {
  associatedTokenAddress,
  commitmentMarkerAddress,
  depositReceiptAddress,
  eventAuthorityAddress,
  poolNullifierAddress,
  programDataAddress,
  poolTreeAddress,
  poolVaultAddress,
  revertMarkerAddress,
  swapEscrowAddress,
} from "./addresses";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  DEFAULT_POOL_PROGRAM_ID,
  MAX_PERMITTED_DATA_INCREASE,
  NATIVE_MINT,
  SYSTEM_PROGRAM_ID,
  SYSVAR_INSTRUCTIONS_ID,
  TOKEN_PROGRAM_ID,
  TREE_ACCOUNT_SIZE,
  TREE_INITIAL_SIZE,
} from "./constants";
import {
  assertSwapOutInstruction,
  decodePoolInstruction,
  depositCommitment,
  depositInstruction,
  encodePoolInstruction,
  EXTEND_POOL_CALLS,
  extendPoolInstruction,
  initializePoolInstruction,
  initializePoolInstructions,
  namePoolAccounts,
  POOL_INSTRUCTION_ACCOUNT_FLAGS,
  POOL_INSTRUCTION_ACCOUNTS,
  revertInstruction,
  withdrawInstruction,
  withdrawSwapInstruction,
  WITHDRAW_ACCOUNTS,
  WITHDRAW_CHANGE_COMMITMENT_OFFSET,
  type PoolInstruction,
} from "./index";

const fill = (b: number, n = 32): Uint8Array => new Uint8Array(n).fill(b);
const proof = Uint8Array.from({ length: 256 }, (_, i) => i);
const proofHex = hex(proof);

const PROGRAM = DEFAULT_POOL_PROGRAM_ID;
const MINT = NATIVE_MINT;
const RELAYER = new PublicKey(fill(0x0a)).toBase58();
const RECIPIENT = new PublicKey(fill(0x44)).toBase58();
const DEPOSITOR = new PublicKey(fill(0x0d)).toBase58();
const OUTPUT_MINT = new PublicKey(fill(0x55)).toBase58();

const withdrawData = {
  proof,
  root: fill(0x22),
  nullifierHash: fill(0x33),
  recipient: fill(0x44),
  amount: 1_000_000_000n,
  fee: 5000n,
  changeCommitment: fill(0x66),
};
const withdrawHex = proofHex + "22".repeat(32) + "33".repeat(32) + "44".repeat(32) + "00ca9a3b00000000" + "8813000000000000" + "66".repeat(32);

const golden: [PoolInstruction, string][] = [
  [{ name: "initialize_pool", minDeposit: 1000n }, "5fb40aac54aee828" + "e803000000000000"],
  [{ name: "deposit", precommitment: fill(0x11), amount: 1000n, nonce: 7n }, "f223c68952e1f2b6" + "11".repeat(32) + "e803000000000000" + "0700000000000000"],
  [{ name: "withdraw", ...withdrawData }, "b712469c946da122" + withdrawHex],
  [
    { name: "withdraw_swap", ...withdrawData, outputMint: fill(0x55), minOut: 123_456_789n },
    "efd51e38ddd139e0" + withdrawHex + "55".repeat(32) + "15cd5b0700000000",
  ],
  [{ name: "assert_swap_out", minOut: 1n, nullifierHash: fill(0x33) }, "ab98af20a93958fe" + "0100000000000000" + "33".repeat(32)],
  [{ name: "revert", nonce: 2n ** 64n - 1n }, "223f685605798242" + "ffffffffffffffff"],
  [{ name: "extend_pool" }, "8661fbdf30f30282"],
];

describe("instruction data", () => {
  it.each(golden)("%o encodes to the pinned bytes and decodes back", (ix, expected) => {
    const data = encodePoolInstruction(ix);
    expect(hex(data)).toBe(expected);
    expect(decodePoolInstruction(data)).toEqual({ ok: true, value: ix });
  });

  it("data sizes (v3): withdraw 408 bytes, withdraw_swap 448, assert_swap_out 48, deposit 56, initialize_pool 16", () => {
    expect(golden.map(([ix]) => encodePoolInstruction(ix).length)).toEqual([16, 56, 408, 448, 48, 16, 8]);
  });

  it("changeCommitment sits at offset 376 in withdraw and withdraw_swap alike", () => {
    expect(WITHDRAW_CHANGE_COMMITMENT_OFFSET).toBe(376);
    for (const ix of [golden[2]![0], golden[3]![0]]) {
      const data = encodePoolInstruction(ix);
      expect(hex(data.subarray(376, 408)), ix.name).toBe("66".repeat(32));
    }
  });

  it("v2-length data (withdraw 376, withdraw_swap 416, assert_swap_out 16 bytes) is refused", () => {
    for (const [i, v2] of [
      [2, 376],
      [3, 416],
      [4, 16],
    ] as const) {
      const data = encodePoolInstruction(golden[i]![0]);
      const name = golden[i]![0].name;
      expect(decodePoolInstruction(data.subarray(0, v2))).toEqual({ ok: false, error: `${name}: expected ${data.length} bytes of data, got ${v2}` });
    }
  });

  it("decode refuses truncated data, trailing bytes and unknown discriminators", () => {
    const deposit = encodePoolInstruction(golden[1]![0]);
    expect(decodePoolInstruction(deposit.subarray(0, 55))).toEqual({ ok: false, error: "deposit: expected 56 bytes of data, got 55" });
    expect(decodePoolInstruction(new Uint8Array([...deposit, 0]))).toEqual({ ok: false, error: "deposit: expected 56 bytes of data, got 57" });
    expect(decodePoolInstruction(new Uint8Array(3))).toEqual({ ok: false, error: "instruction data: truncated (3 bytes, not even a discriminator)" });
    expect(decodePoolInstruction(new Uint8Array(56))).toEqual({ ok: false, error: "instruction data: unknown discriminator" });
    const withdraw = encodePoolInstruction(golden[2]![0]);
    expect(decodePoolInstruction(withdraw.subarray(0, 407))).toEqual({ ok: false, error: "withdraw: expected 408 bytes of data, got 407" });
  });

  it("encode throws on a proof that is not 256 bytes and an amount that is not a u64", () => {
    expect(() => encodePoolInstruction({ name: "withdraw", ...withdrawData, proof: new Uint8Array(255) })).toThrow("proof: expected 256 bytes, got 255");
    expect(() => encodePoolInstruction({ name: "deposit", precommitment: fill(1), amount: -1n, nonce: 0n })).toThrow(RangeError);
    expect(() => encodePoolInstruction({ name: "assert_swap_out", minOut: 2n ** 64n, nullifierHash: fill(1) })).toThrow(RangeError);
    expect(() => encodePoolInstruction({ name: "assert_swap_out", minOut: 1n, nullifierHash: fill(1, 31) })).toThrow(
      "nullifierHash: expected 32 bytes, got 31",
    );
    expect(() => encodePoolInstruction({ name: "withdraw", ...withdrawData, changeCommitment: fill(1, 33) })).toThrow(
      "changeCommitment: expected 32 bytes, got 33",
    );
    expect(() => encodePoolInstruction({ name: "revert", nonce: 2n ** 64n })).toThrow(RangeError);
  });
});

describe("instruction builders", () => {
  let hasher: FieldHasher;
  beforeAll(async () => {
    hasher = await createPoseidonHasher();
  });
  const accountsOf = (ix: { keys: { pubkey: PublicKey; isSigner: boolean; isWritable: boolean }[] }) =>
    ix.keys.map((k) => [k.pubkey.toBase58(), k.isWritable ? "w" : "", k.isSigner ? "s" : ""].join(""));

  const eventCpi = [eventAuthorityAddress(PROGRAM), PROGRAM];

  it("initialize_pool: authority (w,s), mint, tree (w), vault (w), token program, system program, the program's ProgramData", () => {
    const ix = initializePoolInstruction({ programId: PROGRAM, authority: RELAYER, mint: MINT, minDeposit: 1000n });
    expect(ix.programId.toBase58()).toBe(PROGRAM);
    expect(accountsOf(ix)).toEqual([
      `${RELAYER}ws`,
      MINT,
      `${poolTreeAddress(PROGRAM, MINT)}w`,
      `${poolVaultAddress(PROGRAM, MINT)}w`,
      TOKEN_PROGRAM_ID,
      SYSTEM_PROGRAM_ID,
      programDataAddress(PROGRAM),
    ]);
    expect(hex(ix.data)).toBe(golden[0]![1]);
  });

  it("initializePoolInstructions: initialize_pool then 3 extend_pool paid by the authority, which grow the tree to its full size", () => {
    const ixs = initializePoolInstructions({ programId: PROGRAM, authority: RELAYER, mint: MINT, minDeposit: 1000n });
    expect(ixs.length).toBe(4);
    expect(EXTEND_POOL_CALLS).toBe(3);
    expect(TREE_INITIAL_SIZE + EXTEND_POOL_CALLS * MAX_PERMITTED_DATA_INCREASE).toBeGreaterThanOrEqual(TREE_ACCOUNT_SIZE);
    expect(hex(ixs[0]!.data)).toBe(golden[0]![1]);
    for (const ix of ixs.slice(1)) {
      expect(accountsOf(ix)).toEqual([`${RELAYER}ws`, MINT, `${poolTreeAddress(PROGRAM, MINT)}w`, SYSTEM_PROGRAM_ID]);
      expect(hex(ix.data)).toBe("8661fbdf30f30282");
    }
    expect(accountsOf(extendPoolInstruction({ programId: PROGRAM, payer: DEPOSITOR, mint: MINT }))[0]).toBe(`${DEPOSITOR}ws`);
  });

  it("deposit: the depositor's ATA, the receipt PDA of its nonce and the marker of the leaf the program computes, in the doc's order", () => {
    const precommitment = fill(0x11);
    const ix = depositInstruction({ programId: PROGRAM, depositor: DEPOSITOR, mint: MINT, precommitment, amount: 1000n, nonce: 7n, hasher });
    const leaf = computeLeaf(hasher, precommitment, 1000n, new PublicKey(MINT).toBytes());
    expect(accountsOf(ix)).toEqual([
      `${DEPOSITOR}ws`,
      MINT,
      `${poolTreeAddress(PROGRAM, MINT)}w`,
      `${poolVaultAddress(PROGRAM, MINT)}w`,
      `${associatedTokenAddress(DEPOSITOR, MINT)}w`,
      `${depositReceiptAddress(PROGRAM, MINT, DEPOSITOR, 7n)}w`,
      TOKEN_PROGRAM_ID,
      SYSTEM_PROGRAM_ID,
      `${commitmentMarkerAddress(PROGRAM, MINT, leaf)}w`,
      ...eventCpi,
    ]);
    expect(hex(ix.data)).toBe(golden[1]![1]);
  });

  it("depositCommitment: Poseidon(precommitment, amount, mintField) of a usable precommitment, null for zero or a value not below the modulus", () => {
    const p = bigIntToBytes32(12345n);
    expect(hex(depositCommitment(hasher, p, 7n, MINT)!)).toBe(hex(computeLeaf(hasher, p, 7n, new PublicKey(MINT).toBytes())));
    expect(hex(depositCommitment(hasher, p, 7n, MINT)!)).not.toBe(hex(depositCommitment(hasher, p, 8n, MINT)!));
    expect(depositCommitment(hasher, new Uint8Array(32), 7n, MINT)).toBeNull();
    expect(depositCommitment(hasher, bigIntToBytes32(FIELD_MODULUS), 7n, MINT)).toBeNull();
    // A precommitment that makes no leaf: the marker account is never touched; the builder names the precommitment's PDA.
    const ix = depositInstruction({ programId: PROGRAM, depositor: DEPOSITOR, mint: MINT, precommitment: new Uint8Array(32), amount: 7n, nonce: 1n, hasher });
    expect(ix.keys[8]!.pubkey.toBase58()).toBe(commitmentMarkerAddress(PROGRAM, MINT, new Uint8Array(32)));
  });

  it("withdraw: relayer pays; tree, vault, nullifier and both token accounts are writable", () => {
    const ix = withdrawInstruction({ programId: PROGRAM, relayer: RELAYER, mint: MINT, ...withdrawData, recipient: RECIPIENT });
    expect(accountsOf(ix)).toEqual([
      `${RELAYER}ws`,
      MINT,
      `${poolTreeAddress(PROGRAM, MINT)}w`,
      `${poolVaultAddress(PROGRAM, MINT)}w`,
      `${poolNullifierAddress(PROGRAM, MINT, fill(0x33))}w`,
      RECIPIENT,
      `${associatedTokenAddress(RECIPIENT, MINT)}w`,
      `${associatedTokenAddress(RELAYER, MINT)}w`,
      TOKEN_PROGRAM_ID,
      ASSOCIATED_TOKEN_PROGRAM_ID,
      SYSTEM_PROGRAM_ID,
      ...eventCpi,
    ]);
    expect(hex(ix.data)).toBe(golden[2]![1]);
  });

  it("withdraw_swap: withdraw's accounts but the event CPI's, the escrow PDA, the recipient's output ATA and mint, the Instructions sysvar, the event CPI's two, then the venue's accounts", () => {
    const venue = { pubkey: new PublicKey(fill(0x77)), isSigner: false, isWritable: true };
    const ix = withdrawSwapInstruction({
      programId: PROGRAM,
      relayer: RELAYER,
      mint: MINT,
      ...withdrawData,
      recipient: RECIPIENT,
      outputMint: OUTPUT_MINT,
      minOut: 123_456_789n,
      venueAccounts: [venue],
    });
    const keys = accountsOf(ix);
    expect(keys.slice(0, 11)).toEqual(
      accountsOf(withdrawInstruction({ programId: PROGRAM, relayer: RELAYER, mint: MINT, ...withdrawData, recipient: RECIPIENT })).slice(0, 11),
    );
    expect(keys.slice(11)).toEqual([
      `${swapEscrowAddress(PROGRAM, MINT, fill(0x33))}w`,
      `${associatedTokenAddress(RECIPIENT, OUTPUT_MINT)}w`,
      OUTPUT_MINT,
      SYSVAR_INSTRUCTIONS_ID,
      ...eventCpi,
      `${venue.pubkey.toBase58()}w`,
    ]);
    expect(hex(ix.data)).toBe(golden[3]![1]);
    const other = withdrawSwapInstruction({
      programId: PROGRAM,
      relayer: RELAYER,
      mint: MINT,
      ...withdrawData,
      recipient: RECIPIENT,
      outputMint: OUTPUT_MINT,
      minOut: 1n,
      escrow: DEPOSITOR,
    });
    expect(other.keys[11]!.pubkey.toBase58()).toBe(DEPOSITOR);
  });

  it("assert_swap_out: relayer (w,s), the pool's mint, the escrow of (mint, nullifierHash) (w), the recipient's output ATA (w), token program", () => {
    const assert = assertSwapOutInstruction({
      programId: PROGRAM,
      relayer: RELAYER,
      mint: MINT,
      recipient: RECIPIENT,
      outputMint: OUTPUT_MINT,
      minOut: 1n,
      nullifierHash: fill(0x33),
    });
    expect(accountsOf(assert)).toEqual([
      `${RELAYER}ws`,
      MINT,
      `${swapEscrowAddress(PROGRAM, MINT, fill(0x33))}w`,
      `${associatedTokenAddress(RECIPIENT, OUTPUT_MINT)}w`,
      TOKEN_PROGRAM_ID,
    ]);
    expect(hex(assert.data)).toBe(golden[4]![1]);
    const overridden = assertSwapOutInstruction({
      programId: PROGRAM,
      relayer: RELAYER,
      mint: MINT,
      recipient: RECIPIENT,
      outputMint: OUTPUT_MINT,
      minOut: 1n,
      nullifierHash: fill(0x33),
      escrow: DEPOSITOR,
      recipientOutputTokenAccount: OUTPUT_MINT,
    });
    expect(accountsOf(overridden).slice(2, 4)).toEqual([`${DEPOSITOR}w`, `${OUTPUT_MINT}w`]);
  });

  it("revert: signed by the authority; the tree is writable (totalDeposited); receipt and revert marker are the deposit's PDAs", () => {
    const revertNullifier = fill(0x66);
    const ix = revertInstruction({ programId: PROGRAM, authority: RELAYER, mint: MINT, depositor: DEPOSITOR, nonce: 7n, revertNullifier });
    expect(accountsOf(ix)).toEqual([
      `${RELAYER}ws`,
      MINT,
      `${poolTreeAddress(PROGRAM, MINT)}w`,
      `${poolVaultAddress(PROGRAM, MINT)}w`,
      DEPOSITOR,
      `${associatedTokenAddress(DEPOSITOR, MINT)}w`,
      `${depositReceiptAddress(PROGRAM, MINT, DEPOSITOR, 7n)}w`,
      `${revertMarkerAddress(PROGRAM, MINT, revertNullifier)}w`,
      TOKEN_PROGRAM_ID,
      SYSTEM_PROGRAM_ID,
      ...eventCpi,
    ]);
    expect(hex(ix.data)).toBe("223f685605798242" + "0700000000000000");
  });

  it("every named account has flags, and flags name no other account", () => {
    for (const [name, accounts] of Object.entries(POOL_INSTRUCTION_ACCOUNTS)) {
      const flags = POOL_INSTRUCTION_ACCOUNT_FLAGS[name as keyof typeof POOL_INSTRUCTION_ACCOUNT_FLAGS];
      expect(Object.keys(flags).sort(), name).toEqual([...accounts].sort());
    }
  });

  it("namePoolAccounts maps accounts by name, returns extras as remaining and refuses too few", () => {
    const addrs = WITHDRAW_ACCOUNTS.map((n) => `addr-${n}`);
    const named = namePoolAccounts("withdraw", [...addrs, "venue"]);
    expect(named.ok && named.value.named.nullifier).toBe("addr-nullifier");
    expect(named.ok && named.value.remaining).toEqual(["venue"]);
    expect(namePoolAccounts("withdraw", addrs.slice(1))).toEqual({ ok: false, error: "withdraw: expected 13 accounts, got 12" });
  });
});
