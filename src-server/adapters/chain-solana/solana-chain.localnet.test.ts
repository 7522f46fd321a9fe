/**
 * SolanaChain against the local validator (src-localnet) over real JSON-RPC
 * with an unmodified web3.js Connection: real signatures and blockhashes, the
 * pool program verifying real Groth16 proofs of protocol v3 (proved for this
 * pool by tests/support/localnet-pool.ts: any part of a note, and the change
 * note it leaves), and the validator's fault switches for dropped
 * transactions, expired blockhashes, a lagging node and an outage.
 */
import { Keypair, PublicKey, type TransactionInstruction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { toHex } from "../../../src-shared/encoding/bytes";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { associatedTokenAddress, depositInstruction, poolNullifierAddress } from "../../../src-shared/pool-program";
import { poolEventsOfResponse } from "../../../src-shared/pool-program/leaves";
import type { LocalValidator } from "../../../src-localnet/validator";
import { MerkleTree } from "../../core/merkle/tree";
import type { NetworkConfig } from "../../config/schema";
import type { WithdrawalSubmission } from "../../ports/chain";
import { Signer } from "../../../src-shared/node/keypair-file";
import type { SolanaConnection } from "./rpc";
import { SolanaChain } from "./solana-chain";
import { FEE, MINT, PROGRAM, SOL, TEST_TIMING, recipientOf, recorder, startFixturePool, type FixturePool } from "../../../tests/support/localnet-pool";

let pool: FixturePool;
let hasher: FieldHasher;
let validator: LocalValidator;
let rpc: SolanaConnection;
let chain: SolanaChain;
let relayer: Signer;
let depositor: Keypair;
const logs: string[] = [];

const send = (instructions: TransactionInstruction[], signers: Keypair[]): Promise<string> => pool.send(instructions, signers);
/** Proves the whole of note `i` to the label's recipient and submits it under the given validator faults; it must land. */
const landsUnder = async (i: number, label: string, faults: Parameters<LocalValidator["faults"]["set"]>[0]) => {
  const w = (await pool.prove(pool.notes[i]!, recipientOf(label))).submission;
  validator.faults.set(faults);
  const { attempts, observer } = recorder();
  const r = await chain.submitWithdrawal(w, observer);
  validator.faults.clear();
  expect(r).toMatchObject({ ok: true });
  return { w, attempts };
};
/** A deposit of the zero precommitment, which the pool cannot insert: a failed deposit to revert. */
const failedDeposit = (amount: bigint, nonce: bigint): Promise<string> =>
  send(
    [
      depositInstruction({
        programId: PROGRAM,
        depositor: depositor.publicKey.toBase58(),
        mint: MINT,
        precommitment: new Uint8Array(32),
        amount,
        nonce,
        hasher,
      }),
    ],
    [depositor],
  );
const network = (): NetworkConfig => pool.network();
const tokenBalance = (owner: string): Promise<bigint> => pool.balance(associatedTokenAddress(owner, MINT));

/** Transactions that touched the nullifier account: exactly one when it was spent once. */
async function nullifierHistory(w: WithdrawalSubmission): Promise<string[]> {
  const sigs = await rpc.getSignaturesForAddress(new PublicKey(poolNullifierAddress(PROGRAM, MINT, w.nullifierHash)), {}, "confirmed");
  return sigs.filter((s) => s.err === null).map((s) => s.signature);
}

/** The chain's leaves, as the indexer reads them, rebuild the tree account's root. */
async function expectTreeMatchesChain(): Promise<number> {
  const events = await pool.leafEvents();
  const tree = new MerkleTree(hasher);
  for (const e of events) {
    const appended = tree.append(e.commitment);
    expect(appended.ok).toBe(true);
  }
  const account = await chain.treeAccount(MINT);
  expect(account!.nextIndex).toBe(events.length);
  expect(toHex(tree.root())).toBe(toHex(account!.root));
  return events.length;
}

beforeAll(async () => {
  pool = await startFixturePool();
  ({ hasher, validator, rpc, relayer, depositor } = pool);
  chain = await SolanaChain.connect("devnet", network(), relayer, hasher, (l) => logs.push(l), { rpc, timing: TEST_TIMING });
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

describe("SolanaChain on the local validator (protocol v3)", () => {
  it("starts only against a deployed program, and reads the pool", async () => {
    await expect(
      SolanaChain.connect("devnet", { ...network(), programId: encodeBase58(new Uint8Array(32).fill(3)) }, relayer, hasher, () => {}, { rpc }),
    ).rejects.toThrow(/does not exist on the cluster at http:\/\/127\.0\.0\.1:\d+/);
    expect(await chain.listPools()).toEqual([MINT]);
    expect(await expectTreeMatchesChain()).toBe(7);
    expect(logs.join("\n")).toContain(relayer.address);
  });

  it("refuses InvalidProof, sending nothing, a proof made for another relayer or another fee (extDataHash), or another change commitment", async () => {
    const w = (await pool.prove(pool.notes[0]!, recipientOf("note 0, part"), { amount: SOL / 4n })).submission;
    const otherKey = Keypair.generate();
    await validator.airdrop(otherKey.publicKey.toBase58(), 10n * SOL);
    const other = await SolanaChain.connect("devnet", network(), new Signer(new Uint8Array(otherKey.secretKey)), hasher, () => {}, {
      rpc,
      timing: TEST_TIMING,
    });
    const a = recorder();
    expect(await other.submitWithdrawal(w, a.observer)).toMatchObject({ ok: false, rejection: "InvalidProof" });
    const b = recorder();
    expect(await chain.submitWithdrawal({ ...w, fee: FEE + 1n }, b.observer)).toMatchObject({ ok: false, rejection: "InvalidProof" });
    const changed = w.changeCommitment.slice();
    changed[31] = changed[31]! ^ 1;
    expect(await chain.submitWithdrawal({ ...w, changeCommitment: changed }, b.observer)).toMatchObject({ ok: false, rejection: "InvalidProof" });
    // Zero (or not a field element): the program's InvalidInput, before the proof.
    expect(await chain.submitWithdrawal({ ...w, changeCommitment: new Uint8Array(32) }, b.observer)).toMatchObject({
      ok: false,
      rejection: "Failed",
      detail: expect.stringContaining("InvalidInput"),
    });
    expect([...a.attempts, ...b.attempts]).toHaveLength(0);
    expect(await chain.isNullifierSpent(MINT, w.nullifierHash)).toBe(false);
  });

  it("lands a partial withdrawal with a real proof, whose change leaf the chain inserts and reports; then the change note is spent the same way", async () => {
    const recipient = recipientOf("note 0, part");
    const first = await pool.prove(pool.notes[0]!, recipient, { amount: SOL / 4n });
    const w = first.submission;
    const { attempts, observer } = recorder();
    expect(await chain.isNullifierSpent(MINT, w.nullifierHash)).toBe(false);
    const r = await chain.submitWithdrawal(w, observer);
    expect(r).toEqual({ ok: true, signature: expect.any(String), changeLeafIndex: 7 });
    if (!r.ok) return;
    expect(attempts.map((a) => a.verdict)).toEqual(["pending", "landed"]);
    expect(attempts[1]!.signature).toBe(r.signature);
    expect(await chain.isNullifierSpent(MINT, w.nullifierHash)).toBe(true);
    // The recipient gets the part withdrawn less the fee; the rest stays in the pool as the change note.
    expect(await tokenBalance(recipient)).toBe(SOL / 4n - FEE);
    expect(await tokenBalance(relayer.address)).toBe(FEE);
    expect(first.change.amount).toBe(SOL - SOL / 4n);
    // The fee the attempt recorded is the fee the cluster charged.
    const tx = await rpc.getTransaction(r.signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
    expect(tx?.meta?.fee).toBe(attempts[1]!.networkFeeLamports);
    const events = poolEventsOfResponse(tx!, PROGRAM);
    expect(events.map((e) => e.name)).toEqual(["WithdrawEvent"]);
    expect(events[0]).toMatchObject({ changeLeafIndex: 7, changeCommitment: w.changeCommitment, amount: SOL / 4n, fee: FEE });
    const landed = new RegExp(`withdrawal ${r.signature} landed in slot \\d+ \\((\\d+) bytes\\); change leaf 7`).exec(logs.join("\n"));
    expect(landed).not.toBeNull();
    console.log(`withdraw (the relayer's and the recipient's token accounts created): ${landed![1]} bytes, ${tx?.meta?.computeUnitsConsumed} compute units`);
    expect(await expectTreeMatchesChain()).toBe(8);
    const leaves = await pool.leafEvents();
    expect(leaves[7]).toMatchObject({ kind: "change", leafIndex: 7, signature: r.signature, commitment: first.change.commitment });

    // The change note (0.75 SOL at leaf 7): half of it now, to another recipient.
    const second = await pool.prove(first.changeAt(7), recipientOf("note 0, change"), { amount: SOL / 2n });
    const r2 = await chain.submitWithdrawal(second.submission, recorder().observer);
    expect(r2).toMatchObject({ ok: true, changeLeafIndex: 8 });
    if (r2.ok) {
      const tx2 = await rpc.getTransaction(r2.signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
      console.log(
        `withdraw (the recipient's token account created by the program): ${tx2!.transaction.message.serialize().length + 65} bytes, ${tx2?.meta?.computeUnitsConsumed} compute units`,
      );
    }
    expect(await tokenBalance(recipientOf("note 0, change"))).toBe(SOL / 2n - FEE);
    expect(second.change.amount).toBe(SOL / 4n);
    expect(await expectTreeMatchesChain()).toBe(9);

    // The same withdrawal again: refused by simulation, nothing sent.
    const again = recorder();
    expect(await chain.submitWithdrawal(w, again.observer)).toMatchObject({ ok: false, rejection: "NullifierAlreadySpent" });
    expect(again.attempts).toHaveLength(0);
  });

  it("a whole withdrawal inserts a change leaf of value 0 all the same", async () => {
    const p = await pool.prove(pool.notes[1]!, recipientOf("note 1, whole"));
    expect(p.change.amount).toBe(0n);
    const r = await chain.submitWithdrawal(p.submission, recorder().observer);
    expect(r).toMatchObject({ ok: true, changeLeafIndex: 9 });
    expect(await tokenBalance(recipientOf("note 1, whole"))).toBe(2n * SOL - FEE);
    expect(await expectTreeMatchesChain()).toBe(10);
  });

  it("rebroadcasts a dropped transaction, which lands once", async () => {
    const { w, attempts } = await landsUnder(5, "note 5", { dropTransactions: 1 });
    const final = attempts[attempts.length - 1]!;
    expect(attempts.filter((a) => a.verdict !== "pending")).toHaveLength(1);
    expect(final.verdict).toBe("landed");
    expect(final.broadcasts).toBeGreaterThanOrEqual(2);
    expect(await nullifierHistory(w)).toHaveLength(1);
    expect(await tokenBalance(w.recipient)).toBe(w.depositSize - FEE);
  });

  it("retries an expired blockhash with a fresh one; the nullifier is spent once", async () => {
    const { w, attempts } = await landsUnder(6, "note 6", { expireNext: 1 });
    const verdicts = attempts.filter((a) => a.verdict !== "pending");
    expect(verdicts.map((a) => a.verdict)).toEqual(["expired", "landed"]);
    expect(verdicts[0]!.blockhash).not.toBe(verdicts[1]!.blockhash);
    // The expired transaction is nowhere in history; the nullifier account was written once.
    const expired = await rpc.getSignatureStatuses([verdicts[0]!.signature], { searchTransactionHistory: true });
    expect(expired.value[0]).toBeNull();
    expect(await nullifierHistory(w)).toEqual([verdicts[1]!.signature]);
    expect(await tokenBalance(w.recipient)).toBe(w.depositSize - FEE);
  });

  it("reverts a failed deposit once", async () => {
    const before = await tokenBalance(depositor.publicKey.toBase58());
    const sig = await failedDeposit(1234n, 100n);
    const d = await chain.findDeposit(sig);
    expect(d).toMatchObject({ signature: sig, mint: MINT, amount: 1234n, depositor: depositor.publicKey.toBase58(), status: "failed" });
    expect(await chain.revertDeposit({ depositSignature: sig, depositor: encodeBase58(new Uint8Array(32).fill(1)) })).toMatchObject({
      ok: false,
      rejection: "NotDepositor",
    });
    const r = await chain.revertDeposit({ depositSignature: sig, depositor: depositor.publicKey.toBase58() });
    expect(r).toMatchObject({ ok: true, amount: 1234n, mint: MINT });
    expect(await tokenBalance(depositor.publicKey.toBase58())).toBe(before);
    expect((await chain.findDeposit(sig))?.status).toBe("reverted");
    expect(await chain.revertDeposit({ depositSignature: sig, depositor: depositor.publicKey.toBase58() })).toMatchObject({
      ok: false,
      rejection: "NullifierSpent",
    });
  });

  it("health goes red while the validator is down or lagging, and green again", async () => {
    const green = await chain.health();
    expect(green.map((c) => [c.name, c.ok])).toEqual([
      ["chain:devnet", true],
      ["fee-payer:devnet", true],
    ]);
    expect(green[1]!.detail).toMatch(/≈ \d+ relays left/);

    validator.faults.set({ down: true });
    const down = await chain.health();
    expect(down.map((c) => c.ok)).toEqual([false, false]);
    expect(down[0]!.detail).toContain("unreachable");

    validator.faults.set({ down: false, lagSlots: 500 });
    const lagging = await chain.health();
    expect(lagging[0]).toMatchObject({ ok: false, detail: expect.stringContaining("500 slots behind") });

    validator.faults.clear();
    expect((await chain.health()).every((c) => c.ok)).toBe(true);
  });

  it("answers Unknown, not 'did not land', while no verdict is possible, and the transaction is in flight", async () => {
    const sig = await failedDeposit(55n, 101n);
    const impatient = new SolanaChain("devnet", network(), rpc, relayer, hasher, () => {}, {
      timing: { pollMs: 50, backoffMs: 50, maxBackoffMs: 100, unknownAfterMs: 1_000, preSendRetryMs: 1_000 },
    });
    // Sent (and dropped), but neither its status nor the block height can be read.
    validator.faults.set({ dropAll: true, rpcErrors: { methods: ["getSignatureStatuses", "getBlockHeight"], code: 503 } });
    const r = await impatient.revertDeposit({ depositSignature: sig, depositor: depositor.publicKey.toBase58() });
    validator.faults.clear();
    expect(r).toMatchObject({ ok: false, rejection: "Unknown" });
    // It did not land, so the deposit is still revertable (once).
    expect((await chain.findDeposit(sig))?.status).toBe("failed");
    expect(await chain.revertDeposit({ depositSignature: sig, depositor: depositor.publicKey.toBase58() })).toMatchObject({ ok: true, amount: 55n });
  });
});
