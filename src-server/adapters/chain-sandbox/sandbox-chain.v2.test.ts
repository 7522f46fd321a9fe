/**
 * Protocols v2 and v3 in the sandbox chain: the pool computes each deposit leaf
 * from the amount it moved, recomputes a withdrawal's seven public signals
 * from its own signer and the transaction's arguments, and inserts the
 * withdrawal's change leaf after paying out. No real proofs here:
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
import { Signer } from "../../../src-shared/node/keypair-file";
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
    const page = await chain.fetchLeafEvents(m.mint, null, 10);
    expect(page.events).toHaveLength(1);
    expect(toHex(page.events[0]!.commitment)).toBe(toHex(expected));
    expect(page.events[0]).toMatchObject({ kind: "deposit", amount: 7n, leafIndex: 0 });
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

describe("SandboxChain.submitWithdrawal (protocols v2 and v3)", () => {
  const DEPOSIT = 1_000_000n;
  const FEE = 25_000n;
  let nullifierSeed = 100n;

  /**
   * A pool holding one deposit, and a withdrawal of `withdraw` (default: all of it) whose proof is bound to
   * `proved` (default: the submission's own terms and change commitment).
   */
  async function setUp(opts: { fee?: bigint; swap?: { outputMint: string; minOut: bigint }; withdraw?: bigint } = {}) {
    const m = freshMint();
    await deposit(m, DEPOSIT, precommitmentOf(nullifierSeed, 1n));
    const recipient = newKey().address;
    const tree = await chain.treeAccount(m.mint);
    const fee = opts.fee ?? FEE;
    const withdraw = opts.withdraw ?? DEPOSIT;
    const submission: WithdrawalSubmission = {
      mint: m.mint,
      mintBytes: m.mintBytes,
      recipient,
      root: tree!.root,
      nullifierHash: hasher.hash([field(nullifierSeed++)]),
      proof: new Uint8Array(256),
      depositSize: withdraw,
      // Any field element stands for the change leaf here: the chain cannot see inside it.
      changeCommitment: hasher.hash([field(nullifierSeed), field(77n)]),
      fee,
      ...(opts.swap ? { swap: { outputMint: opts.swap.outputMint, minOut: opts.swap.minOut, quote: {} as SwapQuote } } : {}),
    };
    const prove = (terms: Partial<RelayTerms> = {}, changeCommitment: Uint8Array = submission.changeCommitment): Uint8Array =>
      proofFor(
        withdrawalPublicSignals(hasher, {
          root: submission.root,
          nullifierHash: submission.nullifierHash,
          recipient: key(recipient),
          amount: withdraw,
          mint: m.mintBytes,
          terms: {
            relayer: relayer.publicKey,
            fee,
            swap: opts.swap ? { outputMint: key(opts.swap.outputMint), minOut: opts.swap.minOut } : null,
            ...terms,
          },
          changeCommitment,
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
    expect(r).toEqual({ ok: true, signature: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/), changeLeafIndex: 1 });
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
    const [root, nullifierHash, recipient, amount, mint, extDataHash, changeCommitment] = verifier.asked[0]!.map(toHex);
    expect([root, nullifierHash, amount]).toEqual([toHex(submission.root), toHex(submission.nullifierHash), toHex(field(DEPOSIT))]);
    expect(recipient).toBe(toHex(pubkeyToField(hasher, key(submission.recipient))));
    expect(mint).toBe(toHex(pubkeyToField(hasher, m.mintBytes)));
    const zero = new Uint8Array(32);
    expect(extDataHash).toBe(toHex(hasher.hash([pubkeyToField(hasher, relayer.publicKey), field(31_337n), zero, zero])));
    expect(changeCommitment).toBe(toHex(submission.changeCommitment));
    expect(verifier.asked[0]).toHaveLength(7);
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

describe("SandboxChain.submitWithdrawal: protocol v3's change leaf", () => {
  let seed = 5000n;
  async function pool(amount: bigint) {
    const m = freshMint();
    await deposit(m, amount, precommitmentOf(seed++, 2n));
    return m;
  }
  function submission(
    m: { mint: string; mintBytes: Uint8Array },
    root: Uint8Array,
    withdraw: bigint,
    changeCommitment: Uint8Array,
    recipient = newKey().address,
  ) {
    const w: WithdrawalSubmission = {
      ...m,
      recipient,
      root,
      nullifierHash: hasher.hash([field(seed++)]),
      proof: new Uint8Array(256),
      depositSize: withdraw,
      changeCommitment,
      fee: 0n,
    };
    w.proof = proofFor(
      withdrawalPublicSignals(hasher, {
        root,
        nullifierHash: w.nullifierHash,
        recipient: key(recipient),
        amount: withdraw,
        mint: m.mintBytes,
        terms: { relayer: relayer.publicKey, fee: 0n, swap: null },
        changeCommitment,
      }),
    );
    return w;
  }

  it("inserts the change commitment as the next leaf after paying, advancing the root, and serves it after the deposit in leaf order", async () => {
    const m = await pool(3_000_000n);
    const before = (await chain.treeAccount(m.mint))!;
    const change = hasher.hash([field(1n), field(2n), field(3n), field(4n)]);
    const w = submission(m, before.root, 1_000_000n, change);
    const r = await chain.submitWithdrawal(w);
    expect(r).toMatchObject({ ok: true, changeLeafIndex: 1 });
    const after = (await chain.treeAccount(m.mint))!;
    expect(after.nextIndex).toBe(2);
    expect(toHex(after.root)).not.toBe(toHex(before.root));
    expect(chain.balance(w.recipient, m.mint)).toBe(1_000_000n);
    expect(chain.balance(vaultAddress(PROGRAM, m.mintBytes), m.mint)).toBe(2_000_000n);
    const page = await chain.fetchLeafEvents(m.mint, null, 10);
    expect(page.events.map((e) => [e.kind, e.leafIndex])).toEqual([
      ["deposit", 0],
      ["change", 1],
    ]);
    const leaf = page.events[1]!;
    expect(leaf.kind === "change" && [toHex(leaf.commitment), toHex(leaf.nullifierHash), leaf.signature]).toEqual([
      toHex(change),
      toHex(w.nullifierHash),
      r.ok && r.signature,
    ]);
    // Both roots stay known: a proof made against the deposit-only root is still accepted, and the new one too.
    const next = submission(m, after.root, 500_000n, hasher.hash([field(9n), field(9n)]));
    expect(await chain.submitWithdrawal(next)).toMatchObject({ ok: true, changeLeafIndex: 2 });
    const older = submission(m, before.root, 1n, hasher.hash([field(8n), field(8n)]));
    expect(await chain.submitWithdrawal(older)).toMatchObject({ ok: true, changeLeafIndex: 3 });
  });

  it("inserts a change commitment equal to a leaf already in the tree all the same (no marker for change leaves)", async () => {
    const m = await pool(10n);
    const root = (await chain.treeAccount(m.mint))!.root;
    const change = hasher.hash([field(5n), field(5n)]);
    expect(await chain.submitWithdrawal(submission(m, root, 5n, change))).toMatchObject({ ok: true, changeLeafIndex: 1 });
    const root2 = (await chain.treeAccount(m.mint))!.root;
    expect(await chain.submitWithdrawal(submission(m, root2, 5n, change))).toMatchObject({ ok: true, changeLeafIndex: 2 });
  });

  it.each<[string, bigint, () => Uint8Array]>([
    ["an amount of 0", 0n, () => hasher.hash([field(1n)])],
    ["a zero change commitment", 5n, () => new Uint8Array(32)],
    ["a change commitment equal to the modulus", 5n, () => field(FIELD_MODULUS)],
    ["a change commitment of 31 bytes", 5n, () => hasher.hash([field(1n)]).subarray(1)],
  ])("refuses %s as InvalidInput before verifying, moving nothing and inserting nothing", async (_name, amount, make) => {
    const m = await pool(10n);
    const root = (await chain.treeAccount(m.mint))!.root;
    const writes = db.stats.writes;
    const r = await chain.submitWithdrawal(submission(m, root, amount, make()));
    expect(r).toMatchObject({ ok: false, rejection: "Failed", detail: expect.stringContaining("InvalidInput") });
    expect(verifier.asked).toHaveLength(0);
    expect(db.stats.writes).toBe(writes);
    expect((await chain.treeAccount(m.mint))!.nextIndex).toBe(1);
  });

  it("refuses a change commitment altered after proving with InvalidProof: nothing spent, paid or inserted", async () => {
    const m = await pool(1_000n);
    const root = (await chain.treeAccount(m.mint))!.root;
    const w = submission(m, root, 400n, hasher.hash([field(6n), field(6n)]));
    const altered = { ...w, changeCommitment: hasher.hash([field(6n), field(7n)]) };
    expect(await chain.submitWithdrawal(altered)).toMatchObject({ ok: false, rejection: "InvalidProof" });
    expect(await chain.isNullifierSpent(m.mint, w.nullifierHash)).toBe(false);
    expect(chain.balance(w.recipient, m.mint)).toBe(0n);
    expect((await chain.treeAccount(m.mint))!.nextIndex).toBe(1);
    expect((await chain.fetchLeafEvents(m.mint, null, 10)).events).toHaveLength(1);
    expect(await chain.submitWithdrawal(w)).toMatchObject({ ok: true, changeLeafIndex: 1 });
  });

  it("refuses a spent nullifier and an unknown root before inserting anything", async () => {
    const m = await pool(1_000n);
    const root = (await chain.treeAccount(m.mint))!.root;
    const w = submission(m, root, 400n, hasher.hash([field(10n), field(10n)]));
    expect(await chain.submitWithdrawal(w)).toMatchObject({ ok: true, changeLeafIndex: 1 });
    const again = submission(m, (await chain.treeAccount(m.mint))!.root, 400n, hasher.hash([field(11n), field(11n)]));
    const replay = { ...again, nullifierHash: w.nullifierHash };
    replay.proof = proofFor(
      withdrawalPublicSignals(hasher, {
        root: replay.root,
        nullifierHash: replay.nullifierHash,
        recipient: key(replay.recipient),
        amount: 400n,
        mint: m.mintBytes,
        terms: { relayer: relayer.publicKey, fee: 0n, swap: null },
        changeCommitment: replay.changeCommitment,
      }),
    );
    expect(await chain.submitWithdrawal(replay)).toMatchObject({ ok: false, rejection: "NullifierAlreadySpent" });
    expect((await chain.treeAccount(m.mint))!.nextIndex).toBe(2);
  });
});
