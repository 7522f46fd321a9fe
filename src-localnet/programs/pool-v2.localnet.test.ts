/**
 * Protocol v2 on the local validator, with real signed
 * transactions and the recorded real proofs (tests/support/groth16):
 * every proof there is bound to the fixture relayer, its fee and (swap) its
 * output mint and minOut. Each attack below is sent with skipPreflight, so it
 * lands and fails on chain; the vault's balance is unchanged after each.
 */
import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
  type TransactionError,
} from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeLeaf, computePrecommitment } from "../../src-shared/crypto/protocol";
import { pubkeyToField } from "../../src-shared/crypto/pubkey-field";
import { toHex } from "../../src-shared/encoding/bytes";
import { bigIntToBytes32 } from "../../src-shared/encoding/field";
import {
  POOL_ERRORS,
  TOKEN_PROGRAM_ID,
  assertSwapOutInstruction,
  associatedTokenAddress,
  currentRoot,
  decodePoolEventLogs,
  decodeTreeAccount,
  depositInstruction,
  encodeTokenAccount,
  poolNullifierAddress,
  poolTreeAddress,
  poolVaultAddress,
  publicKeyBytes,
  withdrawInstruction,
  withdrawSwapInstruction,
  type PoolErrorName,
} from "../../src-shared/pool-program";
import { MerkleTree } from "../../src-server/core/merkle/tree";
import { FEE, MINT, NOTE, OUTPUT_MINT, PROGRAM, SOL, startFixturePool, type FixturePool } from "../../tests/support/localnet-pool";
import { ADDRESS_LOOKUP_TABLE_PROGRAM_ID, encodeLookupTable } from "./cp-swap-client";

const PLAIN = "leaf 0, 1 SOL";
const REACHABLE = "leaf 1, 2 SOL, swap min 1";
const UNREACHABLE = "leaf 2, 3 SOL, swap unreachable";

let pool: FixturePool;
let relayer: Keypair;

interface Landed {
  signature: string;
  err: TransactionError | null;
  logs: string[];
}

/** Sends a v0 transaction with skipPreflight (so a failing one lands and fails on chain) and reads its verdict. */
async function land(instructions: TransactionInstruction[], signers: Keypair[] = [relayer], lookupTables: AddressLookupTableAccount[] = []): Promise<Landed> {
  const { blockhash } = await pool.rpc.getLatestBlockhash("confirmed");
  const budget = ComputeBudgetProgram.setComputeUnitLimit({ units: 1_400_000 });
  const message = new TransactionMessage({
    payerKey: signers[0]!.publicKey,
    recentBlockhash: blockhash,
    instructions: [budget, ...instructions],
  }).compileToV0Message(lookupTables);
  const tx = new VersionedTransaction(message);
  tx.sign(signers);
  const signature = await pool.rpc.sendRawTransaction(tx.serialize(), { skipPreflight: true, maxRetries: 0 });
  for (let i = 0; i < 400; i++) {
    const status = (await pool.rpc.getSignatureStatuses([signature])).value[0];
    if (status?.confirmationStatus === "confirmed" || status?.confirmationStatus === "finalized") {
      const t = await pool.rpc.getTransaction(signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
      return { signature, err: t?.meta?.err ?? null, logs: t?.meta?.logMessages ?? [] };
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`transaction ${signature} did not land`);
}

const vault = (): Promise<bigint> => pool.balance(poolVaultAddress(PROGRAM, MINT));
/** The error of the index-th of our instructions (the compute-budget instruction comes first). */
const custom = (index: number, name: PoolErrorName) => ({ InstructionError: [index + 1, { Custom: POOL_ERRORS[name] }] });

function proofOf(label: string) {
  const w = pool.withdrawal(label);
  return { ...w, programId: PROGRAM, relayer: relayer.publicKey.toBase58(), amount: w.depositSize };
}

function withdraw(label: string, over: Partial<{ fee: bigint; relayer: string }> = {}): TransactionInstruction {
  return withdrawInstruction({ ...proofOf(label), ...over });
}

function withdrawSwap(label: string, over: Partial<{ minOut: bigint }> = {}): TransactionInstruction {
  return withdrawSwapInstruction({ ...proofOf(label), outputMint: OUTPUT_MINT, minOut: over.minOut ?? pool.minOut(label) });
}

const recipientOf = (label: string): string => pool.withdrawal(label).recipient;
const recipientOut = (label: string): string => associatedTokenAddress(recipientOf(label), OUTPUT_MINT);

/** The venue stands in as a token transfer of the relayer's own output tokens to the recipient's output account. */
function venue(label: string, amount: bigint): TransactionInstruction {
  return new TransactionInstruction({
    programId: new PublicKey(TOKEN_PROGRAM_ID),
    keys: [
      { pubkey: new PublicKey(associatedTokenAddress(relayer.publicKey.toBase58(), OUTPUT_MINT)), isSigner: false, isWritable: true },
      { pubkey: new PublicKey(recipientOut(label)), isSigner: false, isWritable: true },
      { pubkey: relayer.publicKey, isSigner: true, isWritable: true },
    ],
    data: Buffer.from([3, ...new Uint8Array(new BigUint64Array([amount]).buffer)]),
  });
}

function assertOut(label: string, requiredBalance: bigint, owner = recipientOf(label)): TransactionInstruction {
  return assertSwapOutInstruction({ programId: PROGRAM, recipient: owner, outputMint: OUTPUT_MINT, requiredBalance });
}

/** Fails on chain with `err`; nothing left the vault and the proof's nullifier is unspent. */
async function expectRefused(r: Landed, err: unknown, labels: string[]): Promise<void> {
  expect(r.err, r.logs.join("\n")).toEqual(err);
  expect(await vault()).toBe(vaultBefore);
  for (const label of labels)
    expect(await pool.rpc.getAccountInfo(new PublicKey(poolNullifierAddress(PROGRAM, MINT, pool.withdrawal(label).nullifierHash)))).toBeNull();
}

let vaultBefore: bigint;

beforeAll(async () => {
  pool = await startFixturePool();
  relayer = pool.relayerKey;
  // The relayer's own token accounts: the fee's, and the output tokens the stand-in venue pays from.
  await pool.validator.mintTo(relayer.publicKey.toBase58(), MINT, 0n);
  await pool.validator.mintTo(relayer.publicKey.toBase58(), OUTPUT_MINT, 100n * SOL);
  vaultBefore = await vault();
  expect(vaultBefore).toBe(28n * SOL);
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

describe("protocol v2 on the local validator: attacks fail on chain, the vault keeps its funds", () => {
  it("a valid proof resubmitted with a changed fee: InvalidProof", async () => {
    await expectRefused(await land([withdraw(PLAIN, { fee: FEE + 1n })]), custom(0, "InvalidProof"), [PLAIN]);
    await expectRefused(await land([withdraw(PLAIN, { fee: pool.withdrawal(PLAIN).depositSize })]), custom(0, "InvalidProof"), [PLAIN]);
  });

  it("the same proof signed by another relayer, who would receive the fee: InvalidProof", async () => {
    const thief = Keypair.generate();
    await pool.validator.airdrop(thief.publicKey.toBase58(), SOL);
    await pool.validator.mintTo(thief.publicKey.toBase58(), MINT, 0n);
    await expectRefused(await land([withdraw(PLAIN, { relayer: thief.publicKey.toBase58() })], [thief]), custom(0, "InvalidProof"), [PLAIN]);
    expect(await pool.balance(associatedTokenAddress(thief.publicKey.toBase58(), MINT))).toBe(0n);
  });

  it("a recipient token account owned by someone else: WrongTokenAccount", async () => {
    const ata = associatedTokenAddress(recipientOf(PLAIN), MINT);
    const data = encodeTokenAccount({ mint: publicKeyBytes(MINT), owner: publicKeyBytes(Keypair.generate().publicKey.toBase58()), amount: 0n });
    pool.validator.ledger.setAccount(ata, { lamports: pool.validator.ledger.rentExempt(165), owner: TOKEN_PROGRAM_ID, data, executable: false });
    try {
      await expectRefused(await land([withdraw(PLAIN)]), custom(0, "WrongTokenAccount"), [PLAIN]);
    } finally {
      pool.validator.ledger.setAccount(ata, null);
    }
  });

  it("withdraw_swap with a lower minOut than the proof's: InvalidProof", async () => {
    const r = await land([withdrawSwap(UNREACHABLE, { minOut: 1n }), venue(UNREACHABLE, SOL), assertOut(UNREACHABLE, 1n)]);
    await expectRefused(r, custom(0, "InvalidProof"), [UNREACHABLE]);
    await expectRefused(await land([withdrawSwap(REACHABLE, { minOut: 0n }), venue(REACHABLE, SOL), assertOut(REACHABLE, 0n)]), custom(0, "InvalidProof"), [
      REACHABLE,
    ]);
  });

  it("withdraw_swap without its assert_swap_out: SwapAssertMissing", async () => {
    await expectRefused(await land([withdrawSwap(REACHABLE), venue(REACHABLE, SOL)]), custom(0, "SwapAssertMissing"), [REACHABLE]);
  });

  it("withdraw_swap with assert_swap_out twice: SwapAssertDuplicated", async () => {
    const r = await land([withdrawSwap(REACHABLE), venue(REACHABLE, SOL), assertOut(REACHABLE, 1n), assertOut(REACHABLE, 1n)]);
    await expectRefused(r, custom(0, "SwapAssertDuplicated"), [REACHABLE]);
  });

  it("withdraw_swap whose assert_swap_out names another account (the relayer's own output account): SwapAssertWrongAccount", async () => {
    const r = await land([withdrawSwap(REACHABLE), venue(REACHABLE, SOL), assertOut(REACHABLE, 1n, relayer.publicKey.toBase58())]);
    await expectRefused(r, custom(0, "SwapAssertWrongAccount"), [REACHABLE]);
  });

  it("a second withdraw_swap in the same transaction (sharing one assert): DuplicateWithdrawSwap", async () => {
    // Two proofs do not fit in 1232 bytes without a lookup table for the accounts.
    const a = withdrawSwap(REACHABLE);
    const b = withdrawSwap(UNREACHABLE);
    const keys = [...new Set([...a.keys, ...b.keys].map((k) => k.pubkey.toBase58()))].filter((k) => k !== relayer.publicKey.toBase58());
    const tableKey = Keypair.generate().publicKey;
    const table = encodeLookupTable(keys);
    pool.validator.ledger.setAccount(tableKey.toBase58(), {
      lamports: pool.validator.ledger.rentExempt(table.length),
      owner: ADDRESS_LOOKUP_TABLE_PROGRAM_ID,
      data: table,
      executable: false,
    });
    const alt = new AddressLookupTableAccount({ key: tableKey, state: AddressLookupTableAccount.deserialize(table) });
    await expectRefused(await land([a, b, assertOut(REACHABLE, 1n)], [relayer], [alt]), custom(0, "DuplicateWithdrawSwap"), [REACHABLE, UNREACHABLE]);
  });

  it("an unreachable minOut (2^62): the swap cannot deliver it, SwapOutputTooLow, nothing moves", async () => {
    const relayerOut = associatedTokenAddress(relayer.publicKey.toBase58(), OUTPUT_MINT);
    const before = await pool.balance(relayerOut);
    const r = await land([withdrawSwap(UNREACHABLE), venue(UNREACHABLE, 100n * SOL), assertOut(UNREACHABLE, pool.minOut(UNREACHABLE))]);
    await expectRefused(r, custom(2, "SwapOutputTooLow"), [UNREACHABLE]);
    expect(await pool.balance(relayerOut)).toBe(before);
    expect(await pool.balance(recipientOut(UNREACHABLE))).toBe(0n);
  });
});

describe("protocol v2 on the local validator: what lands", () => {
  it("withdraw pays exactly amount − fee to the recipient and fee to the relayer", async () => {
    const w = pool.withdrawal(PLAIN);
    const relayerAta = associatedTokenAddress(relayer.publicKey.toBase58(), MINT);
    const feeBefore = await pool.balance(relayerAta);
    const r = await land([withdraw(PLAIN)]);
    expect(r.err, r.logs.join("\n")).toBeNull();
    expect(await pool.balance(associatedTokenAddress(w.recipient, MINT))).toBe(w.depositSize - FEE);
    expect((await pool.balance(relayerAta)) - feeBefore).toBe(FEE);
    expect(vaultBefore - (await vault())).toBe(w.depositSize);
  });

  it("withdraw_swap delivers at least minOut to the recipient, in the one transaction with its assert_swap_out", async () => {
    const w = pool.withdrawal(REACHABLE);
    const minOut = pool.minOut(REACHABLE);
    const vaultNow = await vault();
    const r = await land([withdrawSwap(REACHABLE), venue(REACHABLE, 3n), assertOut(REACHABLE, 0n + minOut)]);
    expect(r.err, r.logs.join("\n")).toBeNull();
    expect(await pool.balance(recipientOut(REACHABLE))).toBe(3n);
    expect(3n).toBeGreaterThanOrEqual(minOut);
    expect(vaultNow - (await vault())).toBe(w.depositSize);
    expect(decodePoolEventLogs(r.logs, PROGRAM)).toEqual([expect.objectContaining({ name: "WithdrawEvent", amount: w.depositSize, fee: FEE })]);
  });

  it("a deposit of 7 base units inserts the leaf Poseidon(precommitment, 7, mintField) on chain", async () => {
    const hasher = pool.hasher;
    const precommitment = computePrecommitment(hasher, bigIntToBytes32(424242n), bigIntToBytes32(777n));
    const leaf = hasher.hash([precommitment, bigIntToBytes32(7n), pubkeyToField(hasher, publicKeyBytes(MINT))]);
    const depositor = pool.depositor;
    const r = await land(
      [depositInstruction({ programId: PROGRAM, depositor: depositor.publicKey.toBase58(), mint: MINT, precommitment, amount: 7n, nonce: 700n, hasher })],
      [depositor],
    );
    expect(r.err, r.logs.join("\n")).toBeNull();
    expect(decodePoolEventLogs(r.logs, PROGRAM)).toEqual([expect.objectContaining({ name: "DepositEvent", leafIndex: 7, commitment: leaf, amount: 7n })]);
    // The on-chain root is the tree of the seven fixture leaves and this one.
    const info = await pool.rpc.getAccountInfo(new PublicKey(poolTreeAddress(PROGRAM, MINT)));
    const tree = decodeTreeAccount(new Uint8Array(info!.data));
    if (!tree.ok) throw new Error(tree.error);
    const reference = new MerkleTree(hasher);
    for (let i = 0; i < 7; i++) {
      const n = NOTE(i);
      reference.append(
        computeLeaf(hasher, computePrecommitment(hasher, bigIntToBytes32(n.nullifier), bigIntToBytes32(n.secret)), n.amount, publicKeyBytes(MINT)),
      );
    }
    reference.append(leaf);
    expect(tree.value.nextIndex).toBe(8);
    expect(toHex(currentRoot(tree.value))).toBe(toHex(reference.root()));
  });
});
