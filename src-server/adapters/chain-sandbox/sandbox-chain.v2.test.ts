/**
 * Protocol v2 in the sandbox chain: the pool computes each leaf
 * from the amount it moved, and recomputes a withdrawal's six public signals
 * from its own signer and the transaction's arguments. No real proofs here:
 * the verifier is a stand-in that accepts a "proof" only for the exact signals
 * it was made for (a hash of them), which is what a Groth16 proof amounts to
 * from the chain's side, and records what it was asked.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import nacl from "tweetnacl";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { signEd25519 } from "../../../src-shared/crypto/ed25519";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { withdrawalPublicSignals, type RelayTerms } from "../../../src-shared/crypto/protocol";
import { pubkeyToField } from "../../../src-shared/crypto/pubkey-field";
import { encodeBase58, parsePublicKey } from "../../../src-shared/encoding/base58";
import { toHex } from "../../../src-shared/encoding/bytes";
import { bigIntToBytes32, FIELD_MODULUS } from "../../../src-shared/encoding/field";
import { sandboxDepositMessage } from "../../../src-shared/messages";
import { vaultAddress } from "../../../src-shared/solana/pda";
import type { SwapQuote } from "../../core/swap/quote";
import type { WithdrawalSubmission } from "../../ports/chain";
import type { ProofVerifier } from "../../ports/proof-verifier";
import { Signer } from "../keys/keypair-file";
import { DurableDb } from "../storage-sqljs/durable-db";
import { MIGRATIONS, SQL_FUNCTIONS } from "../storage-sqljs/schema-migrations";
import { SandboxChain } from "./sandbox-chain";

const PROGRAM = key("FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ");

function key(s: string): Uint8Array {
  const r = parsePublicKey(s);
  if (!r.ok) throw new Error(s);
  return r.value;
}
const newKey = (): { address: string; bytes: Uint8Array; secret: Uint8Array } => {
  const kp = nacl.sign.keyPair();
  return { address: encodeBase58(kp.publicKey), bytes: kp.publicKey, secret: kp.secretKey };
};
const field = (n: bigint): Uint8Array => bigIntToBytes32(n);

/** A "proof" valid for exactly these signals: 256 bytes derived from them. */
function proofFor(signals: readonly Uint8Array[]): Uint8Array {
  const h = createHash("sha512");
  for (const s of signals) h.update(s);
  const d = h.digest();
  const out = new Uint8Array(256);
  for (let i = 0; i < 4; i++) out.set(d, i * 64);
  return out;
}

/** Accepts a proof only for the signals it was made for; remembers every question. */
class BindingVerifier implements ProofVerifier {
  asked: Uint8Array[][] = [];
  async verify(proof: Uint8Array, publicSignals: readonly Uint8Array[]): Promise<boolean> {
    this.asked.push([...publicSignals]);
    return Buffer.from(proof).equals(Buffer.from(proofFor(publicSignals)));
  }
  async close(): Promise<void> {}
}

let dir: string;
let db: DurableDb;
let hasher: FieldHasher;
let chain: SandboxChain;
const verifier = new BindingVerifier();
const relayer = new Signer(nacl.sign.keyPair().secretKey);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "sandbox-v2-"));
  db = await DurableDb.open({ dir, migrations: MIGRATIONS, functions: SQL_FUNCTIONS });
  hasher = await createPoseidonHasher();
  chain = new SandboxChain("mainnet", db, hasher, relayer, PROGRAM, verifier);
});
afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  verifier.asked = [];
});

/** Each test gets its own mint, so its pool, vault and tree are its own. */
const freshMint = (): { mint: string; mintBytes: Uint8Array } => {
  const k = newKey();
  return { mint: k.address, mintBytes: k.bytes };
};
const precommitmentOf = (nullifier: bigint, secret: bigint): Uint8Array => hasher.hash([field(nullifier), field(secret)]);

async function deposit(mint: { mint: string; mintBytes: Uint8Array }, amount: bigint, precommitment: Uint8Array) {
  const w = newKey();
  await chain.airdrop(w.address, mint.mint, amount);
  const r = await chain.deposit({
    ...mint,
    amount,
    precommitment,
    wallet: w.address,
    walletBytes: w.bytes,
    signature: signEd25519(sandboxDepositMessage("mainnet", mint.mint, amount, precommitment), w.secret),
  });
  if (!r.ok) throw new Error(r.error);
  return { ...r.value, wallet: w.address };
}

describe("SandboxChain.deposit (protocol v2)", () => {
  it("inserts the leaf Poseidon(precommitment, amount it moved, mintField): a note of 7 cannot claim more", async () => {
    const m = freshMint();
    const pre = precommitmentOf(11n, 22n);
    const d = await deposit(m, 7n, pre);
    const expected = hasher.hash([pre, field(7n), pubkeyToField(hasher, m.mintBytes)]);
    expect(d).toMatchObject({ status: "indexed", leafIndex: 0 });
    expect(d.commitment && toHex(d.commitment)).toBe(toHex(expected));
    // The event the indexer reads carries the pool's leaf and the amount moved.
    const page = await chain.fetchDepositEvents(m.mint, null, 10);
    expect(page.events).toHaveLength(1);
    expect(toHex(page.events[0]!.commitment)).toBe(toHex(expected));
    expect(page.events[0]!.amount).toBe(7n);
    expect(chain.balance(vaultAddress(PROGRAM, m.mintBytes), m.mint)).toBe(7n);
    // A withdrawal claiming more needs the leaf of a larger amount, which the pool never inserted.
    for (const more of [8n, 1_000_000n]) expect(toHex(hasher.hash([pre, field(more), pubkeyToField(hasher, m.mintBytes)]))).not.toBe(toHex(expected));
    // The row keeps what the depositor sent and what the pool computed.
    const row = db.get<{ precommitment: Uint8Array; commitment: Uint8Array }>(
      "SELECT precommitment, commitment FROM sandbox_deposits WHERE network = ? AND signature = ?",
      ["mainnet", d.signature],
    );
    expect(row && [toHex(row.precommitment), toHex(row.commitment)]).toEqual([toHex(pre), toHex(expected)]);
  });

  it("checks the wallet's signature over the precommitment, not over a leaf", async () => {
    const m = freshMint();
    const w = newKey();
    await chain.airdrop(w.address, m.mint, 5n);
    const pre = precommitmentOf(1n, 2n);
    const leaf = hasher.hash([pre, field(5n), pubkeyToField(hasher, m.mintBytes)]);
    const r = await chain.deposit({
      ...m,
      amount: 5n,
      precommitment: pre,
      wallet: w.address,
      walletBytes: w.bytes,
      signature: signEd25519(sandboxDepositMessage("mainnet", m.mint, 5n, leaf), w.secret),
    });
    expect(r).toEqual({ ok: false, error: "InvalidSignature" });
    expect(sandboxDepositMessage("mainnet", m.mint, 5n, pre)).toBe(`Deposit: mainnet ${m.mint} 5 ${toHex(pre)}`);
    expect(chain.balance(w.address, m.mint)).toBe(5n);
  });

  it.each([
    ["zero", () => new Uint8Array(32)],
    ["equal to the field modulus", () => field(FIELD_MODULUS)],
    ["all 0xff", () => new Uint8Array(32).fill(255)],
  ])("leaves a precommitment %s failed with no commitment, the funds in the vault", async (_name, make) => {
    const m = freshMint();
    const d = await deposit(m, 100n, make());
    expect(d).toMatchObject({ status: "failed", leafIndex: null, commitment: null });
    expect(chain.balance(vaultAddress(PROGRAM, m.mintBytes), m.mint)).toBe(100n);
    expect(chain.balance(d.wallet, m.mint)).toBe(0n);
    expect((await chain.treeAccount(m.mint))?.nextIndex).toBe(0);
    expect((await chain.findDeposit(d.signature))?.status).toBe("failed");
  });

  it("fails a deposit whose leaf is already in the tree (answering that leaf), and inserts the same precommitment with another amount", async () => {
    const m = freshMint();
    const pre = precommitmentOf(3n, 4n);
    const first = await deposit(m, 100n, pre);
    const again = await deposit(m, 100n, pre);
    expect(first.status).toBe("indexed");
    expect(again).toMatchObject({ status: "failed", leafIndex: null });
    expect(again.commitment && toHex(again.commitment)).toBe(first.commitment && toHex(first.commitment));
    const other = await deposit(m, 101n, pre);
    expect(other).toMatchObject({ status: "indexed", leafIndex: 1 });
    expect(chain.balance(vaultAddress(PROGRAM, m.mintBytes), m.mint)).toBe(301n);
  });
});

describe("SandboxChain.submitWithdrawal (protocol v2)", () => {
  const DEPOSIT = 1_000_000n;
  const FEE = 25_000n;
  let nullifierSeed = 100n;

  /** A pool holding one deposit, and a withdrawal of it whose proof is bound to `proved` (default: the submission's own terms). */
  async function setUp(opts: { fee?: bigint; swap?: { outputMint: string; minOut: bigint } } = {}) {
    const m = freshMint();
    await deposit(m, DEPOSIT, precommitmentOf(nullifierSeed, 1n));
    const recipient = newKey().address;
    const tree = await chain.treeAccount(m.mint);
    const fee = opts.fee ?? FEE;
    const submission: WithdrawalSubmission = {
      mint: m.mint,
      mintBytes: m.mintBytes,
      recipient,
      root: tree!.root,
      nullifierHash: hasher.hash([field(nullifierSeed++)]),
      proof: new Uint8Array(256),
      depositSize: DEPOSIT,
      fee,
      ...(opts.swap ? { swap: { outputMint: opts.swap.outputMint, minOut: opts.swap.minOut, quote: {} as SwapQuote } } : {}),
    };
    const prove = (terms: Partial<RelayTerms> = {}): Uint8Array =>
      proofFor(
        withdrawalPublicSignals(hasher, {
          root: submission.root,
          nullifierHash: submission.nullifierHash,
          recipient: key(recipient),
          amount: DEPOSIT,
          mint: m.mintBytes,
          terms: {
            relayer: relayer.publicKey,
            fee,
            swap: opts.swap ? { outputMint: key(opts.swap.outputMint), minOut: opts.swap.minOut } : null,
            ...terms,
          },
        }),
      );
    submission.proof = prove();
    const vault = vaultAddress(PROGRAM, m.mintBytes);
    const snapshot = () => ({
      vault: chain.balance(vault, m.mint),
      recipient: chain.balance(recipient, m.mint),
      recipientOut: opts.swap ? chain.balance(recipient, opts.swap.outputMint) : 0n,
      relayer: chain.balance(relayer.address, m.mint),
      writes: db.stats.writes,
    });
    return { m, submission, prove, snapshot };
  }

  it("pays the recipient exactly depositSize − fee and the relayer exactly fee, and spends the nullifier", async () => {
    const { m, submission, snapshot } = await setUp();
    const before = snapshot();
    const r = await chain.submitWithdrawal(submission);
    expect(r).toEqual({ ok: true, signature: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/) });
    expect(snapshot()).toEqual({
      ...before,
      vault: before.vault - DEPOSIT,
      recipient: before.recipient + DEPOSIT - FEE,
      relayer: before.relayer + FEE,
      writes: before.writes + 1,
    });
    expect(await chain.spentBy(m.mint, submission.nullifierHash)).toBe(r.ok && r.signature);
  });

  it("asks the verifier about signals it computed itself: extDataHash from its own signer and the submission's fee, recipient and mint as field elements", async () => {
    const { m, submission } = await setUp({ fee: 31_337n });
    expect(await chain.submitWithdrawal(submission)).toMatchObject({ ok: true });
    expect(verifier.asked).toHaveLength(1);
    const [root, nullifierHash, recipient, amount, mint, extDataHash] = verifier.asked[0]!.map(toHex);
    expect([root, nullifierHash, amount]).toEqual([toHex(submission.root), toHex(submission.nullifierHash), toHex(field(DEPOSIT))]);
    expect(recipient).toBe(toHex(pubkeyToField(hasher, key(submission.recipient))));
    expect(mint).toBe(toHex(pubkeyToField(hasher, m.mintBytes)));
    const zero = new Uint8Array(32);
    expect(extDataHash).toBe(toHex(hasher.hash([pubkeyToField(hasher, relayer.publicKey), field(31_337n), zero, zero])));
    expect(verifier.asked[0]).toHaveLength(6);
  });

  it("binds a swap's output mint and minOut into extDataHash", async () => {
    const out = freshMint();
    const { submission } = await setUp({ swap: { outputMint: out.mint, minOut: 123_456n } });
    await chain.submitWithdrawal(submission);
    expect(toHex(verifier.asked[0]![5]!)).toBe(
      toHex(hasher.hash([pubkeyToField(hasher, relayer.publicKey), field(FEE), pubkeyToField(hasher, out.mintBytes), field(123_456n)])),
    );
  });

  it("refuses InvalidProof, moving nothing, when the fee, the relayer or the recipient differ from what the proof was made for", async () => {
    const other = newKey();
    const cases: [string, (s: WithdrawalSubmission, prove: (t?: Partial<RelayTerms>) => Uint8Array) => WithdrawalSubmission][] = [
      ["a higher fee", (s) => ({ ...s, fee: FEE * 2n })],
      ["a lower fee", (s) => ({ ...s, fee: 0n })],
      ["a fee of the whole deposit", (s) => ({ ...s, fee: DEPOSIT })],
      ["a proof made for another relayer", (s, prove) => ({ ...s, proof: prove({ relayer: other.bytes }) })],
      ["another recipient", (s) => ({ ...s, recipient: other.address })],
    ];
    for (const [name, change] of cases) {
      const { m, submission, prove, snapshot } = await setUp();
      const before = snapshot();
      const r = await chain.submitWithdrawal(change(submission, prove));
      expect(r, name).toMatchObject({ ok: false, rejection: "InvalidProof" });
      expect(snapshot(), name).toEqual(before);
      expect(chain.balance(other.address, m.mint), name).toBe(0n);
      expect(await chain.isNullifierSpent(m.mint, submission.nullifierHash), name).toBe(false);
      // The unchanged submission still lands: the refusal spent nothing.
      expect((await chain.submitWithdrawal(submission)).ok, name).toBe(true);
    }
  });

  it("refuses a fee above depositSize before verifying, moving nothing", async () => {
    const { submission, snapshot } = await setUp({ fee: DEPOSIT + 1n });
    const before = snapshot();
    expect(await chain.submitWithdrawal(submission)).toMatchObject({ ok: false, rejection: "Failed", detail: expect.stringContaining("FeeExceedsAmount") });
    expect(verifier.asked).toHaveLength(0);
    expect(snapshot()).toEqual(before);
  });

  it("refuses a swap delivering less than the proof's minOut atomically (nothing moved, nullifier unspent), and lands it once the pool delivers", async () => {
    const out = freshMint();
    const { m, submission, snapshot } = await setUp({ swap: { outputMint: out.mint, minOut: 900_000n } });
    // 975 000 in against 10^9 : 10^9 delivers ~972 000; against 10^9 : 9·10^8 ~ 874 800 < 900 000.
    await chain.swapPools.set(m.mint, out.mint, 1_000_000_000n, 900_000_000n, 1);
    const before = snapshot();
    const refused = await chain.submitWithdrawal(submission);
    expect(refused).toMatchObject({ ok: false, rejection: "SlippageExceeded", outAmount: expect.any(BigInt) });
    expect(!refused.ok && refused.outAmount! < 900_000n).toBe(true);
    expect(snapshot()).toEqual(before);
    expect(await chain.isNullifierSpent(m.mint, submission.nullifierHash)).toBe(false);

    // Asking for less than the proof's minimum is no way around it.
    const lowered = { ...submission, swap: { ...submission.swap!, minOut: 1n } };
    expect(await chain.submitWithdrawal(lowered)).toMatchObject({ ok: false, rejection: "InvalidProof" });
    expect(snapshot()).toEqual(before);

    await chain.swapPools.set(m.mint, out.mint, 1_000_000_000n, 1_000_000_000n, 2);
    const landed = await chain.submitWithdrawal(submission);
    expect(landed).toMatchObject({ ok: true, outAmount: expect.any(BigInt) });
    const got = landed.ok ? landed.outAmount! : 0n;
    expect(got >= 900_000n).toBe(true);
    expect(snapshot()).toMatchObject({
      vault: before.vault - DEPOSIT,
      recipient: before.recipient,
      recipientOut: before.recipientOut + got,
      relayer: before.relayer + FEE,
    });
  });
});
