/**
 * Protocol v2 end to end inside the sandbox chain, with the recorded real
 * proofs (tests/support/groth16) and the real verifier: the seven
 * fixture notes are deposited as precommitments, the chain computes their
 * leaves, its root is the one the proofs were made against, and a proof lands
 * only on the terms it binds (the fixture relayer as the chain's signer, the
 * fixture fee, a swap's minOut).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signEd25519 } from "../../../src-shared/crypto/ed25519";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { computePrecommitment } from "../../../src-shared/crypto/protocol";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { toHex } from "../../../src-shared/encoding/bytes";
import { bigIntToBytes32 } from "../../../src-shared/encoding/field";
import { sandboxDepositMessage } from "../../../src-shared/messages";
import { vaultAddress } from "../../../src-shared/solana/pda";
import type { SwapQuote } from "../../core/swap/quote";
import type { WithdrawalSubmission } from "../../ports/chain";
import type { ProofVerifier } from "../../ports/proof-verifier";
import { Signer } from "../../../src-shared/node/keypair-file";
import { DurableDb } from "../storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../storage-sqljs/schema-migrations";
import { Groth16MclVerifier } from "../verifier-groth16/groth16-mcl";
import {
  FIXTURE_CASES,
  FIXTURE_FEE,
  FIXTURE_MINT,
  FIXTURE_NOTE,
  FIXTURE_OUTPUT_MINT,
  FIXTURE_RELAYER_SEED,
  loadFixtures,
  VKEY_PATH,
  type WireCase,
} from "../../../tests/support/groth16/fixtures";
import { SandboxChain } from "./sandbox-chain";

const PROGRAM = Uint8Array.from({ length: 32 }, (_, i) => i + 9);
const MINT = encodeBase58(FIXTURE_MINT);
const OUTPUT_MINT = encodeBase58(FIXTURE_OUTPUT_MINT);
const VAULT = vaultAddress(PROGRAM, FIXTURE_MINT);

let dir: string;
let db: DurableDb;
let hasher: FieldHasher;
let mcl: Groth16MclVerifier;
let verifier: ProofVerifier;
let chain: SandboxChain;
let cases: WireCase[];
const relayer = new Signer(nacl.sign.keyPair.fromSeed(FIXTURE_RELAYER_SEED).secretKey);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "sandbox-real-proofs-"));
  db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS });
  hasher = await createPoseidonHasher();
  mcl = await Groth16MclVerifier.fromFile(VKEY_PATH);
  verifier = { verify: async (proof, signals) => mcl.verify(proof, signals), close: async () => {} };
  cases = loadFixtures();
  chain = new SandboxChain("mainnet", db, hasher, relayer, PROGRAM, verifier);
  // The seven fixture notes, in order: note i holds (i + 1) SOL.
  for (let i = 0; i < 7; i++) {
    const n = FIXTURE_NOTE(i);
    const depositor = nacl.sign.keyPair();
    const wallet = encodeBase58(depositor.publicKey);
    const precommitment = computePrecommitment(hasher, bigIntToBytes32(n.nullifier), bigIntToBytes32(n.secret));
    await chain.airdrop(wallet, MINT, n.amount);
    const r = await chain.deposit({
      mint: MINT,
      mintBytes: FIXTURE_MINT,
      amount: n.amount,
      precommitment,
      wallet,
      walletBytes: depositor.publicKey,
      signature: signEd25519(sandboxDepositMessage("mainnet", MINT, n.amount, precommitment), depositor.secretKey),
    });
    if (!r.ok || r.value.leafIndex !== i) throw new Error(`fixture deposit ${i}: ${JSON.stringify(r)}`);
  }
});
afterAll(async () => {
  mcl?.close();
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const fixture = (label: string): { c: WireCase; submission: WithdrawalSubmission } => {
  const c = cases.find((x) => x.label === label);
  const spec = FIXTURE_CASES.find((x) => x.label === label);
  if (!c || !spec) throw new Error(`no fixture ${label}`);
  return {
    c,
    submission: {
      mint: MINT,
      mintBytes: FIXTURE_MINT,
      recipient: encodeBase58(spec.recipient),
      root: c.signals[0]!,
      nullifierHash: c.signals[1]!,
      proof: c.proof,
      depositSize: BigInt(c.snarkjsSignals[3]!),
      // The seventh signal (protocol v3): the change leaf the fixture's proof inserts.
      changeCommitment: c.signals[6]!,
      fee: BigInt(c.terms.fee),
      ...(spec.swap ? { swap: { outputMint: OUTPUT_MINT, minOut: spec.swap.minOut, quote: {} as SwapQuote } } : {}),
    },
  };
};
const snapshot = (recipient: string) => ({
  vault: chain.balance(VAULT, MINT),
  recipient: chain.balance(recipient, MINT),
  recipientOut: chain.balance(recipient, OUTPUT_MINT),
  relayer: chain.balance(relayer.address, MINT),
});

describe("SandboxChain with real v2 proofs", () => {
  it("computes the leaves the proofs were made against: its root is theirs", async () => {
    expect(FIXTURE_FEE).toBe(5_000_000n);
    const tree = await chain.treeAccount(MINT);
    for (const c of cases) expect(toHex(tree!.root), c.label).toBe(toHex(c.signals[0]!));
  });

  it("lands a proof on its own terms and pays the recipient exactly amount − fee, the relayer exactly fee", async () => {
    const { submission } = fixture("leaf 0, 1 SOL");
    const before = snapshot(submission.recipient);
    const r = await chain.submitWithdrawal(submission);
    expect(r).toMatchObject({ ok: true });
    expect(snapshot(submission.recipient)).toEqual({
      ...before,
      vault: before.vault - 1_000_000_000n,
      recipient: before.recipient + 1_000_000_000n - FIXTURE_FEE,
      relayer: before.relayer + FIXTURE_FEE,
    });
    expect(await chain.submitWithdrawal(submission)).toMatchObject({ ok: false, rejection: "NullifierAlreadySpent" });
  });

  it("refuses the proof with another fee, a larger amount, or through another relayer's chain, moving nothing; then lands it", async () => {
    const { submission } = fixture("leaf 5, 6 SOL");
    const otherRelayer = new SandboxChain("mainnet", db, hasher, new Signer(nacl.sign.keyPair().secretKey), PROGRAM, verifier);
    const before = snapshot(submission.recipient);
    const attempts: [string, () => ReturnType<SandboxChain["submitWithdrawal"]>][] = [
      ["a higher fee", () => chain.submitWithdrawal({ ...submission, fee: FIXTURE_FEE + 1n })],
      ["no fee", () => chain.submitWithdrawal({ ...submission, fee: 0n })],
      ["the whole note as fee", () => chain.submitWithdrawal({ ...submission, fee: submission.depositSize })],
      ["claiming 7 SOL from a 6 SOL note", () => chain.submitWithdrawal({ ...submission, depositSize: 7_000_000_000n })],
      ["another relayer signing", () => otherRelayer.submitWithdrawal(submission)],
    ];
    for (const [name, attempt] of attempts) {
      expect(await attempt(), name).toMatchObject({ ok: false, rejection: "InvalidProof" });
      expect(snapshot(submission.recipient), name).toEqual(before);
      expect(await chain.isNullifierSpent(MINT, submission.nullifierHash), name).toBe(false);
    }
    expect(await chain.submitWithdrawal(submission)).toMatchObject({ ok: true });
    expect(snapshot(submission.recipient)).toMatchObject({ recipient: before.recipient + 6_000_000_000n - FIXTURE_FEE, relayer: before.relayer + FIXTURE_FEE });
  });

  it("swaps amount − fee for at least the proof's minOut, or refuses SlippageExceeded atomically", async () => {
    await chain.swapPools.set(MINT, OUTPUT_MINT, 1_000_000_000_000n, 1_000_000_000_000n, 1);
    const unreachable = fixture("leaf 2, 3 SOL, swap unreachable").submission;
    const before = snapshot(unreachable.recipient);
    expect(await chain.submitWithdrawal(unreachable)).toMatchObject({ ok: false, rejection: "SlippageExceeded" });
    expect(snapshot(unreachable.recipient)).toEqual(before);
    expect(await chain.isNullifierSpent(MINT, unreachable.nullifierHash)).toBe(false);
    // Lowering the minimum to what the pool pays is another set of terms: the proof does not cover it.
    expect(await chain.submitWithdrawal({ ...unreachable, swap: { ...unreachable.swap!, minOut: 1n } })).toMatchObject({
      ok: false,
      rejection: "InvalidProof",
    });
    expect(snapshot(unreachable.recipient)).toEqual(before);

    const reachable = fixture("leaf 1, 2 SOL, swap min 1").submission;
    const b = snapshot(reachable.recipient);
    const r = await chain.submitWithdrawal(reachable);
    expect(r).toMatchObject({ ok: true, outAmount: expect.any(BigInt) });
    const out = r.ok ? r.outAmount! : 0n;
    expect(out >= 1n).toBe(true);
    expect(snapshot(reachable.recipient)).toEqual({
      vault: b.vault - 2_000_000_000n,
      recipient: b.recipient,
      recipientOut: b.recipientOut + out,
      relayer: b.relayer + FIXTURE_FEE,
    });
  });
});
