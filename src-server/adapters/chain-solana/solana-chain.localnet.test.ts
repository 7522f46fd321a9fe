/**
 * SolanaChain against the local validator (src-localnet) over real JSON-RPC
 * with an unmodified web3.js Connection: real signatures and blockhashes, the
 * pool program verifying real Groth16 proofs (the recorded fixtures of
 * tests/support/groth16), and the validator's
 * fault switches for dropped transactions, expired blockhashes, a lagging
 * node and an outage.
 */
import { Keypair, PublicKey, type TransactionInstruction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { pubkeyToField } from "../../../src-shared/crypto/pubkey-field";
import { toHex } from "../../../src-shared/encoding/bytes";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { associatedTokenAddress, decodePoolEventLogs, depositInstruction, poolNullifierAddress } from "../../../src-shared/pool-program";
import type { LocalValidator } from "../../../src-localnet/validator";
import type { NetworkConfig } from "../../config/schema";
import type { WithdrawalSubmission } from "../../ports/chain";
import { Signer } from "../keys/keypair-file";
import type { WireCase } from "../../../tests/support/groth16/fixtures";
import type { SolanaConnection } from "./rpc";
import { SolanaChain } from "./solana-chain";
import { FEE, MINT, PROGRAM, RECIPIENTS, SOL, TEST_TIMING, recorder, startFixturePool, type FixturePool } from "../../../tests/support/localnet-pool";

let pool: FixturePool;
let hasher: FieldHasher;
let validator: LocalValidator;
let rpc: SolanaConnection;
let chain: SolanaChain;
let cases: Map<string, WireCase>;
let relayer: Signer;
let depositor: Keypair;
const logs: string[] = [];

const send = (instructions: TransactionInstruction[], signers: Keypair[]): Promise<string> => pool.send(instructions, signers);
/** Submits the labelled withdrawal under the given validator faults and expects it to land. */
const landsUnder = async (label: string, faults: Parameters<LocalValidator["faults"]["set"]>[0]) => {
  const w = withdrawal(label);
  validator.faults.set(faults);
  const { attempts, observer } = recorder();
  expect(await chain.submitWithdrawal(w, observer)).toMatchObject({ ok: true });
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
const withdrawal = (label: string): WithdrawalSubmission => pool.withdrawal(label);
const tokenBalance = (owner: string): Promise<bigint> => pool.balance(associatedTokenAddress(owner, MINT));

/** Transactions that touched the nullifier account: exactly one when it was spent once. */
async function nullifierHistory(w: WithdrawalSubmission): Promise<string[]> {
  const sigs = await rpc.getSignaturesForAddress(new PublicKey(poolNullifierAddress(PROGRAM, MINT, w.nullifierHash)), {}, "confirmed");
  return sigs.filter((s) => s.err === null).map((s) => s.signature);
}

beforeAll(async () => {
  pool = await startFixturePool();
  ({ hasher, validator, rpc, cases, relayer, depositor } = pool);
  for (const [label, recipient] of Object.entries(RECIPIENTS)) {
    // The recorded public inputs are the ones the program recomputes.
    expect(toHex(cases.get(label)!.signals[2]!)).toBe(toHex(pubkeyToField(hasher, recipient)));
  }
  chain = await SolanaChain.connect("devnet", network(), relayer, hasher, (l) => logs.push(l), { rpc, timing: TEST_TIMING });
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

describe("SolanaChain on the local validator", () => {
  it("starts only against a deployed program, and reads the pool", async () => {
    await expect(
      SolanaChain.connect("devnet", { ...network(), programId: encodeBase58(new Uint8Array(32).fill(3)) }, relayer, hasher, () => {}, { rpc }),
    ).rejects.toThrow(/does not exist on the cluster at http:\/\/127\.0\.0\.1:\d+/);
    expect(await chain.listPools()).toEqual([MINT]);
    const tree = await chain.treeAccount(MINT);
    expect(tree?.nextIndex).toBe(7);
    expect(toHex(tree!.root)).toBe(toHex(cases.get("leaf 0, 1 SOL")!.signals[0]!));
    expect(logs.join("\n")).toContain(relayer.address);
  });

  it("refuses InvalidProof, sending nothing, a proof made for another relayer or another fee (extDataHash)", async () => {
    const w = withdrawal("leaf 0, 1 SOL");
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
    expect([...a.attempts, ...b.attempts]).toHaveLength(0);
    expect(await chain.isNullifierSpent(MINT, w.nullifierHash)).toBe(false);
  });

  it("lands a withdrawal with a real proof: recipient paid, relayer paid the fee, nullifier spent, network fee recorded", async () => {
    const w = withdrawal("leaf 0, 1 SOL");
    const { attempts, observer } = recorder();
    expect(await chain.isNullifierSpent(MINT, w.nullifierHash)).toBe(false);
    const r = await chain.submitWithdrawal(w, observer);
    expect(r).toMatchObject({ ok: true });
    if (!r.ok) return;
    expect(attempts.map((a) => a.verdict)).toEqual(["pending", "landed"]);
    expect(attempts[1]!.signature).toBe(r.signature);
    expect(await chain.isNullifierSpent(MINT, w.nullifierHash)).toBe(true);
    expect(await tokenBalance(w.recipient)).toBe(w.depositSize - FEE);
    expect(await tokenBalance(relayer.address)).toBe(FEE);
    // The fee the attempt recorded is the fee the cluster charged.
    const tx = await rpc.getTransaction(r.signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
    expect(tx?.meta?.fee).toBe(attempts[1]!.networkFeeLamports);
    expect(decodePoolEventLogs(tx?.meta?.logMessages, PROGRAM).map((e) => e.name)).toEqual(["WithdrawEvent"]);

    // The same withdrawal again: refused by simulation, nothing sent.
    const again = recorder();
    expect(await chain.submitWithdrawal(w, again.observer)).toMatchObject({ ok: false, rejection: "NullifierAlreadySpent" });
    expect(again.attempts).toHaveLength(0);
  });

  it("rebroadcasts a dropped transaction, which lands once", async () => {
    const { w, attempts } = await landsUnder("leaf 5, 6 SOL", { dropTransactions: 1 });
    const final = attempts[attempts.length - 1]!;
    expect(attempts.filter((a) => a.verdict !== "pending")).toHaveLength(1);
    expect(final.verdict).toBe("landed");
    expect(final.broadcasts).toBeGreaterThanOrEqual(2);
    expect(await nullifierHistory(w)).toHaveLength(1);
    expect(await tokenBalance(w.recipient)).toBe(w.depositSize - FEE);
  });

  it("retries an expired blockhash with a fresh one; the nullifier is spent once", async () => {
    const { w, attempts } = await landsUnder("leaf 6, 7 SOL", { expireNext: 1 });
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
