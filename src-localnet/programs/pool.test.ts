import path from "node:path";
import { fileURLToPath } from "node:url";
import { Keypair, PublicKey, type TransactionInstruction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { computeLeaf, computePrecommitment } from "../../src-shared/crypto/protocol";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { toHex } from "../../src-shared/encoding/bytes";
import { FIELD_MODULUS, bigIntToBytes32, bytesToBigInt } from "../../src-shared/encoding/field";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  POOL_ERRORS,
  SYSTEM_PROGRAM_ID,
  SYSVAR_INSTRUCTIONS_ID,
  TOKEN_PROGRAM_ID,
  assertSwapOutInstruction,
  associatedTokenAddress,
  commitmentMarkerAddress,
  currentRoot,
  decodeDepositReceipt,
  decodeNullifierAccount,
  decodePoolEventLogs,
  decodeTreeAccount,
  depositInstruction,
  depositReceiptAddress,
  encodeTokenAccount,
  initializePoolInstruction,
  poolErrorFromLogs,
  poolNullifierAddress,
  poolTreeAddress,
  poolVaultAddress,
  publicKeyBytes,
  revertInstruction,
  revertMarkerAddress,
  revertNullifierOfReceipt,
  withdrawInstruction,
  withdrawSwapInstruction,
  type TreeAccountData,
} from "../../src-shared/pool-program";
import { FIXTURE_FEE, FIXTURE_MINT, FIXTURE_NOTE, FIXTURE_OUTPUT_MINT, FIXTURE_RELAYER_SEED, loadFixtures } from "../../src-server/adapters/verifier-groth16/test-fixtures/fixtures";
import { createGroth16Verifier } from "../../src-server/adapters/verifier-groth16/worker-pool";
import { MerkleTree } from "../../src-server/core/merkle/tree";
import { pubkeyToField } from "../../src-server/core/proof/public-inputs";
import type { ProofVerifier } from "../../src-server/ports/proof-verifier";
import { createDefaultPrograms } from "./index";
import { POOL_UNITS } from "./pool";
import { address, MemoryLedger, type TxResult } from "./test-kit";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const VKEY = path.join(ROOT, "resources/zk/verification_key.json");

const PROGRAM_ID = "FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ";
const SOL = 1_000_000_000n;

/**
 * The recorded real proofs (src-server/adapters/verifier-groth16/test-fixtures,
 * see generate.ts): seven notes of (i+1) SOL deposited in order as
 * precommitments into the pool of FIXTURE_MINT; proofs for leaves 0, 5 and 6
 * (withdraw) and 1 and 2 (withdraw_swap to FIXTURE_OUTPUT_MINT, minOut 1 and
 * 2^62) against the root of those seven leaves, every one bound to the fixture
 * relayer and FIXTURE_FEE. Depositing the same seven precommitments here
 * reproduces that root, so the proofs verify against the program's tree.
 */
const mint = encodeBase58(FIXTURE_MINT);
const outputMint = encodeBase58(FIXTURE_OUTPUT_MINT);
const NOTE = FIXTURE_NOTE;
const FEE = FIXTURE_FEE;
interface Fixture {
  label: string;
  proof: Uint8Array;
  root: Uint8Array;
  nullifierHash: Uint8Array;
  recipient: string;
  amount: bigint;
  minOut: bigint;
}
const RECIPIENTS: Record<string, Uint8Array> = {
  "leaf 0, 1 SOL": Uint8Array.from({ length: 32 }, (_, i) => i + 1),
  "leaf 5, 6 SOL": Uint8Array.from({ length: 32 }, (_, i) => 0xff - 3 * i),
  "leaf 6, 7 SOL": new Uint8Array(32).fill(0x80),
  "leaf 1, 2 SOL, swap min 1": Uint8Array.from({ length: 32 }, (_, i) => 0x11 + i),
  "leaf 2, 3 SOL, swap unreachable": Uint8Array.from({ length: 32 }, (_, i) => 0x51 + i),
};

/** The relayer every recorded proof is bound to; also the pool's authority here. */
const authority = Keypair.fromSeed(FIXTURE_RELAYER_SEED).publicKey.toBase58();

let hasher: FieldHasher;
let verifier: ProofVerifier;
let fixtures: Record<"leaf0" | "leaf5" | "leaf6" | "swap1" | "swapUnreachable", Fixture>;
let precommitments: Uint8Array[];
let commitments: Uint8Array[];

beforeAll(async () => {
  hasher = await createPoseidonHasher();
  verifier = await createGroth16Verifier(VKEY, { threads: 1 });
  const cases = loadFixtures();
  const byLabel = (label: string): Fixture => {
    const c = cases.find((x) => x.label === label)!;
    const recipient = RECIPIENTS[label]!;
    expect(c.terms.relayer).toBe(authority);
    expect(BigInt(c.terms.fee)).toBe(FEE);
    // The recorded public inputs are the ones the program recomputes (recipient and mint fields included).
    expect(toHex(c.signals[2]!)).toBe(toHex(pubkeyToField(hasher, recipient)));
    expect(toHex(c.signals[4]!)).toBe(toHex(pubkeyToField(hasher, FIXTURE_MINT)));
    return {
      label,
      proof: c.proof,
      root: c.signals[0]!,
      nullifierHash: c.signals[1]!,
      recipient: encodeBase58(recipient),
      amount: bytesToBigInt(c.signals[3]!),
      minOut: BigInt(c.terms.minOut ?? "0"),
    };
  };
  fixtures = {
    leaf0: byLabel("leaf 0, 1 SOL"),
    leaf5: byLabel("leaf 5, 6 SOL"),
    leaf6: byLabel("leaf 6, 7 SOL"),
    swap1: byLabel("leaf 1, 2 SOL, swap min 1"),
    swapUnreachable: byLabel("leaf 2, 3 SOL, swap unreachable"),
  };
  precommitments = [0, 1, 2, 3, 4, 5, 6].map((i) => computePrecommitment(hasher, bigIntToBytes32(NOTE(i).nullifier), bigIntToBytes32(NOTE(i).secret)));
  commitments = precommitments.map((p, i) => computeLeaf(hasher, p, NOTE(i).amount, FIXTURE_MINT));
});

afterAll(async () => {
  await verifier?.close();
});

const depositor = address("depositor");

function pool(): MemoryLedger {
  const ledger = new MemoryLedger(createDefaultPrograms({ poolProgramId: PROGRAM_ID, hasher, verifier }));
  ledger.airdrop(authority, 10n * SOL);
  ledger.airdrop(depositor, 10n * SOL);
  ledger.fundToken(depositor, mint, 100n * SOL);
  ledger.fundToken(authority, mint, 0n);
  return ledger;
}

function expectOk(r: TxResult): void {
  if (r.err) throw new Error(`transaction failed: ${JSON.stringify(r.err)} ${r.message}\n${r.logs.join("\n")}`);
}

function expectCustom(r: TxResult, code: number): void {
  expect(r.err, r.logs.join("\n")).toEqual({ InstructionError: [expect.any(Number), { Custom: code }] });
}

function deposit(precommitment: Uint8Array, amount: bigint, nonce: bigint, from = depositor): TransactionInstruction {
  return depositInstruction({ programId: PROGRAM_ID, depositor: from, mint, precommitment, amount, nonce, hasher });
}

function tree(ledger: MemoryLedger): TreeAccountData {
  const t = decodeTreeAccount(ledger.get(poolTreeAddress(PROGRAM_ID, mint))!.data);
  if (!t.ok) throw new Error(t.error);
  return t.value;
}

async function initialized(): Promise<MemoryLedger> {
  const ledger = pool();
  expectOk(await ledger.run([initializePoolInstruction({ programId: PROGRAM_ID, authority, mint })], [authority]));
  return ledger;
}

/** A pool holding the seven fixture notes (leaves 0..6, nonces 0..6): the proofs' root is its current root. */
async function withFixtureDeposits(): Promise<MemoryLedger> {
  const ledger = await initialized();
  for (let i = 0; i < 7; i++) expectOk(await ledger.run([deposit(precommitments[i]!, NOTE(i).amount, BigInt(i))], [depositor]));
  expect(toHex(currentRoot(tree(ledger)))).toBe(toHex(fixtures.leaf0.root));
  return ledger;
}

function withdraw(f: Fixture, fee = FEE, over: Partial<{ root: Uint8Array; amount: bigint; proof: Uint8Array; relayer: string }> = {}): TransactionInstruction {
  return withdrawInstruction({
    programId: PROGRAM_ID,
    relayer: over.relayer ?? authority,
    mint,
    proof: over.proof ?? f.proof,
    root: over.root ?? f.root,
    nullifierHash: f.nullifierHash,
    recipient: f.recipient,
    amount: over.amount ?? f.amount,
    fee,
  });
}

const vault = (): string => poolVaultAddress(PROGRAM_ID, mint);

describe("initialize_pool", () => {
  it("creates the tree (empty root Z[32] in slot 0, the signer as authority) and a vault token account that is its own token owner, rent paid by the authority", async () => {
    const ledger = pool();
    const before = ledger.lamports(authority);
    const r = await ledger.run([initializePoolInstruction({ programId: PROGRAM_ID, authority, mint })], [authority]);
    expectOk(r);
    const t = tree(ledger);
    const empty = new MerkleTree(hasher);
    expect(toHex(currentRoot(t))).toBe(toHex(empty.root()));
    expect(t.currentRootIndex).toBe(0);
    expect(t.roots.slice(1).every((x) => x.every((b) => b === 0))).toBe(true);
    expect(encodeBase58(t.authority)).toBe(authority);
    expect(t.nextIndex).toBe(0);
    expect(t.createdSlot).toBe(100n);
    const v = ledger.get(vault())!;
    expect(v.owner).toBe(TOKEN_PROGRAM_ID);
    expect(encodeBase58(v.data.subarray(32, 64))).toBe(vault());
    expect(ledger.tokenBalance(vault())).toBe(0n);
    expect(before - ledger.lamports(authority)).toBe(ledger.rentExempt(4353) + ledger.rentExempt(165));
    expect(ledger.get(poolTreeAddress(PROGRAM_ID, mint))!.lamports).toBe(ledger.rentExempt(4353));
  });

  it("fails when the tree exists (the system program's AccountAlreadyInUse)", async () => {
    const ledger = await initialized();
    const r = await ledger.run([initializePoolInstruction({ programId: PROGRAM_ID, authority, mint })], [authority]);
    expectCustom(r, 0);
    expect(r.logs.join("\n")).toMatch(/already in use/);
  });
});

describe("deposit", () => {
  it("moves the amount into the vault and inserts the leaf Poseidon(precommitment, amount, mintField) at nextIndex, the root advancing exactly as MerkleTree's for the same leaves", async () => {
    const ledger = await initialized();
    const reference = new MerkleTree(hasher);
    for (let i = 0; i < 7; i++) {
      const r = await ledger.run([deposit(precommitments[i]!, NOTE(i).amount, BigInt(i))], [depositor]);
      expectOk(r);
      reference.append(commitments[i]!);
      const t = tree(ledger);
      expect(t.nextIndex).toBe(i + 1);
      expect(t.currentRootIndex).toBe(i + 1);
      expect(toHex(currentRoot(t))).toBe(toHex(reference.root()));
      const events = decodePoolEventLogs(r.logs, PROGRAM_ID);
      expect(events).toEqual([
        { name: "DepositEvent", leafIndex: i, commitment: commitments[i], depositor: publicKeyBytes(depositor), amount: NOTE(i).amount, slot: BigInt(100 + 1 + i), nonce: BigInt(i) },
      ]);
      const receipt = decodeDepositReceipt(ledger.get(depositReceiptAddress(PROGRAM_ID, mint, depositor, BigInt(i)))!.data);
      expect(receipt).toMatchObject({ ok: true, value: { status: "indexed", leafIndex: i, amount: NOTE(i).amount, nonce: BigInt(i), commitment: commitments[i] } });
      expect(ledger.get(commitmentMarkerAddress(PROGRAM_ID, mint, commitments[i]!))?.owner).toBe(PROGRAM_ID);
      // ≈ 60k units: the program, the token CPI, two account creations, 34 Poseidon hashes.
      expect(r.unitsConsumed).toBeGreaterThan(50_000);
      expect(r.unitsConsumed).toBeLessThan(70_000);
    }
    const t = tree(ledger);
    expect(t.depositCount).toBe(7n);
    expect(t.totalDeposited).toBe(28n * SOL);
    expect(ledger.tokenBalance(vault())).toBe(28n * SOL);
    expect(ledger.tokenBalance(associatedTokenAddress(depositor, mint))).toBe(72n * SOL);
    expect(toHex(currentRoot(t))).toBe(toHex(fixtures.leaf0.root));
  });

  it("a deposit of 7 base units inserts the leaf Poseidon(precommitment, 7, mintField): the amount the vault received, nothing the depositor chose", async () => {
    const ledger = await initialized();
    const precommitment = precommitments[0]!;
    const r = await ledger.run([deposit(precommitment, 7n, 70n)], [depositor]);
    expectOk(r);
    const mintField = pubkeyToField(hasher, FIXTURE_MINT);
    const leaf = hasher.hash([precommitment, bigIntToBytes32(7n), mintField]);
    const reference = new MerkleTree(hasher);
    reference.append(leaf);
    expect(toHex(currentRoot(tree(ledger)))).toBe(toHex(reference.root()));
    expect(decodePoolEventLogs(r.logs, PROGRAM_ID)).toEqual([expect.objectContaining({ name: "DepositEvent", leafIndex: 0, commitment: leaf, amount: 7n })]);
    expect(ledger.tokenBalance(vault())).toBe(7n);
    expect(tree(ledger).totalDeposited).toBe(7n);
    // The same precommitment with the note's real amount is another leaf: a note is worth exactly what was paid for it.
    expect(toHex(leaf)).not.toBe(toHex(commitments[0]!));
  });

  it.each<[string, () => Uint8Array, bigint, "zero" | "notAFieldElement" | "duplicate"]>([
    ["zero", () => new Uint8Array(32), 5n * SOL, "zero"],
    ["equal to the field modulus", () => bigIntToBytes32(FIELD_MODULUS), 5n * SOL, "notAFieldElement"],
    ["whose leaf is already in the tree (leaf 3's precommitment and amount)", () => precommitments[3]!, 4n * SOL, "duplicate"],
  ])("a precommitment %s fails the deposit: the root stays, the funds still move, the receipt is failed and a DepositFailedEvent names the reason", async (_n, precommitment, amount, reason) => {
    const ledger = await withFixtureDeposits();
    const before = tree(ledger);
    const r = await ledger.run([deposit(precommitment(), amount, 99n)], [depositor]);
    expectOk(r);
    const after = tree(ledger);
    expect(toHex(currentRoot(after))).toBe(toHex(currentRoot(before)));
    expect(after.nextIndex).toBe(7);
    expect(after.depositCount).toBe(8n);
    expect(after.totalDeposited).toBe(28n * SOL + amount);
    expect(ledger.tokenBalance(vault())).toBe(28n * SOL + amount);
    const leaf = reason === "duplicate" ? commitments[3]! : new Uint8Array(32);
    expect(decodeDepositReceipt(ledger.get(depositReceiptAddress(PROGRAM_ID, mint, depositor, 99n))!.data)).toMatchObject({
      ok: true,
      value: { status: "failed", leafIndex: null, amount, commitment: leaf },
    });
    expect(decodePoolEventLogs(r.logs, PROGRAM_ID)).toEqual([
      { name: "DepositFailedEvent", precommitment: precommitment(), commitment: leaf, depositor: publicKeyBytes(depositor), amount, slot: expect.any(BigInt), nonce: 99n, reason },
    ]);
  });

  it("lamports sent to a commitment's marker address beforehand do not make it a duplicate", async () => {
    const ledger = await initialized();
    ledger.airdrop(commitmentMarkerAddress(PROGRAM_ID, mint, commitments[0]!), 1n);
    const r = await ledger.run([deposit(precommitments[0]!, SOL, 0n)], [depositor]);
    expectOk(r);
    expect(decodePoolEventLogs(r.logs, PROGRAM_ID)).toEqual([expect.objectContaining({ name: "DepositEvent", leafIndex: 0 })]);
    expect(ledger.get(commitmentMarkerAddress(PROGRAM_ID, mint, commitments[0]!))).toMatchObject({ owner: PROGRAM_ID, lamports: ledger.rentExempt(0) });
  });

  it("fails without moving anything when the nonce's receipt exists, when the depositor has not the funds, or without the commitment marker", async () => {
    const ledger = await withFixtureDeposits();
    const extra = bigIntToBytes32(12345n);
    expectCustom(await ledger.run([deposit(extra, SOL, 3n)], [depositor]), 0); // receipt in use
    const poor = address("poor");
    ledger.airdrop(poor, SOL);
    ledger.fundToken(poor, mint, 10n);
    const r = await ledger.run([deposit(extra, SOL, 0n, poor)], [poor]);
    expectCustom(r, 1); // the token program's InsufficientFunds
    expect(r.logs).toContain("Program log: Error: insufficient funds");
    const noMarker = deposit(extra, SOL, 50n);
    noMarker.keys.pop();
    expectCustom(await ledger.run([noMarker], [depositor]), 3005);
    expect(ledger.tokenBalance(vault())).toBe(28n * SOL);
    expect(tree(ledger).depositCount).toBe(7n);
  });

  it("refuses a commitment marker at another address than the computed leaf's (ConstraintSeeds) and a depositor that did not sign (AccountNotSigner)", async () => {
    const ledger = await initialized();
    const ix = deposit(precommitments[0]!, SOL, 0n);
    ix.keys[8] = { pubkey: new PublicKey(commitmentMarkerAddress(PROGRAM_ID, mint, commitments[1]!)), isSigner: false, isWritable: true };
    expectCustom(await ledger.run([ix], [depositor]), 2006);
    // The precommitment's own PDA is not the leaf's either: a depositor cannot name the leaf.
    const own = deposit(precommitments[0]!, SOL, 0n);
    own.keys[8] = { pubkey: new PublicKey(commitmentMarkerAddress(PROGRAM_ID, mint, precommitments[0]!)), isSigner: false, isWritable: true };
    expectCustom(await ledger.run([own], [depositor]), 2006);
    expectCustom(await ledger.run([deposit(precommitments[0]!, SOL, 0n)], [authority]), 3010);
  });
});

describe("withdraw", () => {
  it("with a real proof pays exactly amount − fee to the recipient (creating their token account) and fee to the relayer, and creates the nullifier account", async () => {
    const ledger = await withFixtureDeposits();
    const f = fixtures.leaf0;
    const fee = FEE;
    const recipientAta = associatedTokenAddress(f.recipient, mint);
    expect(ledger.get(recipientAta)).toBeNull();
    const lamportsBefore = ledger.lamports(authority);
    const r = await ledger.run([withdraw(f, fee)], [authority]);
    expectOk(r);
    expect(ledger.tokenBalance(recipientAta)).toBe(f.amount - fee);
    expect(ledger.tokenBalance(associatedTokenAddress(authority, mint))).toBe(fee);
    expect(ledger.tokenBalance(vault())).toBe(28n * SOL - f.amount);
    const nullifier = poolNullifierAddress(PROGRAM_ID, mint, f.nullifierHash);
    expect(decodeNullifierAccount(ledger.get(nullifier)!.data)).toEqual({
      ok: true,
      value: { mint: publicKeyBytes(mint), nullifierHash: f.nullifierHash, kind: "withdraw", slot: BigInt(ledger.slot - 1) },
    });
    expect(ledger.get(nullifier)!.owner).toBe(PROGRAM_ID);
    // Rent of the nullifier account and of the recipient's token account, both paid by the relayer.
    expect(lamportsBefore - ledger.lamports(authority)).toBe(ledger.rentExempt(81) + ledger.rentExempt(165));
    expect(tree(ledger).totalWithdrawn).toBe(f.amount);
    expect(decodePoolEventLogs(r.logs, PROGRAM_ID)).toEqual([
      { name: "WithdrawEvent", nullifierHash: f.nullifierHash, recipient: publicKeyBytes(f.recipient), amount: f.amount, fee, relayer: publicKeyBytes(authority) },
    ]);
    expect(r.logs).toContain(`Program ${ASSOCIATED_TOKEN_PROGRAM_ID} invoke [2]`);
    expect(r.logs).toContain(`Program ${SYSTEM_PROGRAM_ID} invoke [3]`);
    // ≈ 200k units: proof verification dominates.
    expect(r.unitsConsumed).toBeGreaterThan(180_000);
    expect(r.unitsConsumed).toBeLessThan(230_000);
  });

  it("a second withdraw of the same nullifier fails with Custom 6002 (NullifierSpent) and pays nothing", async () => {
    const ledger = await withFixtureDeposits();
    expectOk(await ledger.run([withdraw(fixtures.leaf0)], [authority]));
    const vaultBefore = ledger.tokenBalance(vault());
    const r = await ledger.run([withdraw(fixtures.leaf0)], [authority]);
    expectCustom(r, POOL_ERRORS.NullifierSpent);
    expect(r.logs).toContain("Program log: Error: NullifierSpent");
    expect(poolErrorFromLogs(r.logs)).toBe("NullifierSpent");
    expect(ledger.tokenBalance(vault())).toBe(vaultBefore);
  });

  it("a root that is not in the tree's history fails with Custom 6001 (UnknownRoot)", async () => {
    const ledger = await withFixtureDeposits();
    const r = await ledger.run([withdraw(fixtures.leaf0, FEE, { root: bigIntToBytes32(bytesToBigInt(fixtures.leaf0.root) ^ 1n) })], [authority]);
    expectCustom(r, POOL_ERRORS.UnknownRoot);
    expect(r.logs).toContain("Program log: Error: UnknownRoot");
  });

  it("a proof that does not verify fails with Custom 6000 (InvalidProof): a flipped byte, or another amount than the proof's", async () => {
    const ledger = await withFixtureDeposits();
    const bad = fixtures.leaf6.proof.slice();
    bad[200]! ^= 1;
    expectCustom(await ledger.run([withdraw(fixtures.leaf6, FEE, { proof: bad })], [authority]), POOL_ERRORS.InvalidProof);
    const r = await ledger.run([withdraw(fixtures.leaf6, FEE, { amount: fixtures.leaf6.amount - 1n })], [authority]);
    expectCustom(r, POOL_ERRORS.InvalidProof);
    expect(r.logs).toContain("Program log: Error: InvalidProof");
    expect(ledger.get(poolNullifierAddress(PROGRAM_ID, mint, fixtures.leaf6.nullifierHash))).toBeNull();
    expect(ledger.tokenBalance(vault())).toBe(28n * SOL);
  });

  it("a fee above the amount fails with Custom 6003 (FeeExceedsAmount)", async () => {
    const ledger = await withFixtureDeposits();
    expectCustom(await ledger.run([withdraw(fixtures.leaf0, fixtures.leaf0.amount + 1n)], [authority]), POOL_ERRORS.FeeExceedsAmount);
  });

  it("a vault holding less than the amount fails with Custom 6008 (InsufficientVault)", async () => {
    const ledger = await withFixtureDeposits();
    // Drain the vault behind the program's back, as a bug elsewhere would.
    const v = ledger.get(vault())!;
    const data = v.data.slice();
    new DataView(data.buffer).setBigUint64(64, SOL / 2n, true);
    ledger.accounts.set(vault(), { ...v, data });
    expectCustom(await ledger.run([withdraw(fixtures.leaf0)], [authority]), POOL_ERRORS.InsufficientVault);
  });

  it("refuses a nullifier account at another address (ConstraintSeeds) and a recipient account that is not the proof's recipient (ConstraintAddress)", async () => {
    const ledger = await withFixtureDeposits();
    const ix = withdraw(fixtures.leaf0);
    ix.keys[4] = { pubkey: new PublicKey(poolNullifierAddress(PROGRAM_ID, mint, fixtures.leaf5.nullifierHash)), isSigner: false, isWritable: true };
    expectCustom(await ledger.run([ix], [authority]), 2006);
    const ix2 = withdraw(fixtures.leaf0);
    ix2.keys[5] = { pubkey: new PublicKey(address("someone")), isSigner: false, isWritable: false };
    expectCustom(await ledger.run([ix2], [authority]), 2012);
  });

  it("lamports sent to the nullifier PDA or the recipient's token account beforehand do not block the withdrawal (Anchor's init takes a prefunded address)", async () => {
    const ledger = await withFixtureDeposits();
    const f = fixtures.leaf0;
    const nullifier = poolNullifierAddress(PROGRAM_ID, mint, f.nullifierHash);
    ledger.airdrop(nullifier, 1_000n);
    ledger.airdrop(associatedTokenAddress(f.recipient, mint), 5_000_000n);
    expectOk(await ledger.run([withdraw(f)], [authority]));
    expect(ledger.get(nullifier)).toMatchObject({ owner: PROGRAM_ID, lamports: ledger.rentExempt(81) });
    expect(ledger.tokenBalance(associatedTokenAddress(f.recipient, mint))).toBe(f.amount - FEE);
    expectCustom(await ledger.run([withdraw(f)], [authority]), POOL_ERRORS.NullifierSpent);
  });

  it("a valid proof resubmitted with another fee fails InvalidProof (extDataHash binds the fee): nothing moves", async () => {
    const ledger = await withFixtureDeposits();
    for (const fee of [FEE + 1n, FEE - 1n, 0n, fixtures.leaf0.amount]) {
      const r = await ledger.run([withdraw(fixtures.leaf0, fee)], [authority]);
      expectCustom(r, POOL_ERRORS.InvalidProof);
    }
    expect(ledger.tokenBalance(vault())).toBe(28n * SOL);
    expect(ledger.get(poolNullifierAddress(PROGRAM_ID, mint, fixtures.leaf0.nullifierHash))).toBeNull();
  });

  it("signed by another relayer (who would receive the fee) fails InvalidProof (extDataHash binds the signer): nothing moves", async () => {
    const ledger = await withFixtureDeposits();
    const thief = address("another-relayer");
    ledger.airdrop(thief, SOL);
    ledger.fundToken(thief, mint, 0n);
    const r = await ledger.run([withdraw(fixtures.leaf0, FEE, { relayer: thief })], [thief]);
    expectCustom(r, POOL_ERRORS.InvalidProof);
    expect(ledger.tokenBalance(vault())).toBe(28n * SOL);
    expect(ledger.tokenBalance(associatedTokenAddress(thief, mint))).toBe(0n);
    // The fixture relayer still can.
    expectOk(await ledger.run([withdraw(fixtures.leaf0)], [authority]));
  });

  it("a recipient token account owned by someone else, or of another mint, fails WrongTokenAccount (6009); so does a relayer token account that is not the relayer's", async () => {
    const ledger = await withFixtureDeposits();
    const f = fixtures.leaf0;
    const ata = associatedTokenAddress(f.recipient, mint);
    const put = (at: string, owner: string, m: string) =>
      ledger.accounts.set(at, { lamports: ledger.rentExempt(165), owner: TOKEN_PROGRAM_ID, data: encodeTokenAccount({ mint: publicKeyBytes(m), owner: publicKeyBytes(owner), amount: 0n }), executable: false });
    // An SPL token account's owner can be changed (SetAuthority AccountOwner), so the ATA address alone proves nothing.
    put(ata, address("someone-else"), mint);
    let r = await ledger.run([withdraw(f)], [authority]);
    expectCustom(r, POOL_ERRORS.WrongTokenAccount);
    expect(r.logs).toContain("Program log: Error: WrongTokenAccount");
    put(ata, f.recipient, outputMint);
    expectCustom(await ledger.run([withdraw(f)], [authority]), POOL_ERRORS.WrongTokenAccount);
    put(ata, f.recipient, mint);
    put(associatedTokenAddress(authority, mint), address("someone-else"), mint);
    expectCustom(await ledger.run([withdraw(f)], [authority]), POOL_ERRORS.WrongTokenAccount);
    expect(ledger.tokenBalance(vault())).toBe(28n * SOL);
    put(associatedTokenAddress(authority, mint), authority, mint);
    expectOk(await ledger.run([withdraw(f)], [authority]));
    expect(ledger.tokenBalance(ata)).toBe(f.amount - FEE);
  });

  it("a simulation-sized unit limit below the withdraw's cost fails with ComputationalBudgetExceeded", async () => {
    const ledger = await withFixtureDeposits();
    const r = await ledger.run([withdraw(fixtures.leaf0)], [authority], { unitLimit: 100_000 });
    expect(r.err).toEqual({ InstructionError: [0, "ComputationalBudgetExceeded"] });
    expect(POOL_UNITS.proofVerification).toBeGreaterThan(100_000);
  });
});

describe("withdraw_swap and assert_swap_out", () => {
  const relayerOut = (): string => associatedTokenAddress(authority, outputMint);
  const recipientOut = (f: Fixture): string => associatedTokenAddress(f.recipient, outputMint);

  /** The venue's swap stands in as a plain token transfer of `venueOut` from the relayer's output account to the recipient's (no Jupiter locally). */
  function venue(f: Fixture, venueOut: bigint): TransactionInstruction {
    return {
      programId: new PublicKey(TOKEN_PROGRAM_ID),
      keys: [
        { pubkey: new PublicKey(relayerOut()), isSigner: false, isWritable: true },
        { pubkey: new PublicKey(recipientOut(f)), isSigner: false, isWritable: true },
        { pubkey: new PublicKey(authority), isSigner: true, isWritable: true },
      ],
      data: Buffer.from([3, ...new Uint8Array(new BigUint64Array([venueOut]).buffer)]),
    } as TransactionInstruction;
  }

  function withdrawSwap(f: Fixture, over: Partial<{ fee: bigint; minOut: bigint }> = {}): TransactionInstruction {
    return withdrawSwapInstruction({
      programId: PROGRAM_ID,
      relayer: authority,
      mint,
      proof: f.proof,
      root: f.root,
      nullifierHash: f.nullifierHash,
      recipient: f.recipient,
      amount: f.amount,
      fee: over.fee ?? FEE,
      outputMint,
      minOut: over.minOut ?? f.minOut,
    });
  }

  const assertOut = (f: Fixture, requiredBalance: bigint): TransactionInstruction => assertSwapOutInstruction({ programId: PROGRAM_ID, recipient: f.recipient, outputMint, requiredBalance });

  function swapTx(f: Fixture, venueOut: bigint, requiredBalance = f.minOut): TransactionInstruction[] {
    return [withdrawSwap(f), venue(f, venueOut), assertOut(f, requiredBalance)];
  }

  async function swapPool(): Promise<MemoryLedger> {
    const ledger = await withFixtureDeposits();
    ledger.fundToken(authority, outputMint, 50n * SOL);
    return ledger;
  }

  /** Nothing moved: the vault, the relayer's input account and the nullifier are as before. */
  function expectNothingMoved(ledger: MemoryLedger, f: Fixture): void {
    expect(ledger.tokenBalance(vault())).toBe(28n * SOL);
    expect(ledger.tokenBalance(associatedTokenAddress(authority, mint))).toBe(0n);
    expect(ledger.get(poolNullifierAddress(PROGRAM_ID, mint, f.nullifierHash))).toBeNull();
  }

  it("withdraw_swap lists the Instructions sysvar; it pays the whole amount to the relayer's input token account and creates the recipient's output account; the swap delivers ≥ minOut and the assertion lands with it", async () => {
    const ledger = await swapPool();
    const f = fixtures.swap1;
    expect(withdrawSwap(f).keys[14]!.pubkey.toBase58()).toBe(SYSVAR_INSTRUCTIONS_ID);
    const r = await ledger.run(swapTx(f, 3n * SOL, 0n + f.minOut), [authority]);
    expectOk(r);
    expect(ledger.tokenBalance(associatedTokenAddress(authority, mint))).toBe(f.amount);
    expect(ledger.tokenBalance(recipientOut(f))).toBe(3n * SOL);
    expect(ledger.get(associatedTokenAddress(f.recipient, mint))).toBeNull();
    expect(ledger.get(poolNullifierAddress(PROGRAM_ID, mint, f.nullifierHash))).not.toBeNull();
    expect(decodePoolEventLogs(r.logs, PROGRAM_ID)).toEqual([expect.objectContaining({ name: "WithdrawEvent", amount: f.amount, fee: FEE })]);
  });

  it("assert_swap_out fails the whole transaction with Custom 6007 (SwapOutputTooLow) when the recipient holds less than requiredBalance: nothing is withdrawn", async () => {
    const ledger = await swapPool();
    const f = fixtures.swap1;
    const r = await ledger.run(swapTx(f, 2n * SOL, 3n * SOL), [authority]);
    expect(r.err).toEqual({ InstructionError: [2, { Custom: POOL_ERRORS.SwapOutputTooLow }] });
    expect(r.logs).toContain("Program log: Error: SwapOutputTooLow");
    expectNothingMoved(ledger, f);
    expect(ledger.get(recipientOut(f))).toBeNull();
  });

  it("an unreachable minOut (2^62): requiredBalance must be at least minOut, and no swap reaches it; nothing moves", async () => {
    const ledger = await swapPool();
    const f = fixtures.swapUnreachable;
    expect(f.minOut).toBe(1n << 62n);
    expectCustom(await ledger.run(swapTx(f, 50n * SOL, 50n * SOL), [authority]), POOL_ERRORS.RequiredBalanceTooLow);
    const r = await ledger.run(swapTx(f, 50n * SOL, f.minOut), [authority]);
    expect(r.err).toEqual({ InstructionError: [2, { Custom: POOL_ERRORS.SwapOutputTooLow }] });
    expectNothingMoved(ledger, f);
  });

  it("a lower minOut than the proof's, or another fee, fails InvalidProof (extDataHash binds outputMint, minOut and fee)", async () => {
    const ledger = await swapPool();
    const f = fixtures.swapUnreachable;
    for (const terms of [{ minOut: 1n }, { minOut: 0n }, { fee: 0n }, { fee: FEE + 1n }]) {
      const ix = withdrawSwap(f, terms);
      const r = await ledger.run([ix, venue(f, SOL), assertOut(f, terms.minOut ?? f.minOut)], [authority]);
      expect(r.err).toEqual({ InstructionError: [0, { Custom: POOL_ERRORS.InvalidProof }] });
    }
    // A plain withdraw of a swap proof (outputMint 0, minOut 0 in its hash) fails too.
    expectCustom(await ledger.run([withdraw(f)], [authority]), POOL_ERRORS.InvalidProof);
    expectNothingMoved(ledger, f);
  });

  it("without an assert_swap_out after it: SwapAssertMissing (6010), also when the only one comes before the withdraw_swap", async () => {
    const ledger = await swapPool();
    const f = fixtures.swap1;
    let r = await ledger.run([withdrawSwap(f), venue(f, SOL)], [authority]);
    expect(r.err).toEqual({ InstructionError: [0, { Custom: POOL_ERRORS.SwapAssertMissing }] });
    ledger.fundToken(f.recipient, outputMint, 0n);
    r = await ledger.run([assertOut(f, 0n), withdrawSwap(f), venue(f, SOL)], [authority]);
    expect(r.err).toEqual({ InstructionError: [1, { Custom: POOL_ERRORS.SwapAssertMissing }] });
    // Another program's instruction with assert_swap_out's data does not count.
    const impostor = assertOut(f, 1n);
    impostor.programId = new PublicKey(address("impostor"));
    r = await ledger.run([withdrawSwap(f), venue(f, SOL), impostor], [authority]);
    expect(r.err).toEqual({ InstructionError: [0, { Custom: POOL_ERRORS.SwapAssertMissing }] });
    expectNothingMoved(ledger, f);
  });

  it("two assert_swap_outs: SwapAssertDuplicated (6011)", async () => {
    const ledger = await swapPool();
    const f = fixtures.swap1;
    const r = await ledger.run([withdrawSwap(f), venue(f, SOL), assertOut(f, 1n), assertOut(f, 1n)], [authority]);
    expect(r.err).toEqual({ InstructionError: [0, { Custom: POOL_ERRORS.SwapAssertDuplicated }] });
    expectNothingMoved(ledger, f);
  });

  it("an assert_swap_out naming another token account than the recipient's output account: SwapAssertWrongAccount (6012)", async () => {
    const ledger = await swapPool();
    const f = fixtures.swap1;
    const other = assertSwapOutInstruction({ programId: PROGRAM_ID, recipient: authority, outputMint, requiredBalance: 1n });
    const r = await ledger.run([withdrawSwap(f), venue(f, SOL), other], [authority]);
    expect(r.err).toEqual({ InstructionError: [0, { Custom: POOL_ERRORS.SwapAssertWrongAccount }] });
    expectNothingMoved(ledger, f);
  });

  it("requiredBalance below the recipient's output balance now + minOut: RequiredBalanceTooLow (6013), so a balance the recipient already held never counts as the swap's output", async () => {
    const ledger = await swapPool();
    const f = fixtures.swap1;
    ledger.fundToken(f.recipient, outputMint, 5n * SOL);
    const r = await ledger.run(swapTx(f, SOL, 5n * SOL), [authority]);
    expect(r.err).toEqual({ InstructionError: [0, { Custom: POOL_ERRORS.RequiredBalanceTooLow }] });
    expectNothingMoved(ledger, f);
    expectOk(await ledger.run(swapTx(f, SOL, 5n * SOL + f.minOut), [authority]));
    expect(ledger.tokenBalance(recipientOut(f))).toBe(6n * SOL);
  });

  it("a second withdraw_swap in the same transaction: DuplicateWithdrawSwap (6014)", async () => {
    const ledger = await swapPool();
    const a = fixtures.swap1;
    const b = fixtures.swapUnreachable;
    const r = await ledger.run([withdrawSwap(a), withdrawSwap(b), venue(a, SOL), assertOut(a, 1n)], [authority]);
    expect(r.err).toEqual({ InstructionError: [0, { Custom: POOL_ERRORS.DuplicateWithdrawSwap }] });
    expectNothingMoved(ledger, a);
    expect(ledger.get(poolNullifierAddress(PROGRAM_ID, mint, b.nullifierHash))).toBeNull();
  });

  it("a recipient output token account owned by someone else: WrongTokenAccount (6009); a sysvar account that is not the Instructions sysvar: ConstraintAddress", async () => {
    const ledger = await swapPool();
    const f = fixtures.swap1;
    const data = encodeTokenAccount({ mint: publicKeyBytes(outputMint), owner: publicKeyBytes(address("someone-else")), amount: 0n });
    ledger.accounts.set(recipientOut(f), { lamports: ledger.rentExempt(165), owner: TOKEN_PROGRAM_ID, data, executable: false });
    expectCustom(await ledger.run(swapTx(f, SOL), [authority]), POOL_ERRORS.WrongTokenAccount);
    ledger.accounts.delete(recipientOut(f));
    const ix = withdrawSwap(f);
    ix.keys[14] = { pubkey: new PublicKey(address("not-the-sysvar")), isSigner: false, isWritable: false };
    expectCustom(await ledger.run([ix, venue(f, SOL), assertOut(f, 1n)], [authority]), 2012);
    expectNothingMoved(ledger, f);
  });
});

describe("revert", () => {
  /** A pool with one failed deposit (a zero precommitment, 5 SOL, nonce 42). */
  async function withFailedDeposit(): Promise<MemoryLedger> {
    const ledger = await withFixtureDeposits();
    expectOk(await ledger.run([deposit(new Uint8Array(32), 5n * SOL, 42n)], [depositor]));
    return ledger;
  }

  function revert(nonce: bigint, signer = authority): TransactionInstruction {
    const receipt = depositReceiptAddress(PROGRAM_ID, mint, depositor, nonce);
    return revertInstruction({ programId: PROGRAM_ID, authority: signer, mint, depositor, nonce, revertNullifier: revertNullifierOfReceipt(hasher, publicKeyBytes(receipt)) });
  }

  it("pays a failed deposit back to its depositor once, marks the receipt reverted and creates the revert marker; a second revert fails with Custom 6002", async () => {
    const ledger = await withFailedDeposit();
    const depositorAta = associatedTokenAddress(depositor, mint);
    const before = ledger.tokenBalance(depositorAta)!;
    const r = await ledger.run([revert(42n)], [authority]);
    expectOk(r);
    expect(ledger.tokenBalance(depositorAta)).toBe(before + 5n * SOL);
    expect(ledger.tokenBalance(vault())).toBe(28n * SOL);
    const receiptAddress = depositReceiptAddress(PROGRAM_ID, mint, depositor, 42n);
    expect(decodeDepositReceipt(ledger.get(receiptAddress)!.data)).toMatchObject({ ok: true, value: { status: "reverted" } });
    const revertNullifier = revertNullifierOfReceipt(hasher, publicKeyBytes(receiptAddress));
    const marker = ledger.get(revertMarkerAddress(PROGRAM_ID, mint, revertNullifier))!;
    expect(decodeNullifierAccount(marker.data)).toMatchObject({ ok: true, value: { kind: "revert", nullifierHash: revertNullifier } });
    expect(decodePoolEventLogs(r.logs, PROGRAM_ID)).toEqual([
      { name: "RevertEvent", depositor: publicKeyBytes(depositor), amount: 5n * SOL, nonce: 42n, revertNullifier },
    ]);

    const again = await ledger.run([revert(42n)], [authority]);
    expectCustom(again, POOL_ERRORS.NullifierSpent);
    expect(again.logs).toContain("Program log: Error: NullifierSpent");
    expect(ledger.tokenBalance(depositorAta)).toBe(before + 5n * SOL);
  });

  it("only the tree's authority may revert: another signer fails with Custom 6005 (NotAuthority)", async () => {
    const ledger = await withFailedDeposit();
    const r = await ledger.run([revert(42n, depositor)], [depositor]);
    expectCustom(r, POOL_ERRORS.NotAuthority);
    expect(r.logs).toContain("Program log: Error: NotAuthority");
    expect(ledger.tokenBalance(vault())).toBe(33n * SOL);
  });

  it("a deposit that was inserted (indexed) is not revertable: Custom 6006 (NotRevertable)", async () => {
    const ledger = await withFailedDeposit();
    const r = await ledger.run([revert(3n)], [authority]);
    expectCustom(r, POOL_ERRORS.NotRevertable);
    expect(r.logs).toContain("Program log: Error: NotRevertable");
  });

  it("a nonce without a receipt fails with AccountNotInitialized", async () => {
    const ledger = await withFailedDeposit();
    expectCustom(await ledger.run([revert(77n)], [authority]), 3012);
  });
});
