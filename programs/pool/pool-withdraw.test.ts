/**
 * withdraw on programs/pool/pool.so in the real runtime, with the recorded real protocol v3
 * proofs (bound to the fixture relayer and FEE, each withdrawing a whole note) and proofs the
 * SDK makes for partial withdrawals: exact payouts, the nullifier, the change leaf and the
 * root it makes (checked against a TypeScript tree of the same leaves), chains of change notes,
 * the compute budget, and the attacks, each failing with its exact error while the vault keeps
 * its funds and the proof's nullifier stays unspent.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { ComputeBudgetProgram, Keypair, PublicKey, Transaction, TransactionInstruction } from "@solana/web3.js";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { FIELD_MODULUS, bigIntToBytes32, bytesToBigInt } from "../../src-shared/encoding/field";
import { computeChangeLeaf, computePrecommitment } from "../../src-shared/crypto/protocol";
import {
  ACCOUNT_DISCRIMINATORS,
  TOKEN_PROGRAM_ID,
  TREE_ACCOUNT_OFFSETS,
  decodeNullifierAccount,
  encodeTokenAccount,
  initializePoolInstructions,
  poolNullifierAddress,
  poolTreeAddress,
  poolVaultAddress,
  publicKeyBytes,
  withdrawInstruction,
  type WithdrawParams,
} from "../../src-shared/pool-program";
import { encodeProof, fromSnarkjs, type SnarkjsProof } from "../../src-server/core/proof/codec";
import { FEE, MINT, PLAIN, PLAIN_5, PLAIN_6, PROGRAM, SOL, ata, notePool, type Landed, type NotePool, type PlacedNote } from "./test-support";
import { expectPoolError, expectAnchorError } from "./expect-errors";
import type { WithdrawalProof } from "../../src-client/sdk/prove";

const WITHDRAW_BUDGET_EXISTING = 160_000;
const WITHDRAW_BUDGET_CREATED = 185_000;

let f: NotePool;
let vaultBefore: bigint;

const V1 = JSON.parse(readFileSync(new URL("../../tests/support/v1-proof.json", import.meta.url), "utf8")) as { publicSignals: string[]; proof: SnarkjsProof };

function withdraw(label: string, over: Partial<WithdrawParams> = {}): TransactionInstruction {
  return withdrawInstruction(f.params(label, over));
}

function send(ixs: TransactionInstruction[], signers: Keypair[] = [f.relayer]): Landed {
  return f.world.send(ixs, signers);
}

const nullifierOf = (label: string) => poolNullifierAddress(PROGRAM, MINT, f.cases.get(label)!.signals[1]!);

/** Refused with the expected check; nothing left the vault and the proof's nullifier is unspent. */
function refused(r: Landed, label: string, check: (r: Landed) => void): void {
  check(r);
  expect(f.world.vaultBalance()).toBe(vaultBefore);
  expect(f.world.exists(nullifierOf(label))).toBe(false);
}

/** The pool's current root, which must be the TypeScript tree's of the same leaves. */
function expectRootMirrored(): void {
  const t = f.world.treeAccount();
  expect(t.nextIndex).toBe(f.mirrors.get(MINT)!.nextIndex);
  expect(t.roots[t.currentRootIndex]).toEqual(f.mirrors.get(MINT)!.root());
}

beforeAll(async () => {
  f = await notePool();
  vaultBefore = f.world.vaultBalance();
  expect(vaultBefore).toBe(28n * SOL);
}, 60_000);

describe("withdraw: attacks fail with their exact error, the vault keeps its funds", () => {
  it("a fake tree: the tree's exact bytes owned by another program, at another address (ConstraintSeeds) and at the tree's own address (AccountOwnedByWrongProgram)", () => {
    const real = f.world.svm.getAccount(f.world.tree)!;
    const fake = Keypair.generate().publicKey;
    f.world.svm.setAccount(fake, { data: real.data, owner: Keypair.generate().publicKey });
    const ix = withdraw(PLAIN);
    ix.keys[2]!.pubkey = fake;
    refused(send([ix]), PLAIN, (r) => expectAnchorError(r, 0, 2006, "ConstraintSeeds", "tree"));
    f.world.svm.setAccount(f.world.tree, { lamports: real.lamports, data: real.data, owner: Keypair.generate().publicKey });
    try {
      refused(send([withdraw(PLAIN)]), PLAIN, (r) => expectAnchorError(r, 0, 3007, "AccountOwnedByWrongProgram", "tree"));
    } finally {
      f.world.svm.setAccount(f.world.tree, { lamports: real.lamports, data: real.data, owner: new PublicKey(PROGRAM) });
    }
  });

  it("a fake vault: a token account of the mint that owns itself at another address (ConstraintSeeds), the vault's bytes owned by another program (AccountOwnedByWrongProgram)", () => {
    const fake = Keypair.generate().publicKey;
    f.world.svm.createTokenAccount(f.world.mint, fake, 100n * SOL, fake);
    const ix = withdraw(PLAIN);
    ix.keys[3]!.pubkey = fake;
    refused(send([ix]), PLAIN, (r) => expectAnchorError(r, 0, 2006, "ConstraintSeeds", "vault"));
    expect(f.world.balance(fake)).toBe(100n * SOL);
    const real = f.world.svm.getAccount(f.world.vault)!;
    f.world.svm.setAccount(f.world.vault, { lamports: real.lamports, data: real.data, owner: Keypair.generate().publicKey });
    try {
      refused(send([withdraw(PLAIN)]), PLAIN, (r) => expectAnchorError(r, 0, 3007, "AccountOwnedByWrongProgram", "vault"));
    } finally {
      f.world.svm.setAccount(f.world.vault, { lamports: real.lamports, data: real.data, owner: new PublicKey(TOKEN_PROGRAM_ID) });
    }
  });

  it("the vault of another mint's pool (ConstraintSeeds), and the real vault holding another mint (ConstraintTokenMint)", () => {
    const otherMint = f.world.svm.createMint(f.relayer.publicKey, 9);
    const init = send(
      initializePoolInstructions({ programId: PROGRAM, authority: f.relayer.publicKey.toBase58(), mint: otherMint.toBase58(), minDeposit: 1n }),
    );
    expect(init.ok, init.logs.join("\n")).toBe(true);
    const otherVault = new PublicKey(poolVaultAddress(PROGRAM, otherMint.toBase58()));
    f.world.svm.setAccount(otherVault, {
      data: encodeTokenAccount({ mint: otherMint.toBytes(), owner: otherVault.toBytes(), amount: 50n * SOL }),
      owner: new PublicKey(TOKEN_PROGRAM_ID),
    });
    const ix = withdraw(PLAIN);
    ix.keys[3]!.pubkey = otherVault;
    refused(send([ix]), PLAIN, (r) => expectAnchorError(r, 0, 2006, "ConstraintSeeds", "vault"));
    // The other pool's tree with its own vault: the proof's root is not in that tree.
    const both = withdraw(PLAIN);
    both.keys[2]!.pubkey = new PublicKey(poolTreeAddress(PROGRAM, otherMint.toBase58()));
    refused(send([both]), PLAIN, (r) => expectAnchorError(r, 0, 2006, "ConstraintSeeds", "tree"));
    const real = f.world.svm.getAccount(f.world.vault)!;
    f.world.svm.setAccount(f.world.vault, {
      lamports: real.lamports,
      data: encodeTokenAccount({ mint: otherMint.toBytes(), owner: f.world.vault.toBytes(), amount: vaultBefore }),
      owner: new PublicKey(TOKEN_PROGRAM_ID),
    });
    try {
      refused(send([withdraw(PLAIN)]), PLAIN, (r) => expectAnchorError(r, 0, 2014, "ConstraintTokenMint", "vault"));
    } finally {
      f.world.svm.setAccount(f.world.vault, { lamports: real.lamports, data: real.data, owner: new PublicKey(TOKEN_PROGRAM_ID) });
    }
  });

  it("a nullifier account at another address than the proof's nullifierHash's PDA: ConstraintSeeds", () => {
    const ix = withdraw(PLAIN);
    ix.keys[4]!.pubkey = new PublicKey(nullifierOf(PLAIN_5));
    refused(send([ix]), PLAIN, (r) => expectAnchorError(r, 0, 2006, "ConstraintSeeds", "nullifier"));
    // The same nullifierHash's PDA under another mint.
    const other = withdraw(PLAIN);
    other.keys[4]!.pubkey = new PublicKey(poolNullifierAddress(PROGRAM, encodeBase58(new Uint8Array(32).fill(7)), f.cases.get(PLAIN)!.signals[1]!));
    refused(send([other]), PLAIN, (r) => expectAnchorError(r, 0, 2006, "ConstraintSeeds", "nullifier"));
  });

  it("amount 0, a zero changeCommitment, and one not below the field modulus (r, r + the real one, all ones): InvalidInput, before the proof", () => {
    const real = f.cases.get(PLAIN)!.signals[6]!;
    refused(send([withdraw(PLAIN, { amount: 0n, fee: 0n })]), PLAIN, (r) => expectPoolError(r, 0, "InvalidInput"));
    for (const changeCommitment of [
      new Uint8Array(32),
      bigIntToBytes32(FIELD_MODULUS),
      bigIntToBytes32(bytesToBigInt(real) + FIELD_MODULUS),
      new Uint8Array(32).fill(0xff),
    ]) {
      refused(send([withdraw(PLAIN, { changeCommitment })]), PLAIN, (r) => expectPoolError(r, 0, "InvalidInput"));
    }
    // InvalidInput comes before the fee rule: amount 0 with a fee is still InvalidInput.
    refused(send([withdraw(PLAIN, { amount: 0n })]), PLAIN, (r) => expectPoolError(r, 0, "InvalidInput"));
  });

  it("the proof replayed with another change leaf (the whole value left as change, another note's change leaf, r - 1): InvalidProof", () => {
    const note = { nullifier: bigIntToBytes32(7000n), secret: bigIntToBytes32(0x5eed000n) };
    const pre = computePrecommitment(f.world.hasher, note.nullifier, note.secret);
    const keepAll = computeChangeLeaf(f.world.hasher, pre, f.amount(PLAIN), publicKeyBytes(MINT), new Uint8Array(32).fill(1));
    for (const changeCommitment of [keepAll, f.cases.get(PLAIN_5)!.signals[6]!, bigIntToBytes32(FIELD_MODULUS - 1n)]) {
      refused(send([withdraw(PLAIN, { changeCommitment })]), PLAIN, (r) => expectPoolError(r, 0, "InvalidProof"));
    }
  });

  it("a tree with no room for the change leaf: TreeFull, after the proof verified, and nothing moves", () => {
    const real = f.world.svm.getAccount(f.world.tree)!;
    const full = real.data.slice();
    new DataView(full.buffer, full.byteOffset).setUint32(TREE_ACCOUNT_OFFSETS.nextIndex, 0xffffffff, true);
    f.world.svm.setAccount(f.world.tree, { lamports: real.lamports, data: full, owner: new PublicKey(PROGRAM) });
    try {
      refused(send([withdraw(PLAIN)]), PLAIN, (r) => expectPoolError(r, 0, "TreeFull"));
      expect(f.world.balance(ata(f.recipient(PLAIN), MINT))).toBe(0n);
    } finally {
      f.world.svm.setAccount(f.world.tree, { lamports: real.lamports, data: real.data, owner: new PublicKey(PROGRAM) });
    }
  });

  it("a fee above the amount: FeeExceedsAmount", () => {
    refused(send([withdraw(PLAIN, { fee: f.amount(PLAIN) + 1n })]), PLAIN, (r) => expectPoolError(r, 0, "FeeExceedsAmount"));
  });

  it("the proof resubmitted with a changed fee (higher, lower, the whole amount, zero): InvalidProof", () => {
    for (const fee of [FEE + 1n, FEE - 1n, f.amount(PLAIN), 0n]) {
      refused(send([withdraw(PLAIN, { fee })]), PLAIN, (r) => expectPoolError(r, 0, "InvalidProof"));
    }
  });

  it("the proof signed by another relayer, who would receive the fee: InvalidProof", () => {
    const thief = Keypair.generate();
    f.world.svm.airdrop(thief.publicKey, SOL);
    f.world.svm.createTokenAccount(f.world.mint, thief.publicKey, 0n);
    refused(send([withdraw(PLAIN, { relayer: thief.publicKey.toBase58() })], [thief]), PLAIN, (r) => expectPoolError(r, 0, "InvalidProof"));
    expect(f.world.balance(ata(thief.publicKey.toBase58(), MINT))).toBe(0n);
  });

  it("the proof for another amount, recipient or mint's field element: InvalidProof (the program computes every public input)", () => {
    refused(send([withdraw(PLAIN, { amount: f.amount(PLAIN) - 1n })]), PLAIN, (r) => expectPoolError(r, 0, "InvalidProof"));
    const someoneElse = Keypair.generate().publicKey.toBase58();
    refused(send([withdraw(PLAIN, { recipient: someoneElse })]), PLAIN, (r) => expectPoolError(r, 0, "InvalidProof"));
  });

  it("a recipient token account owned by someone else, or holding another mint, and a relayer token account that is not the relayer's: WrongTokenAccount", () => {
    const recipientAta = new PublicKey(ata(f.recipient(PLAIN), MINT));
    const set = (mint: Uint8Array, owner: Uint8Array) =>
      f.world.svm.setAccount(recipientAta, { data: encodeTokenAccount({ mint, owner, amount: 0n }), owner: new PublicKey(TOKEN_PROGRAM_ID) });
    try {
      set(publicKeyBytes(MINT), Keypair.generate().publicKey.toBytes());
      refused(send([withdraw(PLAIN)]), PLAIN, (r) => expectPoolError(r, 0, "WrongTokenAccount"));
      set(f.outputMint.toBytes(), publicKeyBytes(f.recipient(PLAIN)));
      refused(send([withdraw(PLAIN)]), PLAIN, (r) => expectPoolError(r, 0, "WrongTokenAccount"));
      // Right bytes, but not owned by SPL Token.
      f.world.svm.setAccount(recipientAta, {
        data: encodeTokenAccount({ mint: publicKeyBytes(MINT), owner: publicKeyBytes(f.recipient(PLAIN)), amount: 0n }),
        owner: Keypair.generate().publicKey,
      });
      refused(send([withdraw(PLAIN)]), PLAIN, (r) => expectPoolError(r, 0, "WrongTokenAccount"));
    } finally {
      f.world.svm.setAccount(recipientAta, { lamports: 0n, owner: PublicKey.default });
    }
    const relayerAta = new PublicKey(ata(f.relayer.publicKey.toBase58(), MINT));
    const real = f.world.svm.getAccount(relayerAta)!;
    f.world.svm.setAccount(relayerAta, {
      data: encodeTokenAccount({ mint: publicKeyBytes(MINT), owner: Keypair.generate().publicKey.toBytes(), amount: 0n }),
      owner: new PublicKey(TOKEN_PROGRAM_ID),
    });
    try {
      refused(send([withdraw(PLAIN)]), PLAIN, (r) => expectPoolError(r, 0, "WrongTokenAccount"));
    } finally {
      f.world.svm.setAccount(relayerAta, { lamports: real.lamports, data: real.data, owner: real.owner });
    }
    // Another token account of the relayer's than its associated one is fine for the fee, another owner's is not.
    const stranger = Keypair.generate();
    f.world.svm.createTokenAccount(f.world.mint, stranger.publicKey, 0n);
    const ix = withdraw(PLAIN);
    ix.keys[7]!.pubkey = new PublicKey(ata(stranger.publicKey.toBase58(), MINT));
    refused(send([ix]), PLAIN, (r) => expectPoolError(r, 0, "WrongTokenAccount"));
  });

  it("a recipient account that is not the proof's recipient (ConstraintAddress), a recipient token account that is not its associated account (ConstraintAssociated), a missing relayer token account (AccountNotInitialized)", () => {
    const ix = withdraw(PLAIN);
    ix.keys[5]!.pubkey = Keypair.generate().publicKey;
    refused(send([ix]), PLAIN, (r) => expectAnchorError(r, 0, 2012, "ConstraintAddress", "recipient"));
    const own = Keypair.generate().publicKey;
    f.world.svm.createTokenAccount(f.world.mint, new PublicKey(f.recipient(PLAIN)), 0n, own);
    const ix2 = withdraw(PLAIN);
    ix2.keys[6]!.pubkey = own;
    refused(send([ix2]), PLAIN, (r) => expectAnchorError(r, 0, 2009, "ConstraintAssociated", "recipient_token_account"));
    const noFeeAccount = Keypair.generate();
    f.world.svm.airdrop(noFeeAccount.publicKey, SOL);
    refused(send([withdraw(PLAIN, { relayer: noFeeAccount.publicKey.toBase58() })], [noFeeAccount]), PLAIN, (r) =>
      expectAnchorError(r, 0, 3012, "AccountNotInitialized", "relayer_token_account"),
    );
  });

  it("a root that is not in the tree's history (a zero root, the v1 proof's own root): UnknownRoot", () => {
    refused(send([withdraw(PLAIN, { root: new Uint8Array(32) })]), PLAIN, (r) => expectPoolError(r, 0, "UnknownRoot"));
    const v1 = {
      proof: encodeProof(fromSnarkjs(V1.proof)),
      root: bigIntToBytes32(BigInt(V1.publicSignals[0]!)),
      nullifierHash: bigIntToBytes32(BigInt(V1.publicSignals[1]!)),
    };
    const r = send([withdraw(PLAIN, v1)]);
    expectPoolError(r, 0, "UnknownRoot");
    expect(f.world.vaultBalance()).toBe(vaultBefore);
  });

  it("an old proof with five public inputs (protocol v1), against this tree's root and nullifier: InvalidProof", () => {
    refused(send([withdraw(PLAIN, { proof: encodeProof(fromSnarkjs(V1.proof)) })]), PLAIN, (r) => expectPoolError(r, 0, "InvalidProof"));
  });

  it("a proof whose points are not on the curve (A, then C, replaced by (1, 3)), one with a coordinate >= q, and a flipped byte: InvalidProof", () => {
    const proof = f.cases.get(PLAIN)!.proof;
    const offCurve = (at: number) => {
      const p = proof.slice();
      p.set(bigIntToBytes32(1n), at);
      p.set(bigIntToBytes32(3n), at + 32);
      return p;
    };
    const q = 21888242871839275222246405745257275088696311157297823662689037894645226208583n;
    const tooBig = proof.slice();
    tooBig.set(bigIntToBytes32(q), 0);
    const flipped = proof.slice();
    flipped[100]! ^= 1;
    for (const bad of [offCurve(0), offCurve(192), tooBig, flipped, new Uint8Array(256)]) {
      refused(send([withdraw(PLAIN, { proof: bad })]), PLAIN, (r) => expectPoolError(r, 0, "InvalidProof"));
    }
  });

  it("a nullifierHash not below the field modulus (the same nullifier's second encoding) is InvalidProof, never a second spend", () => {
    const r = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
    const nh = BigInt("0x" + Buffer.from(f.cases.get(PLAIN)!.signals[1]!).toString("hex"));
    refused(send([withdraw(PLAIN, { nullifierHash: bigIntToBytes32(nh + r) })]), PLAIN, (res) => expectPoolError(res, 0, "InvalidProof"));
  });

  it("a vault holding less than the amount: InsufficientVault after the proof verified", () => {
    const real = f.world.svm.getAccount(f.world.vault)!;
    f.world.svm.setAccount(f.world.vault, {
      lamports: real.lamports,
      data: encodeTokenAccount({ mint: f.world.mint.toBytes(), owner: f.world.vault.toBytes(), amount: f.amount(PLAIN) - 1n }),
      owner: new PublicKey(TOKEN_PROGRAM_ID),
    });
    try {
      const r = send([withdraw(PLAIN)]);
      expectPoolError(r, 0, "InsufficientVault");
      expect(f.world.exists(nullifierOf(PLAIN))).toBe(false);
    } finally {
      f.world.svm.setAccount(f.world.vault, { lamports: real.lamports, data: real.data, owner: new PublicKey(TOKEN_PROGRAM_ID) });
    }
  });

  it("malformed data (v2's 376 bytes among them) and too few accounts end in named errors", () => {
    const good = withdraw(PLAIN);
    const withData = (data: Uint8Array) => new TransactionInstruction({ programId: good.programId, keys: good.keys, data: Buffer.from(data) });
    for (const len of [376, 407]) {
      refused(send([withData(good.data.subarray(0, len))]), PLAIN, (r) => expectAnchorError(r, 0, 102, "InstructionDidNotDeserialize"));
    }
    refused(send([withData(Buffer.concat([good.data, Buffer.alloc(40)]))]), PLAIN, (r) => expectAnchorError(r, 0, 102, "InstructionDidNotDeserialize"));
    refused(send([withData(good.data.subarray(0, 4))]), PLAIN, (r) => expectAnchorError(r, 0, 101, "InstructionFallbackNotFound"));
    for (const n of [0, 1, 10]) {
      const short = new TransactionInstruction({ programId: good.programId, keys: good.keys.slice(0, n), data: good.data });
      refused(send([short]), PLAIN, (r) => expectAnchorError(r, 0, 3005, "AccountNotEnoughKeys"));
    }
    const readonlyVault = withdraw(PLAIN);
    readonlyVault.keys[3]!.isWritable = false;
    refused(send([readonlyVault]), PLAIN, (r) => expectAnchorError(r, 0, 2000, "ConstraintMut", "vault"));
  });
});

describe("withdraw: what lands", () => {
  const units: { existing: number[]; created: number[] } = { existing: [], created: [] };

  it("pays exactly amount − fee to the recipient (creating their token account) and fee to the relayer, spends the nullifier, and inserts the change leaf (0 left) as the next leaf", () => {
    const recipient = f.recipient(PLAIN);
    const relayerAta = ata(f.relayer.publicKey.toBase58(), MINT);
    const feeBefore = f.world.balance(relayerAta);
    const treeBefore = f.world.treeAccount();
    const r = send([withdraw(PLAIN)]);
    expect(r.ok, r.logs.join("\n")).toBe(true);
    units.created.push(...f.world.poolUnits(r));
    expect(f.world.balance(ata(recipient, MINT))).toBe(f.amount(PLAIN) - FEE);
    expect(f.world.balance(relayerAta) - feeBefore).toBe(FEE);
    expect(vaultBefore - f.world.vaultBalance()).toBe(f.amount(PLAIN));
    const n = f.world.svm.getAccount(new PublicKey(nullifierOf(PLAIN)))!;
    expect(n.owner.toBase58()).toBe(PROGRAM);
    const decoded = decodeNullifierAccount(n.data);
    expect(decoded.ok && decoded.value).toEqual({
      mint: publicKeyBytes(MINT),
      nullifierHash: f.cases.get(PLAIN)!.signals[1],
      kind: "withdraw",
      slot: f.world.svm.raw.getClock().slot,
    });
    expect(Buffer.from(n.data.subarray(0, 8))).toEqual(Buffer.from(ACCOUNT_DISCRIMINATORS.NullifierAccount));
    expect(r.events).toEqual([
      {
        name: "WithdrawEvent",
        nullifierHash: f.cases.get(PLAIN)!.signals[1],
        recipient: publicKeyBytes(recipient),
        amount: f.amount(PLAIN),
        fee: FEE,
        relayer: f.relayer.publicKey.toBytes(),
        changeCommitment: f.cases.get(PLAIN)!.signals[6],
        changeLeafIndex: treeBefore.nextIndex,
      },
    ]);
    const tree = f.world.treeAccount();
    expect(tree.totalWithdrawn).toBe(treeBefore.totalWithdrawn + f.amount(PLAIN));
    expect(tree.depositCount).toBe(treeBefore.depositCount);
    expect(tree.nextIndex).toBe(treeBefore.nextIndex + 1);
    expect(tree.currentRootIndex).toBe((treeBefore.currentRootIndex + 1) % 100);
    // The old roots stay in the ring: proofs made before this withdrawal still land.
    expect(tree.roots.filter((r, i) => i !== tree.currentRootIndex)).toEqual(treeBefore.roots.filter((r, i) => i !== tree.currentRootIndex));
    f.mirrors.get(MINT)!.append(f.cases.get(PLAIN)!.signals[6]!);
    expectRootMirrored();
    vaultBefore = f.world.vaultBalance();
  });

  it("replaying the spent nullifier fails NullifierSpent and pays nothing", () => {
    const r = send([withdraw(PLAIN)]);
    expectPoolError(r, 0, "NullifierSpent");
    expect(f.world.vaultBalance()).toBe(vaultBefore);
  });

  it("into an existing recipient token account holding a balance: pays exactly amount − fee on top of it", () => {
    const recipient = f.recipient(PLAIN_5);
    f.world.svm.createTokenAccount(f.world.mint, new PublicKey(recipient), 123n);
    const r = send([withdraw(PLAIN_5)]);
    expect(r.ok, r.logs.join("\n")).toBe(true);
    units.existing.push(...f.world.poolUnits(r));
    f.mirrors.get(MINT)!.append(f.cases.get(PLAIN_5)!.signals[6]!);
    expectRootMirrored();
    expect(f.world.balance(ata(recipient, MINT))).toBe(123n + f.amount(PLAIN_5) - FEE);
    expect(vaultBefore - f.world.vaultBalance()).toBe(f.amount(PLAIN_5));
    vaultBefore = f.world.vaultBalance();
  });

  it("lamports sent beforehand to the nullifier's PDA and to the recipient's token account address do not block the withdrawal", () => {
    f.world.svm.airdrop(new PublicKey(nullifierOf(PLAIN_6)), 1_000_000n);
    f.world.svm.airdrop(new PublicKey(ata(f.recipient(PLAIN_6), MINT)), 1_000_000n);
    const r = send([withdraw(PLAIN_6)]);
    expect(r.ok, r.logs.join("\n")).toBe(true);
    units.created.push(...f.world.poolUnits(r));
    f.mirrors.get(MINT)!.append(f.cases.get(PLAIN_6)!.signals[6]!);
    expectRootMirrored();
    expect(f.world.balance(ata(f.recipient(PLAIN_6), MINT))).toBe(f.amount(PLAIN_6) - FEE);
    expect(f.world.svm.getAccount(new PublicKey(nullifierOf(PLAIN_6)))!.owner.toBase58()).toBe(PROGRAM);
    expect(vaultBefore - f.world.vaultBalance()).toBe(f.amount(PLAIN_6));
    vaultBefore = f.world.vaultBalance();
  });

  it(`costs at most ${WITHDRAW_BUDGET_EXISTING} CU into an existing token account and ${WITHDRAW_BUDGET_CREATED} when the program creates it (the withdraw budgets); fits a legacy transaction`, () => {
    console.log(`withdraw CU: recipient token account existing ${units.existing.join(", ")}; created ${units.created.join(", ")}`);
    for (const u of units.existing) expect(u).toBeLessThanOrEqual(WITHDRAW_BUDGET_EXISTING);
    for (const u of units.created) expect(u).toBeLessThanOrEqual(WITHDRAW_BUDGET_CREATED);
    // As the relay sends it: unit limit, unit price, withdraw.
    const tx = new Transaction({ feePayer: f.relayer.publicKey, recentBlockhash: f.world.svm.latestBlockhash() }).add(
      ComputeBudgetProgram.setComputeUnitLimit({ units: 250_000 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000 }),
      withdraw(PLAIN_5),
    );
    tx.sign(f.relayer);
    const size = tx.serialize().length;
    console.log(`withdraw transaction: ${size} bytes (legacy, with unit limit and price)`);
    expect(size).toBeLessThanOrEqual(1232);
  });
});

describe("partial withdrawals: change notes and a chain of three pieces", () => {
  const recipientOf = (i: number) => Keypair.fromSeed(createHash("sha256").update(`programs/pool chain recipient ${i}`).digest()).publicKey.toBase58();
  const pieces: PlacedNote[] = [];
  const proofs: WithdrawalProof[] = [];

  /** Withdraws `amount` of the note to recipient i; checks payout, event, change leaf and root. */
  async function piece(placed: PlacedNote, i: number, amount: bigint): Promise<PlacedNote> {
    const p = await f.prove(placed, recipientOf(i), { amount });
    expect(p.amount).toBe(amount);
    const treeBefore = f.world.treeAccount();
    const relayerAta = ata(f.relayer.publicKey.toBase58(), MINT);
    const feeBefore = f.world.balance(relayerAta);
    vaultBefore = f.world.vaultBalance();
    const r = send([withdrawInstruction(f.withdrawParams(p))]);
    expect(r.ok, r.logs.join("\n")).toBe(true);
    console.log(`withdraw of a ${placed.note.change ? "change" : "deposit"} note (${amount} of ${placed.note.amount}): ${f.world.poolUnits(r).join(", ")} CU`);
    for (const u of f.world.poolUnits(r)) expect(u).toBeLessThanOrEqual(WITHDRAW_BUDGET_CREATED);
    expect(f.world.balance(ata(recipientOf(i), MINT))).toBe(amount - FEE);
    expect(f.world.balance(relayerAta) - feeBefore).toBe(FEE);
    expect(vaultBefore - f.world.vaultBalance()).toBe(amount);
    vaultBefore = f.world.vaultBalance();
    expect(r.events).toEqual([
      {
        name: "WithdrawEvent",
        nullifierHash: placed.note.nullifierHash,
        recipient: publicKeyBytes(recipientOf(i)),
        amount,
        fee: FEE,
        relayer: f.relayer.publicKey.toBytes(),
        changeCommitment: p.changeCommitment,
        changeLeafIndex: treeBefore.nextIndex,
      },
    ]);
    const change = f.landed(p);
    expect(change.leafIndex).toBe(treeBefore.nextIndex);
    expect(change.note.amount).toBe(placed.note.amount - amount);
    expect(change.note.commitment).toEqual(p.changeCommitment);
    const tree = f.world.treeAccount();
    expect(tree.depositCount).toBe(treeBefore.depositCount);
    expect(tree.totalWithdrawn).toBe(treeBefore.totalWithdrawn + amount);
    expectRootMirrored();
    proofs.push(p);
    return change;
  }

  it("withdraws 3 SOL of a 10 SOL deposit note: the 7 SOL left is a change leaf at the next index, and the pool's root is the TypeScript tree's with it appended", async () => {
    const a = await f.depositNote("chain of three", 10n * SOL);
    expectRootMirrored();
    pieces.push(await piece(a, 1, 3n * SOL));
  }, 60_000);

  it("spends that change note (its path runs through the leaf the program inserted): 2 SOL more, 5 SOL left", async () => {
    pieces.push(await piece(pieces[0]!, 2, 2n * SOL));
  }, 60_000);

  it("the third piece takes the whole 5 SOL left: a change leaf holding 0 is inserted all the same", async () => {
    const last = await piece(pieces[1]!, 3, 5n * SOL);
    expect(last.note.amount).toBe(0n);
    pieces.push(last);
  }, 60_000);

  it("each piece's nullifier is spent once: replaying any piece fails NullifierSpent, and nothing moves", () => {
    for (const p of proofs) {
      const r = send([withdrawInstruction(f.withdrawParams(p))]);
      expectPoolError(r, 0, "NullifierSpent");
      expect(f.world.vaultBalance()).toBe(vaultBefore);
    }
    expectRootMirrored();
  });

  it("a change note of an empty chain end cannot withdraw anything: the SDK refuses amount 0 and the program refuses it as InvalidInput", async () => {
    await expect(f.prove(pieces[2]!, recipientOf(4), { amount: 0n })).rejects.toThrow(/amount/);
    // The last piece's own proof with amount 0 (what a client could send) never reaches the proof.
    const r = send([withdrawInstruction(f.withdrawParams(proofs[2]!, { amount: 0n, fee: 0n, nullifierHash: pieces[2]!.note.nullifierHash }))]);
    expectPoolError(r, 0, "InvalidInput");
    expect(f.world.vaultBalance()).toBe(vaultBefore);
  });
});
