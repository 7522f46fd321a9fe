/**
 * programs/pool/pool.so in the real runtime (LiteSVM, real System / SPL Token / ATA programs):
 * initialize_pool, deposit (protocol v2: the program computes the leaf from what its vault
 * received), failed deposits and revert. Every transaction is built with the codec's builders.
 */
import { Keypair, PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js";
import { beforeAll, describe, expect, it } from "vitest";
import { computeLeaf, computePrecommitment } from "../../src-shared/crypto/protocol";
import { pubkeyToField } from "../../src-shared/crypto/pubkey-field";
import { bigIntToBytes32, FIELD_MODULUS } from "../../src-shared/encoding/field";
import {
  ACCOUNT_DISCRIMINATORS,
  TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  commitmentMarkerAddress,
  currentRoot,
  decodeNullifierAccount,
  decodeTokenAccount,
  depositReceiptAddress,
  encodeTreeAccount,
  findDepositReceiptAddress,
  extendPoolInstruction,
  findEventAuthorityAddress,
  findTreeAddress,
  initializePoolInstruction,
  initializePoolInstructions,
  programDataAddress,
  TREE_ACCOUNT_OFFSETS,
  TREE_ACCOUNT_SIZE,
  TREE_INITIAL_SIZE,
  poolTreeAddress,
  publicKeyBytes,
  revertInstruction,
  revertMarkerAddress,
  revertNullifierOfReceipt,
} from "../../src-shared/pool-program";
import { FrontierTree } from "../../src-server/core/merkle/frontier";
import { MerkleTree } from "../../src-server/core/merkle/tree";
import { zeroHashes } from "../../src-server/core/merkle/zeros";
import { PROGRAM, PoolWorld, SOL, setUpgradeAuthority, type Landed } from "./test-support";
import { expectPoolError, expectAnchorError } from "./expect-errors";

const DEPOSIT_BUDGET = 40_000;

let world: PoolWorld;
let depositor: Keypair;
/** The leaves inserted so far, in order (the reference trees are rebuilt from them). */
const leaves: Uint8Array[] = [];
/** Pool units of every successful deposit, for the budget check and the report. */
const depositUnits: number[] = [];
let nonce = 0n;

const precommitment = (n: bigint, s: bigint = 5n) => computePrecommitment(world.hasher, bigIntToBytes32(n), bigIntToBytes32(s));

/** A deposit that must land; records its leaf (when inserted) and its units. */
function landDeposit(pre: Uint8Array, amount: bigint, from: Keypair = depositor): { r: Landed; nonce: bigint } {
  const n = nonce++;
  const r = world.deposit(from, pre, amount, n);
  expect(r.ok, r.logs.join("\n")).toBe(true);
  depositUnits.push(...world.poolUnits(r));
  return { r, nonce: n };
}

function referenceRoot(): Uint8Array {
  const t = new MerkleTree(world.hasher);
  if (leaves.length > 0) {
    const all = new Uint8Array(32 * leaves.length);
    leaves.forEach((l, i) => all.set(l, 32 * i));
    t.append(all);
  }
  return t.root();
}

beforeAll(async () => {
  world = await PoolWorld.create();
  depositor = world.depositor(1_000n * SOL);
});

describe("initialize_pool", () => {
  it("another signer than the program's upgrade authority: NotAuthority, nothing created", () => {
    const other = Keypair.generate();
    world.svm.airdrop(other.publicKey, 10n * SOL);
    expectPoolError(world.initialize(other), 0, "NotAuthority");
    expect(world.exists(world.tree)).toBe(false);
  });

  it("a program whose upgrade authority was dropped (ProgramData's authority None) makes no pools: NotAuthority", async () => {
    const fresh = await PoolWorld.create({ hasher: world.hasher });
    setUpgradeAuthority(fresh.svm, PROGRAM, null);
    expectPoolError(fresh.initialize(), 0, "NotAuthority");
    // A forged ProgramData elsewhere does not count: only the loader's PDA of the program id.
    setUpgradeAuthority(fresh.svm, PROGRAM, fresh.authority.publicKey);
    const forged = Keypair.generate().publicKey;
    const real = fresh.svm.getAccount(new PublicKey(programDataAddress(PROGRAM)))!;
    fresh.svm.setAccount(forged, { data: real.data.slice(0, 45), owner: real.owner });
    setUpgradeAuthority(fresh.svm, PROGRAM, null);
    const ix = initializePoolInstruction({ programId: PROGRAM, authority: fresh.authority.publicKey.toBase58(), mint: fresh.mintAddress, minDeposit: 1n });
    ix.keys[6]!.pubkey = forged;
    expectAnchorError(fresh.send([ix], [fresh.authority]), 0, 2006, "ConstraintSeeds", "program_data");
    expect(fresh.exists(fresh.tree)).toBe(false);
  });

  it("minDeposit 0 is InvalidInput", async () => {
    const fresh = await PoolWorld.create({ hasher: world.hasher });
    expectPoolError(fresh.initialize(fresh.authority, 0n), 0, "InvalidInput");
  });

  it("a tree initialize_pool made at 10,240 bytes is refused by every instruction until extend_pool grew it (AccountDidNotDeserialize); each extend_pool adds up to 10,240 zero bytes and the rent, the last stores F(mint), a fourth is InvalidInput", async () => {
    const fresh = await PoolWorld.create({ hasher: world.hasher });
    const [init, ...extends_] = initializePoolInstructions({
      programId: PROGRAM,
      authority: fresh.authority.publicKey.toBase58(),
      mint: fresh.mintAddress,
      minDeposit: 5n,
    });
    expect(fresh.send([init!], [fresh.authority]).ok).toBe(true);
    expect(fresh.svm.getAccount(fresh.tree)!.data.length).toBe(TREE_INITIAL_SIZE);
    const who = fresh.depositor(10n * SOL);
    expectAnchorError(fresh.deposit(who, precommitment(1n), SOL, 0n), 0, 3003, "AccountDidNotDeserialize", "tree");
    // Anyone may pay for the growth.
    const payer = fresh.depositor(0n);
    const sizes: number[] = [];
    for (const _ of extends_) {
      const r = fresh.send([extendPoolInstruction({ programId: PROGRAM, payer: payer.publicKey.toBase58(), mint: fresh.mintAddress })], [payer]);
      expect(r.ok, r.logs.join("\n")).toBe(true);
      const a = fresh.svm.getAccount(fresh.tree)!;
      sizes.push(a.data.length);
      expect(a.lamports).toBe(fresh.svm.rentExempt(a.data.length));
      // New bytes are zero, but for F(mint) that the last call stores in the tree's last 32 bytes.
      expect(a.data.subarray(TREE_INITIAL_SIZE, TREE_ACCOUNT_OFFSETS.mintField).every((b) => b === 0)).toBe(true);
    }
    expect(sizes).toEqual([20480, 30720, TREE_ACCOUNT_SIZE]);
    expect(fresh.treeAccount().mintField).toEqual(pubkeyToField(fresh.hasher, fresh.mint.toBytes()));
    const again = fresh.send([extendPoolInstruction({ programId: PROGRAM, payer: payer.publicKey.toBase58(), mint: fresh.mintAddress })], [payer]);
    expectPoolError(again, 0, "InvalidInput");
    const other = extendPoolInstruction({ programId: PROGRAM, payer: payer.publicKey.toBase58(), mint: world.mintAddress });
    other.keys[2]!.pubkey = fresh.tree;
    expectAnchorError(fresh.send([other], [payer]), 0, 2006, "ConstraintSeeds", "tree");
    expect(fresh.deposit(who, precommitment(1n), SOL, 0n).ok).toBe(true);
    expect(fresh.treeAccount().minDeposit).toBe(5n);
  });

  it("creates the tree (empty root Z[32] in slot 0, the signer as authority, its bump, minDeposit, the event authority's bump, F(mint)) and the vault, a token account that is its own token owner; with the 3 extend_pool in one transaction the tree has its 33,192 bytes", () => {
    const r = world.initialize();
    expect(r.ok, r.logs.join("\n")).toBe(true);
    expect(r.logs).toContain("Program log: Instruction: InitializePool");
    expect(r.logs.filter((l) => l === "Program log: Instruction: ExtendPool").length).toBe(3);
    expect(r.size).toBeLessThanOrEqual(1232);
    const raw = world.svm.getAccount(world.tree)!;
    expect(raw.owner.toBase58()).toBe(PROGRAM);
    expect(raw.data.length).toBe(TREE_ACCOUNT_SIZE);
    expect(raw.lamports).toBe(world.svm.rentExempt(33192));
    // The rent-exempt minimum of the 33,192-byte tree (docs/pool-program.md).
    expect(world.svm.rentExempt(33192)).toBe(231_907_200n);
    const zeros = zeroHashes(world.hasher, 32);
    const empty = new FrontierTree(world.hasher);
    const tree = world.treeAccount();
    // Byte for byte the codec's encoding (reserved bytes zero).
    expect(Buffer.from(raw.data).equals(Buffer.from(encodeTreeAccount(tree)))).toBe(true);
    expect(tree).toEqual({
      mint: publicKeyBytes(world.mintAddress),
      authority: world.authority.publicKey.toBytes(),
      nextIndex: 0,
      currentRootIndex: 0,
      roots: [empty.root(), ...Array.from({ length: 999 }, () => new Uint8Array(32))],
      filledSubtrees: zeros.slice(0, 32).map((z) => Uint8Array.from(z)),
      depositCount: 0n,
      totalDeposited: 0n,
      totalWithdrawn: 0n,
      createdSlot: world.svm.raw.getClock().slot,
      minDeposit: 1n,
      bump: findTreeAddress(PROGRAM, world.mintAddress)[1],
      eventAuthorityBump: findEventAuthorityAddress(PROGRAM)[1],
      vaultBump: PublicKey.findProgramAddressSync([Buffer.from("vault"), world.mint.toBytes()], new PublicKey(PROGRAM))[1],
      mintField: pubkeyToField(world.hasher, world.mint.toBytes()),
    });
    expect(currentRoot(tree)).toEqual(zeros[32]);
    const vault = world.svm.getAccount(world.vault)!;
    expect(vault.owner.toBase58()).toBe(TOKEN_PROGRAM_ID);
    const v = decodeTokenAccount(vault.data);
    expect(v.ok && v.value).toEqual({ mint: world.mint.toBytes(), owner: world.vault.toBytes(), amount: 0n });
  });

  it("a second initialize_pool fails (the System program's AccountAlreadyInUse, Custom 0) and changes nothing", () => {
    const before = world.svm.getAccount(world.tree)!.data;
    const r = world.initialize();
    expect(r.err, r.logs.join("\n")).toEqual({ InstructionError: [1, { Custom: 0 }] });
    expect(world.svm.getAccount(world.tree)!.data).toEqual(before);
  });

  it("refuses a tree or vault that is not the mint's PDA (ConstraintSeeds), a mint that is not an SPL mint, an unsigned authority, the wrong token program", async () => {
    const fresh = await PoolWorld.create({ hasher: world.hasher });
    const ix = () =>
      initializePoolInstruction({ programId: PROGRAM, authority: fresh.authority.publicKey.toBase58(), mint: fresh.mintAddress, minDeposit: 1n });
    const otherTree = ix();
    otherTree.keys[2]!.pubkey = new PublicKey(poolTreeAddress(PROGRAM, world.mintAddress));
    expectAnchorError(fresh.send([otherTree], [fresh.authority]), 0, 2006, "ConstraintSeeds", "tree");
    const otherVault = ix();
    otherVault.keys[3]!.pubkey = world.vault;
    expectAnchorError(fresh.send([otherVault], [fresh.authority]), 0, 2006, "ConstraintSeeds", "vault");
    const notAMint = Keypair.generate().publicKey;
    const bare = initializePoolInstruction({ programId: PROGRAM, authority: fresh.authority.publicKey.toBase58(), mint: notAMint.toBase58(), minDeposit: 1n });
    expectAnchorError(fresh.send([bare], [fresh.authority]), 0, 3007, "AccountOwnedByWrongProgram", "mint");
    const payer = Keypair.generate();
    fresh.svm.airdrop(payer.publicKey, SOL);
    const unsigned = ix();
    unsigned.keys[0]!.isSigner = false;
    expectAnchorError(fresh.send([unsigned], [payer]), 0, 3010, "AccountNotSigner", "authority");
    const wrongProgram = ix();
    wrongProgram.keys[4]!.pubkey = SystemProgram.programId;
    expectAnchorError(fresh.send([wrongProgram], [fresh.authority]), 0, 3008, "InvalidProgramId", "token_program");
    expect(fresh.exists(fresh.tree)).toBe(false);
  });
});

describe("deposit", () => {
  it("a deposit of 7 base units inserts Poseidon(precommitment, 7, F(mint)): the leaf the program computed from what the vault received", () => {
    const pre = precommitment(424242n, 777n);
    const leaf = computeLeaf(world.hasher, pre, 7n, world.mint.toBytes());
    expect(leaf).toEqual(world.hasher.hash([pre, bigIntToBytes32(7n), pubkeyToField(world.hasher, world.mint.toBytes())]));
    const vaultBefore = world.vaultBalance();
    const { r, nonce: n } = landDeposit(pre, 7n);
    leaves.push(leaf);
    expect(world.vaultBalance() - vaultBefore).toBe(7n);
    const slot = world.svm.raw.getClock().slot;
    expect(r.events).toEqual([{ name: "DepositEvent", leafIndex: 0, commitment: leaf, depositor: depositor.publicKey.toBytes(), amount: 7n, slot, nonce: n }]);
    const [receiptAddress, bump] = findDepositReceiptAddress(PROGRAM, world.mintAddress, depositor.publicKey.toBase58(), n);
    expect(world.receipt(receiptAddress)).toEqual({
      mint: world.mint.toBytes(),
      depositor: depositor.publicKey.toBytes(),
      commitment: leaf,
      amount: 7n,
      nonce: n,
      status: "indexed",
      leafIndex: 0,
      createdAt: world.svm.raw.getClock().unixTimestamp,
      bump,
    });
    // The commitment marker: an empty account of the program at ["commitment", mint, leaf].
    const marker = world.svm.getAccount(new PublicKey(commitmentMarkerAddress(PROGRAM, world.mintAddress, leaf)))!;
    expect(marker.owner.toBase58()).toBe(PROGRAM);
    expect(marker.data.length).toBe(0);
    expect(marker.lamports).toBe(world.svm.rentExempt(0));
    const tree = world.treeAccount();
    expect(tree.nextIndex).toBe(1);
    expect(currentRoot(tree)).toEqual(referenceRoot());
  });

  it("fifteen more deposits of different amounts: after each, the root, the frontier and the root ring equal the TypeScript FrontierTree's and the indexer's MerkleTree's", () => {
    const frontier = new FrontierTree(world.hasher);
    frontier.insert(leaves[0]!);
    for (let i = 1; i < 16; i++) {
      const amount = BigInt(i) * 1_000_003n;
      const pre = precommitment(BigInt(1000 + i));
      const leaf = computeLeaf(world.hasher, pre, amount, world.mint.toBytes());
      const { r } = landDeposit(pre, amount);
      leaves.push(leaf);
      frontier.insert(leaf);
      expect(r.events).toEqual([expect.objectContaining({ name: "DepositEvent", leafIndex: i, commitment: leaf, amount })]);
      const tree = world.treeAccount();
      expect(tree.nextIndex).toBe(i + 1);
      expect(tree.currentRootIndex).toBe(i + 1);
      expect(currentRoot(tree)).toEqual(frontier.root());
      expect(currentRoot(tree)).toEqual(referenceRoot());
      const state = frontier.state();
      expect(Buffer.concat(tree.filledSubtrees)).toEqual(Buffer.from(state.filledSubtrees));
      // The ring: the empty root, then every root in order.
      const frontierRoots = Array.from({ length: state.roots.length / 32 }, (_, k) => state.roots.slice(32 * k, 32 * k + 32));
      expect(tree.roots.slice(0, i + 2)).toEqual([zeroHashes(world.hasher, 32)[32], ...frontierRoots.slice(-(i + 1))]);
    }
    const tree = world.treeAccount();
    expect(tree.depositCount).toBe(16n);
  });

  it(`each deposit costs at most ${DEPOSIT_BUDGET} compute units (the deposit budget)`, () => {
    expect(depositUnits.length).toBeGreaterThanOrEqual(16);
    console.log(
      `deposit CU: min ${Math.min(...depositUnits)}, max ${Math.max(...depositUnits)}, mean ${Math.round(depositUnits.reduce((a, b) => a + b, 0) / depositUnits.length)} over ${depositUnits.length}`,
    );
    for (const u of depositUnits) expect(u).toBeLessThanOrEqual(DEPOSIT_BUDGET);
  });

  it("lamports sent to a commitment's marker address beforehand do not make the deposit a duplicate", () => {
    const pre = precommitment(5555n);
    const leaf = computeLeaf(world.hasher, pre, SOL, world.mint.toBytes());
    const marker = new PublicKey(commitmentMarkerAddress(PROGRAM, world.mintAddress, leaf));
    world.svm.airdrop(marker, 1_000_000n);
    const { r } = landDeposit(pre, SOL);
    leaves.push(leaf);
    expect(r.events).toEqual([expect.objectContaining({ name: "DepositEvent", commitment: leaf })]);
    expect(world.svm.getAccount(marker)!.owner.toBase58()).toBe(PROGRAM);
    expect(currentRoot(world.treeAccount())).toEqual(referenceRoot());
  });

  it("refuses a commitment marker at another address than the computed leaf's (ConstraintSeeds): nothing moves", () => {
    const vaultBefore = world.vaultBalance();
    const pre = precommitment(6666n);
    const ix = world.depositIx(depositor, pre, SOL, nonce);
    // The PDA of the precommitment itself, as a client that trusts its own leaf might pass.
    ix.keys[8]!.pubkey = new PublicKey(commitmentMarkerAddress(PROGRAM, world.mintAddress, pre));
    expectAnchorError(world.send([ix], [depositor]), 0, 2006, "ConstraintSeeds", "commitment_marker");
    expect(world.vaultBalance()).toBe(vaultBefore);
    expect(world.exists(depositReceiptAddress(PROGRAM, world.mintAddress, depositor.publicKey.toBase58(), nonce))).toBe(false);
  });

  it("refuses a nonce used twice (the receipt exists: AccountAlreadyInUse), a receipt at another nonce's address (ConstraintSeeds), a depositor that did not sign", () => {
    const vaultBefore = world.vaultBalance();
    const r = world.deposit(depositor, precommitment(7777n), SOL, 0n);
    expect(r.err, r.logs.join("\n")).toEqual({ InstructionError: [1, { Custom: 0 }] });
    const ix = world.depositIx(depositor, precommitment(7777n), SOL, nonce);
    ix.keys[5]!.pubkey = new PublicKey(depositReceiptAddress(PROGRAM, world.mintAddress, depositor.publicKey.toBase58(), nonce + 1n));
    expectAnchorError(world.send([ix], [depositor]), 0, 2006, "ConstraintSeeds", "receipt");
    const payer = Keypair.generate();
    world.svm.airdrop(payer.publicKey, SOL);
    const unsigned = world.depositIx(depositor, precommitment(7777n), SOL, nonce);
    unsigned.keys[0]!.isSigner = false;
    expectAnchorError(world.send([unsigned], [payer]), 0, 3010, "AccountNotSigner", "depositor");
    expect(world.vaultBalance()).toBe(vaultBefore);
  });

  it("refuses a depositor token account of another owner or mint, a fake vault or tree (right data, wrong owner or address), without moving anything", async () => {
    const vaultBefore = world.vaultBalance();
    const other = world.depositor(5n * SOL);
    const foreign = world.depositIx(depositor, precommitment(8888n), SOL, nonce);
    foreign.keys[4]!.pubkey = new PublicKey(associatedTokenAddress(other.publicKey.toBase58(), world.mintAddress));
    expectAnchorError(world.send([foreign], [depositor]), 0, 2015, "ConstraintTokenOwner", "depositor_token_account");

    // A token account that is its own owner, holding the mint, at an address that is not the vault PDA.
    const fakeVault = Keypair.generate().publicKey;
    world.svm.createTokenAccount(world.mint, fakeVault, 0n, fakeVault);
    const viaFake = world.depositIx(depositor, precommitment(8888n), SOL, nonce);
    viaFake.keys[3]!.pubkey = fakeVault;
    expectAnchorError(world.send([viaFake], [depositor]), 0, 2006, "ConstraintSeeds", "vault");
    expect(world.balance(fakeVault)).toBe(0n);

    // The tree's exact bytes in an account another program owns, at another address and at the PDA itself.
    const treeBytes = world.svm.getAccount(world.tree)!.data;
    const fakeTree = Keypair.generate().publicKey;
    world.svm.setAccount(fakeTree, { data: treeBytes, owner: Keypair.generate().publicKey });
    const viaFakeTree = world.depositIx(depositor, precommitment(8888n), SOL, nonce);
    viaFakeTree.keys[2]!.pubkey = fakeTree;
    expectAnchorError(world.send([viaFakeTree], [depositor]), 0, 2006, "ConstraintSeeds", "tree");
    const realTree = world.svm.getAccount(world.tree)!;
    world.svm.setAccount(world.tree, { lamports: realTree.lamports, data: realTree.data, owner: Keypair.generate().publicKey });
    try {
      expectAnchorError(world.deposit(depositor, precommitment(8888n), SOL, nonce), 0, 3007, "AccountOwnedByWrongProgram", "tree");
    } finally {
      world.svm.setAccount(world.tree, { lamports: realTree.lamports, data: realTree.data, owner: new PublicKey(PROGRAM) });
    }
    // The vault's bytes at the vault's address, owned by another program than SPL Token.
    const realVault = world.svm.getAccount(world.vault)!;
    world.svm.setAccount(world.vault, { lamports: realVault.lamports, data: realVault.data, owner: Keypair.generate().publicKey });
    try {
      expectAnchorError(world.deposit(depositor, precommitment(8888n), SOL, nonce), 0, 3007, "AccountOwnedByWrongProgram", "vault");
    } finally {
      world.svm.setAccount(world.vault, { lamports: realVault.lamports, data: realVault.data, owner: new PublicKey(TOKEN_PROGRAM_ID) });
    }
    expect(world.vaultBalance()).toBe(vaultBefore);
  });

  it("malformed data and too few accounts end in named errors (InstructionFallbackNotFound, InstructionDidNotDeserialize, AccountNotEnoughKeys)", () => {
    const good = world.depositIx(depositor, precommitment(9999n), SOL, nonce);
    const withData = (data: Uint8Array) => new TransactionInstruction({ programId: good.programId, keys: good.keys, data: Buffer.from(data) });
    expectAnchorError(world.send([withData(new Uint8Array(0))], [depositor]), 0, 101, "InstructionFallbackNotFound");
    expectAnchorError(world.send([withData(good.data.subarray(0, 7))], [depositor]), 0, 101, "InstructionFallbackNotFound");
    expectAnchorError(world.send([withData(new Uint8Array(56).fill(0xee))], [depositor]), 0, 101, "InstructionFallbackNotFound");
    expectAnchorError(world.send([withData(good.data.subarray(0, 55))], [depositor]), 0, 102, "InstructionDidNotDeserialize");
    expectAnchorError(world.send([withData(Buffer.concat([good.data, Buffer.from([0])]))], [depositor]), 0, 102, "InstructionDidNotDeserialize");
    const short = new TransactionInstruction({ programId: good.programId, keys: good.keys.slice(0, 8), data: good.data });
    expectAnchorError(world.send([short], [depositor]), 0, 3005, "AccountNotEnoughKeys");
    const none = new TransactionInstruction({ programId: good.programId, keys: [], data: good.data });
    expectAnchorError(world.send([none], [depositor]), 0, 3005, "AccountNotEnoughKeys");
  });
});

describe("failed deposits and revert", () => {
  interface Failed {
    nonce: bigint;
    amount: bigint;
    reason: "zero" | "notAFieldElement" | "duplicate";
    commitment: Uint8Array;
    precommitment: Uint8Array;
  }
  const failed: Failed[] = [];

  it("a zero precommitment, one not below the field modulus and a leaf already in the tree are failed deposits: the funds are in the vault, no leaf is inserted, the receipt says failed", () => {
    const cases: Omit<Failed, "nonce">[] = [
      { amount: 3n * SOL, reason: "zero", precommitment: new Uint8Array(32), commitment: new Uint8Array(32) },
      { amount: 2n * SOL, reason: "notAFieldElement", precommitment: bigIntToBytes32(FIELD_MODULUS), commitment: new Uint8Array(32) },
      { amount: SOL, reason: "notAFieldElement", precommitment: new Uint8Array(32).fill(0xff), commitment: new Uint8Array(32) },
      // The first deposit's precommitment and amount again: the same leaf.
      { amount: 7n, reason: "duplicate", precommitment: precommitment(424242n, 777n), commitment: leaves[0]! },
    ];
    for (const c of cases) {
      const before = world.treeAccount();
      const vaultBefore = world.vaultBalance();
      const { r, nonce: n } = landDeposit(c.precommitment, c.amount);
      failed.push({ ...c, nonce: n });
      expect(world.vaultBalance() - vaultBefore).toBe(c.amount);
      expect(r.events).toEqual([
        {
          name: "DepositFailedEvent",
          precommitment: c.precommitment,
          commitment: c.commitment,
          depositor: depositor.publicKey.toBytes(),
          amount: c.amount,
          slot: world.svm.raw.getClock().slot,
          nonce: n,
          reason: c.reason,
        },
      ]);
      const after = world.treeAccount();
      expect(after.nextIndex).toBe(before.nextIndex);
      expect(after.roots).toEqual(before.roots);
      expect(after.depositCount).toBe(before.depositCount + 1n);
      expect(after.totalDeposited).toBe(before.totalDeposited + c.amount);
      const receipt = world.receipt(depositReceiptAddress(PROGRAM, world.mintAddress, depositor.publicKey.toBase58(), n));
      expect(receipt).toEqual(expect.objectContaining({ status: "failed", leafIndex: null, amount: c.amount, commitment: c.commitment }));
    }
    expect(currentRoot(world.treeAccount())).toEqual(referenceRoot());
  });

  const revertIx = (f: Failed, authority: Keypair = world.authority) => {
    const receipt = depositReceiptAddress(PROGRAM, world.mintAddress, depositor.publicKey.toBase58(), f.nonce);
    const revertNullifier = revertNullifierOfReceipt(world.hasher, new PublicKey(receipt).toBytes());
    return {
      ix: revertInstruction({
        programId: PROGRAM,
        authority: authority.publicKey.toBase58(),
        mint: world.mintAddress,
        depositor: depositor.publicKey.toBase58(),
        nonce: f.nonce,
        revertNullifier,
      }),
      receipt,
      revertNullifier,
    };
  };

  it("a revert by anyone but the pool's authority fails NotAuthority, with the vault unchanged", () => {
    const thief = Keypair.generate();
    world.svm.airdrop(thief.publicKey, SOL);
    const vaultBefore = world.vaultBalance();
    expectPoolError(world.send([revertIx(failed[0]!, thief).ix], [thief]), 0, "NotAuthority");
    expect(world.vaultBalance()).toBe(vaultBefore);
  });

  it("the authority reverts each failed deposit once: the depositor is paid back, the receipt is reverted, the revert marker is created; a second revert fails NullifierSpent", () => {
    const depositorAccount = associatedTokenAddress(depositor.publicKey.toBase58(), world.mintAddress);
    for (const f of failed) {
      const { ix, receipt, revertNullifier } = revertIx(f);
      const before = world.balance(depositorAccount);
      const vaultBefore = world.vaultBalance();
      const r = world.send([ix], [world.authority]);
      expect(r.ok, r.logs.join("\n")).toBe(true);
      expect(world.balance(depositorAccount) - before).toBe(f.amount);
      expect(vaultBefore - world.vaultBalance()).toBe(f.amount);
      expect(world.receipt(receipt).status).toBe("reverted");
      expect(r.events).toEqual([{ name: "RevertEvent", depositor: depositor.publicKey.toBytes(), amount: f.amount, nonce: f.nonce, revertNullifier }]);
      const marker = world.svm.getAccount(new PublicKey(revertMarkerAddress(PROGRAM, world.mintAddress, revertNullifier)))!;
      expect(marker.owner.toBase58()).toBe(PROGRAM);
      const m = decodeNullifierAccount(marker.data);
      expect(m.ok && m.value).toEqual({ mint: world.mint.toBytes(), nullifierHash: revertNullifier, kind: "revert", slot: world.svm.raw.getClock().slot });
      expect(Buffer.from(marker.data.subarray(0, 8))).toEqual(Buffer.from(ACCOUNT_DISCRIMINATORS.NullifierAccount));
    }
    const vaultBefore = world.vaultBalance();
    expectPoolError(world.send([revertIx(failed[0]!).ix], [world.authority]), 0, "NullifierSpent");
    expect(world.vaultBalance()).toBe(vaultBefore);
  });

  it("an inserted deposit is not revertable (NotRevertable); a nonce without a receipt is AccountNotInitialized; a revert marker at another address is ConstraintSeeds", () => {
    const vaultBefore = world.vaultBalance();
    const indexed = { nonce: 0n, amount: 7n, reason: "zero" as const, commitment: leaves[0]!, precommitment: new Uint8Array(32) };
    expectPoolError(world.send([revertIx(indexed).ix], [world.authority]), 0, "NotRevertable");
    expectAnchorError(world.send([revertIx({ ...indexed, nonce: 424_242n }).ix], [world.authority]), 0, 3012, "AccountNotInitialized", "receipt");
    const { ix } = revertIx(indexed);
    ix.keys[7]!.pubkey = new PublicKey(revertMarkerAddress(PROGRAM, world.mintAddress, new Uint8Array(32).fill(1)));
    expectAnchorError(world.send([ix], [world.authority]), 0, 2006, "ConstraintSeeds", "revert_marker");
    expect(world.vaultBalance()).toBe(vaultBefore);
  });
});

describe("limits", () => {
  /** The tree's data with `patch` applied at `offset` (little-endian u32 or u64). */
  function patchTree(w: PoolWorld, offset: number, value: bigint, bytes: 4 | 8): void {
    const a = w.svm.getAccount(w.tree)!;
    const data = Uint8Array.from(a.data);
    const v = new DataView(data.buffer);
    if (bytes === 4) v.setUint32(offset, Number(value), true);
    else v.setBigUint64(offset, value, true);
    w.svm.setAccount(w.tree, { lamports: a.lamports, data, owner: a.owner });
  }

  it("the leaf at index 2^32 − 2 is the last: then nextIndex is 0xFFFFFFFF and a deposit fails TreeFull, nothing moved", async () => {
    const w = await PoolWorld.create({ hasher: world.hasher });
    expect(w.initialize().ok).toBe(true);
    const who = w.depositor(10n * SOL);
    patchTree(w, TREE_ACCOUNT_OFFSETS.nextIndex, 0xfffffffen, 4);
    const r = w.deposit(who, computePrecommitment(w.hasher, bigIntToBytes32(1n), bigIntToBytes32(2n)), SOL, 0n);
    expect(r.ok, r.logs.join("\n")).toBe(true);
    expect(r.events).toEqual([expect.objectContaining({ name: "DepositEvent", leafIndex: 0xfffffffe })]);
    expect(w.treeAccount().nextIndex).toBe(0xffffffff);
    const vault = w.vaultBalance();
    const full = w.deposit(who, computePrecommitment(w.hasher, bigIntToBytes32(3n), bigIntToBytes32(4n)), SOL, 1n);
    expectPoolError(full, 0, "TreeFull");
    expect(w.vaultBalance()).toBe(vault);
    expect(w.exists(depositReceiptAddress(PROGRAM, w.mintAddress, who.publicKey.toBase58(), 1n))).toBe(false);
  });

  it("totalDeposited never wraps: a deposit that would overflow u64 fails ArithmeticOverflow", async () => {
    const w = await PoolWorld.create({ hasher: world.hasher });
    expect(w.initialize().ok).toBe(true);
    const who = w.depositor(10n * SOL);
    patchTree(w, TREE_ACCOUNT_OFFSETS.totalDeposited, (1n << 64n) - 1n, 8);
    const r = w.deposit(who, computePrecommitment(w.hasher, bigIntToBytes32(1n), bigIntToBytes32(2n)), 1n, 0n);
    expect(r.err, r.logs.join("\n")).toEqual({ InstructionError: [1, "ArithmeticOverflow"] });
    expect(w.vaultBalance()).toBe(0n);
  });
});
