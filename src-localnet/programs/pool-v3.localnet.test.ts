/**
 * Protocol v3 on the local validator, with real signed transactions and real
 * proofs (tests/support/localnet-pool.ts), each bound to the pool's relayer,
 * FEE, a change commitment and (swap) an output mint and minOut. Each attack
 * below is sent with skipPreflight, so it lands and fails on chain; the vault
 * keeps its balance and the nullifier stays unspent. Then what lands: a
 * withdrawal inserts its change leaf, and a swap pays the recipient out of the
 * withdrawal's escrow only.
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
import { toHex } from "../../src-shared/encoding/bytes";
import { FIELD_MODULUS, bigIntToBytes32 } from "../../src-shared/encoding/field";
import {
  POOL_ERRORS,
  TOKEN_PROGRAM_ID,
  assertSwapOutInstruction,
  associatedTokenAddress,
  currentRoot,
  decodeTreeAccount,
  depositInstruction,
  encodeTokenAccount,
  poolNullifierAddress,
  poolTreeAddress,
  poolVaultAddress,
  publicKeyBytes,
  swapEscrowAddress,
  withdrawInstruction,
  withdrawSwapInstruction,
  type PoolErrorName,
} from "../../src-shared/pool-program";
import { poolEventsOfResponse } from "../../src-shared/pool-program/leaves";
import type { PoolEvent } from "../../src-shared/pool-program";
import { MerkleTree } from "../../src-server/core/merkle/tree";
import type { WithdrawalSubmission } from "../../src-server/ports/chain";
import { FEE, MINT, OUTPUT_MINT, PROGRAM, SOL, recipientOf, startFixturePool, type FixturePool } from "../../tests/support/localnet-pool";
import { ADDRESS_LOOKUP_TABLE_PROGRAM_ID, encodeLookupTable } from "./cp-swap-client";

let pool: FixturePool;
let relayer: Keypair;

interface Landed {
  signature: string;
  err: TransactionError | null;
  logs: string[];
  /** The pool's events (its self-CPIs). */
  events: PoolEvent[];
}

/**
 * A frozen lookup table of every account the instructions name but the
 * signers and the invoked programs (set on the ledger): v3's instructions
 * with the escrow do not fit in 1232 bytes without one, as a relay's swap
 * uses the route's table.
 */
function tableFor(instructions: TransactionInstruction[], signers: Keypair[]): AddressLookupTableAccount {
  const skip = new Set([...signers.map((k) => k.publicKey.toBase58()), ...instructions.map((i) => i.programId.toBase58())]);
  const keys = [...new Set(instructions.flatMap((i) => i.keys.map((k) => k.pubkey.toBase58())))].filter((k) => !skip.has(k));
  const tableKey = Keypair.generate().publicKey;
  const table = encodeLookupTable(keys);
  pool.validator.ledger.setAccount(tableKey.toBase58(), {
    lamports: pool.validator.ledger.rentExempt(table.length),
    owner: ADDRESS_LOOKUP_TABLE_PROGRAM_ID,
    data: table,
    executable: false,
  });
  return new AddressLookupTableAccount({ key: tableKey, state: AddressLookupTableAccount.deserialize(table) });
}

/** Sends a v0 transaction with skipPreflight (so a failing one lands and fails on chain) and reads its verdict. */
async function land(instructions: TransactionInstruction[], signers: Keypair[] = [relayer], opts: { computeBudget?: boolean } = {}): Promise<Landed> {
  const { blockhash } = await pool.rpc.getLatestBlockhash("confirmed");
  const budget = ComputeBudgetProgram.setComputeUnitLimit({ units: 1_400_000 });
  const message = new TransactionMessage({
    payerKey: signers[0]!.publicKey,
    recentBlockhash: blockhash,
    instructions: opts.computeBudget === false ? instructions : [budget, ...instructions],
  }).compileToV0Message([tableFor(instructions, signers)]);
  const tx = new VersionedTransaction(message);
  tx.sign(signers);
  const signature = await pool.rpc.sendRawTransaction(tx.serialize(), { skipPreflight: true, maxRetries: 0 });
  for (let i = 0; i < 400; i++) {
    const status = (await pool.rpc.getSignatureStatuses([signature])).value[0];
    if (status?.confirmationStatus === "confirmed" || status?.confirmationStatus === "finalized") {
      const t = await pool.rpc.getTransaction(signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
      // Events are the program's self-CPIs since issue 25 (no log limit drops them), read as the indexer reads them.
      return { signature, err: t?.meta?.err ?? null, logs: t?.meta?.logMessages ?? [], events: t ? poolEventsOfResponse(t, PROGRAM) : [] };
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`transaction ${signature} did not land`);
}

const vault = (): Promise<bigint> => pool.balance(poolVaultAddress(PROGRAM, MINT));
/** The error of the index-th of our instructions (the compute-budget instruction comes first). */
const custom = (index: number, name: PoolErrorName) => ({ InstructionError: [index + 1, { Custom: POOL_ERRORS[name] }] });

/** The proved withdrawals: part of note 0, and three swaps (minOut 1, minOut 2^62, minOut 1 for the v2 hole). */
const CASES = {
  plain: { note: 0, amount: SOL / 2n },
  swap: { note: 1, swap: { outputMint: OUTPUT_MINT, minOut: 1n } },
  unreachable: { note: 2, swap: { outputMint: OUTPUT_MINT, minOut: 1n << 62n } },
  v2hole: { note: 3, swap: { outputMint: OUTPUT_MINT, minOut: 5n } },
} as const;
type Label = keyof typeof CASES;
const proved = new Map<Label, WithdrawalSubmission>();
const w = (label: Label): WithdrawalSubmission => proved.get(label)!;
const minOutOf = (label: Label): bigint => {
  const c = CASES[label];
  return "swap" in c ? c.swap.minOut : 0n;
};

function params(label: Label, over: Partial<{ fee: bigint; relayer: string; changeCommitment: Uint8Array; amount: bigint }> = {}) {
  const s = w(label);
  return {
    programId: PROGRAM,
    relayer: relayer.publicKey.toBase58(),
    mint: MINT,
    proof: s.proof,
    root: s.root,
    nullifierHash: s.nullifierHash,
    recipient: s.recipient,
    amount: s.depositSize,
    fee: s.fee,
    changeCommitment: s.changeCommitment,
    ...over,
  };
}

const withdraw = (label: Label, over: Parameters<typeof params>[1] = {}): TransactionInstruction => withdrawInstruction(params(label, over));
const withdrawSwap = (label: Label, over: Partial<{ minOut: bigint }> = {}): TransactionInstruction =>
  withdrawSwapInstruction({ ...params(label), outputMint: OUTPUT_MINT, minOut: over.minOut ?? minOutOf(label) });
const escrowOf = (label: Label): string => swapEscrowAddress(PROGRAM, MINT, w(label).nullifierHash);
const recipientOut = (label: Label): string => associatedTokenAddress(w(label).recipient, OUTPUT_MINT);
const relayerOut = (): string => associatedTokenAddress(relayer.publicKey.toBase58(), OUTPUT_MINT);

/** The venue stands in as a token transfer of the relayer's own output tokens (to the escrow, as a route pays). */
function venue(to: string, amount: bigint): TransactionInstruction {
  return new TransactionInstruction({
    programId: new PublicKey(TOKEN_PROGRAM_ID),
    keys: [
      { pubkey: new PublicKey(relayerOut()), isSigner: false, isWritable: true },
      { pubkey: new PublicKey(to), isSigner: false, isWritable: true },
      { pubkey: relayer.publicKey, isSigner: true, isWritable: true },
    ],
    data: Buffer.from([3, ...new Uint8Array(new BigUint64Array([amount]).buffer)]),
  });
}

function assertOut(label: Label, over: Partial<{ minOut: bigint; nullifierHash: Uint8Array; escrow: string; recipientOutputTokenAccount: string }> = {}) {
  return assertSwapOutInstruction({
    programId: PROGRAM,
    relayer: relayer.publicKey.toBase58(),
    mint: MINT,
    recipient: w(label).recipient,
    outputMint: OUTPUT_MINT,
    minOut: minOutOf(label),
    nullifierHash: w(label).nullifierHash,
    ...over,
  });
}

/** Fails on chain with `err`; nothing left the vault and the proofs' nullifiers are unspent. */
async function expectRefused(r: Landed, err: unknown, labels: Label[]): Promise<void> {
  expect(r.err, r.logs.join("\n")).toEqual(err);
  expect(await vault()).toBe(vaultBefore);
  for (const label of labels) expect(await pool.rpc.getAccountInfo(new PublicKey(poolNullifierAddress(PROGRAM, MINT, w(label).nullifierHash)))).toBeNull();
}

let vaultBefore: bigint;

beforeAll(async () => {
  pool = await startFixturePool();
  relayer = pool.relayerKey;
  // The relayer's own token accounts: the fee's, and the output tokens the stand-in venue pays from.
  await pool.validator.mintTo(relayer.publicKey.toBase58(), MINT, 0n);
  await pool.validator.mintTo(relayer.publicKey.toBase58(), OUTPUT_MINT, 100n * SOL);
  for (const [label, c] of Object.entries(CASES) as [Label, (typeof CASES)[Label]][]) {
    const p = await pool.prove(pool.notes[c.note]!, recipientOf(`pool-v3 ${label}`), {
      ...("amount" in c ? { amount: c.amount } : {}),
      ...("swap" in c ? { swap: c.swap } : {}),
    });
    proved.set(label, p.submission);
  }
  vaultBefore = await vault();
  expect(vaultBefore).toBe(28n * SOL);
}, 180_000);

afterAll(async () => {
  await pool?.close();
});

describe("protocol v3 on the local validator: attacks fail on chain, the vault keeps its funds", () => {
  it("a valid proof resubmitted with a changed fee: InvalidProof", async () => {
    await expectRefused(await land([withdraw("plain", { fee: FEE + 1n })]), custom(0, "InvalidProof"), ["plain"]);
    await expectRefused(await land([withdraw("plain", { fee: w("plain").depositSize })]), custom(0, "InvalidProof"), ["plain"]);
  });

  it("the same proof signed by another relayer, who would receive the fee: InvalidProof", async () => {
    const thief = Keypair.generate();
    await pool.validator.airdrop(thief.publicKey.toBase58(), SOL);
    await pool.validator.mintTo(thief.publicKey.toBase58(), MINT, 0n);
    await expectRefused(await land([withdraw("plain", { relayer: thief.publicKey.toBase58() })], [thief]), custom(0, "InvalidProof"), ["plain"]);
    expect(await pool.balance(associatedTokenAddress(thief.publicKey.toBase58(), MINT))).toBe(0n);
  });

  it("another change commitment than the proof's: InvalidProof; zero or not a field element, or amount 0: InvalidInput before the proof", async () => {
    const other = w("swap").changeCommitment;
    await expectRefused(await land([withdraw("plain", { changeCommitment: other })]), custom(0, "InvalidProof"), ["plain"]);
    await expectRefused(await land([withdraw("plain", { changeCommitment: new Uint8Array(32) })]), custom(0, "InvalidInput"), ["plain"]);
    await expectRefused(await land([withdraw("plain", { changeCommitment: bigIntToBytes32(FIELD_MODULUS) })]), custom(0, "InvalidInput"), ["plain"]);
    await expectRefused(await land([withdraw("plain", { amount: 0n, fee: 0n })]), custom(0, "InvalidInput"), ["plain"]);
  });

  it("a recipient token account owned by someone else: WrongTokenAccount", async () => {
    const ata = associatedTokenAddress(w("plain").recipient, MINT);
    const data = encodeTokenAccount({ mint: publicKeyBytes(MINT), owner: publicKeyBytes(Keypair.generate().publicKey.toBase58()), amount: 0n });
    pool.validator.ledger.setAccount(ata, { lamports: pool.validator.ledger.rentExempt(165), owner: TOKEN_PROGRAM_ID, data, executable: false });
    try {
      await expectRefused(await land([withdraw("plain")]), custom(0, "WrongTokenAccount"), ["plain"]);
    } finally {
      pool.validator.ledger.setAccount(ata, null);
    }
  });

  it("withdraw_swap with a lower minOut than the proof's: InvalidProof; assert_swap_out asking less than withdraw_swap's minOut: RequiredBalanceTooLow", async () => {
    const r = await land([withdrawSwap("unreachable", { minOut: 1n }), venue(escrowOf("unreachable"), SOL), assertOut("unreachable", { minOut: 1n })]);
    await expectRefused(r, custom(0, "InvalidProof"), ["unreachable"]);
    const lower = await land([withdrawSwap("v2hole"), venue(escrowOf("v2hole"), SOL), assertOut("v2hole", { minOut: 4n })]);
    await expectRefused(lower, custom(0, "RequiredBalanceTooLow"), ["v2hole"]);
  });

  it("withdraw_swap without its assert_swap_out: SwapAssertMissing; with it twice: SwapAssertDuplicated", async () => {
    await expectRefused(await land([withdrawSwap("swap"), venue(escrowOf("swap"), SOL)]), custom(0, "SwapAssertMissing"), ["swap"]);
    const r = await land([withdrawSwap("swap"), venue(escrowOf("swap"), SOL), assertOut("swap"), assertOut("swap")]);
    await expectRefused(r, custom(0, "SwapAssertDuplicated"), ["swap"]);
  });

  it("assert_swap_out naming another recipient account, another escrow or another withdrawal's nullifierHash: SwapAssertWrongAccount", async () => {
    for (const over of [
      { recipientOutputTokenAccount: relayerOut() },
      { escrow: escrowOf("unreachable") },
      { nullifierHash: w("unreachable").nullifierHash, escrow: escrowOf("swap") },
    ]) {
      const r = await land([withdrawSwap("swap"), venue(escrowOf("swap"), SOL), assertOut("swap", over)]);
      await expectRefused(r, custom(0, "SwapAssertWrongAccount"), ["swap"]);
    }
  });

  it("a second withdraw_swap in the same transaction (sharing one assert): DuplicateWithdrawSwap", async () => {
    const a = withdrawSwap("swap");
    const b = withdrawSwap("unreachable");
    // Two proofs fit in 1232 bytes only without the compute-budget instruction (three instructions get 600k units by default).
    await expectRefused(await land([a, b, assertOut("swap")], [relayer], { computeBudget: false }), custom(-1, "DuplicateWithdrawSwap"), [
      "swap",
      "unreachable",
    ]);
  });

  it("v2's hole is closed: the recipient paid minOut by another instruction while the route pays elsewhere does not satisfy assert_swap_out (SwapOutputTooLow)", async () => {
    // The route pays the relayer, and the relayer tops the recipient's output account up by minOut itself.
    const r = await land([withdrawSwap("v2hole"), venue(relayerOut(), SOL), venue(recipientOut("v2hole"), minOutOf("v2hole")), assertOut("v2hole")]);
    await expectRefused(r, custom(3, "SwapOutputTooLow"), ["v2hole"]);
  });

  it("an unreachable minOut (2^62): the swap cannot deliver it, SwapOutputTooLow, nothing moves", async () => {
    const before = await pool.balance(relayerOut());
    const r = await land([withdrawSwap("unreachable"), venue(escrowOf("unreachable"), 100n * SOL), assertOut("unreachable")]);
    await expectRefused(r, custom(2, "SwapOutputTooLow"), ["unreachable"]);
    expect(await pool.balance(relayerOut())).toBe(before);
    expect(await pool.balance(recipientOut("unreachable"))).toBe(0n);
    expect(await pool.rpc.getAccountInfo(new PublicKey(escrowOf("unreachable")))).toBeNull();
  });
});

describe("protocol v3 on the local validator: what lands", () => {
  it("withdraw pays exactly amount − fee to the recipient and fee to the relayer, and inserts the change leaf", async () => {
    const s = w("plain");
    const relayerAta = associatedTokenAddress(relayer.publicKey.toBase58(), MINT);
    const feeBefore = await pool.balance(relayerAta);
    const r = await land([withdraw("plain")]);
    expect(r.err, r.logs.join("\n")).toBeNull();
    expect(await pool.balance(associatedTokenAddress(s.recipient, MINT))).toBe(s.depositSize - FEE);
    expect((await pool.balance(relayerAta)) - feeBefore).toBe(FEE);
    expect(vaultBefore - (await vault())).toBe(s.depositSize);
    expect(r.events).toEqual([
      expect.objectContaining({ name: "WithdrawEvent", amount: s.depositSize, fee: FEE, changeCommitment: s.changeCommitment, changeLeafIndex: 7 }),
    ]);
  });

  it("withdraw_swap pays the recipient the escrow's whole balance (at least minOut, on top of what they held) and closes the escrow, rent back to the relayer", async () => {
    const s = w("swap");
    await pool.validator.mintTo(s.recipient, OUTPUT_MINT, 1_000n);
    const vaultNow = await vault();
    const lamports = await pool.rpc.getBalance(relayer.publicKey);
    const r = await land([withdrawSwap("swap"), venue(escrowOf("swap"), 3n), assertOut("swap")]);
    expect(r.err, r.logs.join("\n")).toBeNull();
    expect(await pool.balance(recipientOut("swap"))).toBe(1_003n);
    expect(vaultNow - (await vault())).toBe(s.depositSize);
    expect(await pool.rpc.getAccountInfo(new PublicKey(escrowOf("swap")))).toBeNull();
    // The relayer paid the nullifier's rent and the fee; the escrow's rent came back.
    const fee = (await pool.rpc.getTransaction(r.signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 }))!.meta!.fee;
    expect(lamports - (await pool.rpc.getBalance(relayer.publicKey))).toBe(fee + (await pool.rpc.getMinimumBalanceForRentExemption(81)));
    expect(r.events).toEqual([expect.objectContaining({ name: "WithdrawEvent", amount: s.depositSize, fee: FEE, changeLeafIndex: 8 })]);
  });

  it("a deposit of 7 base units inserts the leaf Poseidon(precommitment, 7, mintField) after the change leaves, and the tree account's root is the leaves' as read from history", async () => {
    const hasher = pool.hasher;
    const precommitment = computePrecommitment(hasher, bigIntToBytes32(424242n), bigIntToBytes32(777n));
    const leaf = computeLeaf(hasher, precommitment, 7n, publicKeyBytes(MINT));
    const depositor = pool.depositor;
    const r = await land(
      [depositInstruction({ programId: PROGRAM, depositor: depositor.publicKey.toBase58(), mint: MINT, precommitment, amount: 7n, nonce: 700n, hasher })],
      [depositor],
    );
    expect(r.err, r.logs.join("\n")).toBeNull();
    expect(r.events).toEqual([expect.objectContaining({ name: "DepositEvent", leafIndex: 9, commitment: leaf, amount: 7n })]);
    const info = await pool.rpc.getAccountInfo(new PublicKey(poolTreeAddress(PROGRAM, MINT)));
    const tree = decodeTreeAccount(new Uint8Array(info!.data));
    if (!tree.ok) throw new Error(tree.error);
    const leaves = await pool.leafEvents();
    expect(leaves.map((l) => l.kind)).toEqual([...Array(7).fill("deposit"), "change", "change", "deposit"]);
    expect(leaves[7]!.commitment).toEqual(w("plain").changeCommitment);
    expect(leaves[8]!.commitment).toEqual(w("swap").changeCommitment);
    const reference = new MerkleTree(hasher);
    for (const l of leaves) reference.append(l.commitment);
    expect(tree.value.nextIndex).toBe(10);
    expect(toHex(currentRoot(tree.value))).toBe(toHex(reference.root()));
  });
});
