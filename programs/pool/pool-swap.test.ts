/**
 * withdraw_swap + assert_swap_out (protocol v3) on programs/pool/pool.so with the real cp-swap
 * venue (programs/cp-swap/cp-swap.so) between them, in the real runtime, with the recorded swap
 * proofs (bound to FIXTURE_OUTPUT_MINT and their minOut) and, for the attacks on the
 * assertion, proofs the SDK makes. The route's output goes to the withdrawal's escrow (PDA
 * ["swap_escrow", mint, nullifierHash]); the program reads the Instructions sysvar: one
 * withdraw_swap, then exactly one assert_swap_out naming this relayer, mint, escrow,
 * nullifierHash and the recipient's output token account with minOut >= the proof's. Every
 * refusal leaves the vault and the relayer's balances as they were.
 */
import { createHash } from "node:crypto";
import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js";
import { beforeAll, describe, expect, it } from "vitest";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  NATIVE_MINT,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  assertSwapOutInstruction,
  decodeDepositReceipt,
  depositInstruction,
  depositReceiptAddress,
  encodeTokenAccount,
  poolNullifierAddress,
  poolVaultAddress,
  publicKeyBytes,
  revertInstruction,
  revertNullifierOfReceipt,
  swapEscrowAddress,
  withdrawInstruction,
  withdrawSwapInstruction,
} from "../../src-shared/pool-program";
import { CP_SWAP_PROGRAM_ID, cpSwapInstruction, type CpPoolInfo } from "../../src-localnet/programs/cp-swap-client";
import { encodeMint } from "../../src-localnet/ledger/token";
import { cpAmountOut } from "../../src-shared/swap/constant-product";
import type { WithdrawalProof } from "../../src-client/sdk/prove";
import {
  FEE,
  MINT,
  OUTPUT_MINT,
  PLAIN,
  PROGRAM,
  SOL,
  SWAP,
  SWAP_UNREACHABLE,
  ata,
  notePool,
  type Landed,
  type NotePool,
  type PlacedNote,
} from "./test-support";
import { expectPoolError, expectAnchorError } from "./expect-errors";

const SWAP_BUDGET = 215_000;

let f: NotePool;
let cp: CpPoolInfo;
let vaultBefore: bigint;
let relayerInBefore: bigint;

const relayerKey = () => f.relayer.publicKey.toBase58();
const relayerIn = () => ata(relayerKey(), MINT);
const recipientOut = (label: string) => ata(f.recipient(label), OUTPUT_MINT);
const nullifierHashOf = (label: string) => f.cases.get(label)!.signals[1]!;
const nullifierOf = (label: string) => poolNullifierAddress(PROGRAM, MINT, nullifierHashOf(label));
const escrowOf = (label: string) => swapEscrowAddress(PROGRAM, MINT, nullifierHashOf(label));
const seedKey = (label: string) => Keypair.fromSeed(createHash("sha256").update(`programs/pool swap ${label}`).digest());

function withdrawSwap(label: string, over: { minOut?: bigint; outputMint?: string; fee?: bigint; escrow?: string } = {}): TransactionInstruction {
  return withdrawSwapInstruction({
    ...f.params(label, over.fee === undefined ? {} : { fee: over.fee }),
    outputMint: over.outputMint ?? OUTPUT_MINT,
    minOut: over.minOut ?? f.minOut(label),
    ...(over.escrow ? { escrow: over.escrow } : {}),
  });
}

/** The venue: cp-swap of amount − fee from the relayer's input account into the escrow (the route's destinationTokenAccount). */
function venue(label: string, minAmountOut: bigint = f.minOut(label), destination = escrowOf(label)): TransactionInstruction {
  return cpSwapInstruction({ user: relayerKey(), inputMint: MINT, outputMint: OUTPUT_MINT, amountIn: f.amount(label) - FEE, minAmountOut, destination });
}

type AssertOver = { relayer?: string; mint?: string; escrow?: string; recipientOutputTokenAccount?: string; nullifierHash?: Uint8Array };
function assertOut(label: string, minOut: bigint, over: AssertOver = {}): TransactionInstruction {
  return assertSwapOutInstruction({
    programId: PROGRAM,
    relayer: over.relayer ?? relayerKey(),
    mint: over.mint ?? MINT,
    recipient: f.recipient(label),
    outputMint: OUTPUT_MINT,
    minOut,
    nullifierHash: over.nullifierHash ?? nullifierHashOf(label),
    ...(over.escrow ? { escrow: over.escrow } : {}),
    ...(over.recipientOutputTokenAccount ? { recipientOutputTokenAccount: over.recipientOutputTokenAccount } : {}),
  });
}

/** A swap withdrawal does not fit a legacy transaction: v0, with a lookup table of its accounts (as a route's tables would hold). */
function send(ixs: TransactionInstruction[], extraSigners: Keypair[] = []): Landed {
  return f.world.send(ixs, [f.relayer, ...extraSigners], [f.world.lookupTable(lookupKeys(ixs, extraSigners))]);
}

/** Everything but the signers, for a lookup table. */
function lookupKeys(ixs: TransactionInstruction[], extraSigners: Keypair[] = []): string[] {
  const keys = new Set<string>();
  for (const ix of ixs) for (const k of ix.keys) keys.add(k.pubkey.toBase58());
  keys.delete(relayerKey());
  for (const s of extraSigners) keys.delete(s.publicKey.toBase58());
  return [...keys];
}

function unchanged(labels: string[]): void {
  expect(f.world.vaultBalance()).toBe(vaultBefore);
  expect(f.world.balance(relayerIn())).toBe(relayerInBefore);
  for (const l of labels) {
    expect(f.world.exists(nullifierOf(l))).toBe(false);
    expect(f.world.exists(escrowOf(l))).toBe(false);
  }
}

/** A token account of OUTPUT_MINT owned by itself at `address`, as if withdraw_swap had made it (only a test can put one there). */
function fabricateEscrow(address: string, amount: bigint): void {
  const key = new PublicKey(address);
  f.world.svm.setAccount(key, {
    lamports: f.world.svm.rentExempt(165),
    data: encodeTokenAccount({ mint: f.outputMint.toBytes(), owner: key.toBytes(), amount }),
    owner: new PublicKey(TOKEN_PROGRAM_ID),
  });
}

const clear = (address: string) => f.world.svm.setAccount(new PublicKey(address), { lamports: 0n, owner: PublicKey.default });

beforeAll(async () => {
  f = await notePool();
  // A pool of (MINT, OUTPUT_MINT): 1 000 SOL against 10^12 output base units.
  cp = f.world.cpPool(f.outputMint, 1_000n * SOL, 1_000_000_000_000n);
  vaultBefore = f.world.vaultBalance();
  relayerInBefore = f.world.balance(relayerIn());
}, 60_000);

describe("withdraw_swap: the Instructions sysvar rules, each refusal with its exact error and nothing moved", () => {
  it("without an assert_swap_out: SwapAssertMissing; also when the only one comes before the withdraw_swap", () => {
    expectPoolError(send([withdrawSwap(SWAP), venue(SWAP)]), 0, "SwapAssertMissing");
    // An assert that passes before the withdrawal proves nothing: only a test can make its
    // escrow exist beforehand (the escrow is a PDA of the pool program).
    fabricateEscrow(escrowOf(SWAP), 10n);
    f.world.svm.createTokenAccount(f.outputMint, new PublicKey(f.recipient(SWAP)), 0n);
    try {
      const r = send([assertOut(SWAP, 1n), withdrawSwap(SWAP), venue(SWAP)]);
      expectPoolError(r, 1, "SwapAssertMissing");
      expect(f.world.balance(recipientOut(SWAP))).toBe(0n);
    } finally {
      clear(escrowOf(SWAP));
      clear(recipientOut(SWAP));
    }
    unchanged([SWAP]);
  });

  it("another program's instruction with assert_swap_out's exact bytes does not count: SwapAssertMissing", () => {
    const real = assertOut(SWAP, 1n);
    const lookalike = new TransactionInstruction({ programId: new PublicKey(CP_SWAP_PROGRAM_ID), keys: real.keys, data: real.data });
    expectPoolError(send([withdrawSwap(SWAP), venue(SWAP), lookalike]), 0, "SwapAssertMissing");
    unchanged([SWAP]);
  });

  it("two assert_swap_outs: SwapAssertDuplicated", () => {
    expectPoolError(send([withdrawSwap(SWAP), venue(SWAP), assertOut(SWAP, 1n), assertOut(SWAP, 1n)]), 0, "SwapAssertDuplicated");
    unchanged([SWAP]);
  });

  it("an assert_swap_out naming another recipient account, another escrow, another relayer or mint, or carrying another nullifierHash: SwapAssertWrongAccount", () => {
    f.world.svm.createTokenAccount(f.outputMint, f.relayer.publicKey, 0n);
    const otherEscrow = swapEscrowAddress(PROGRAM, MINT, nullifierHashOf(SWAP_UNREACHABLE));
    const thief = Keypair.generate();
    f.world.svm.airdrop(thief.publicKey, SOL);
    const cases: [AssertOver, Keypair[]][] = [
      [{ recipientOutputTokenAccount: ata(relayerKey(), OUTPUT_MINT) }, []],
      [{ escrow: otherEscrow }, []],
      [{ escrow: otherEscrow, nullifierHash: nullifierHashOf(SWAP_UNREACHABLE) }, []],
      [{ nullifierHash: nullifierHashOf(SWAP_UNREACHABLE) }, []],
      [{ relayer: thief.publicKey.toBase58() }, [thief]],
      [{ mint: OUTPUT_MINT, escrow: escrowOf(SWAP) }, []],
    ];
    for (const [over, signers] of cases) {
      expectPoolError(send([withdrawSwap(SWAP), venue(SWAP), assertOut(SWAP, 1n, over)], signers), 0, "SwapAssertWrongAccount");
    }
    // An assert with only three accounts names no recipient account at all.
    const full = assertOut(SWAP, 1n);
    const short = new TransactionInstruction({ programId: full.programId, keys: full.keys.slice(0, 3), data: full.data });
    expectPoolError(send([withdrawSwap(SWAP), venue(SWAP), short]), 0, "SwapAssertWrongAccount");
    unchanged([SWAP]);
  });

  it("an assert_swap_out whose minOut is below the proof's: RequiredBalanceTooLow", () => {
    expectPoolError(send([withdrawSwap(SWAP), venue(SWAP), assertOut(SWAP, f.minOut(SWAP) - 1n)]), 0, "RequiredBalanceTooLow");
    expectPoolError(
      send([withdrawSwap(SWAP_UNREACHABLE), venue(SWAP_UNREACHABLE, 0n), assertOut(SWAP_UNREACHABLE, f.minOut(SWAP_UNREACHABLE) - 1n)]),
      0,
      "RequiredBalanceTooLow",
    );
    unchanged([SWAP, SWAP_UNREACHABLE]);
  });

  it("two withdraw_swaps in one transaction sharing one assert (a lookup table makes them fit): DuplicateWithdrawSwap", () => {
    const r = send([withdrawSwap(SWAP), withdrawSwap(SWAP_UNREACHABLE), assertOut(SWAP, 1n)]);
    expectPoolError(r, 0, "DuplicateWithdrawSwap");
    unchanged([SWAP, SWAP_UNREACHABLE]);
  });

  it("an Instructions sysvar account that is not the sysvar: ConstraintAddress", () => {
    const ix = withdrawSwap(SWAP);
    ix.keys[14]!.pubkey = SystemProgram.programId;
    expectAnchorError(send([ix, venue(SWAP), assertOut(SWAP, 1n)]), 0, 2012, "ConstraintAddress", "instructions_sysvar");
    unchanged([SWAP]);
  });

  it("accounts that are not the right ones: another output mint account (ConstraintAddress), an escrow that is not the withdrawal's PDA (ConstraintSeeds), a recipient output account that is not the associated one (ConstraintAssociated) or is owned by someone else (WrongTokenAccount)", () => {
    const mintSwap = withdrawSwap(SWAP);
    mintSwap.keys[13]!.pubkey = f.world.mint;
    expectAnchorError(send([mintSwap, venue(SWAP), assertOut(SWAP, 1n)]), 0, 2012, "ConstraintAddress", "output_mint");
    // v2's place for the relayer's output account, another withdrawal's escrow, the escrow of the same nullifierHash under another mint.
    for (const escrow of [
      ata(relayerKey(), OUTPUT_MINT),
      swapEscrowAddress(PROGRAM, MINT, nullifierHashOf(SWAP_UNREACHABLE)),
      swapEscrowAddress(PROGRAM, OUTPUT_MINT, nullifierHashOf(SWAP)),
    ]) {
      const r = send([withdrawSwap(SWAP, { escrow }), venue(SWAP, 1n, escrow), assertOut(SWAP, 1n, { escrow })]);
      expectAnchorError(r, 0, 2006, "ConstraintSeeds", "swap_escrow");
    }
    const own = Keypair.generate().publicKey;
    f.world.svm.createTokenAccount(f.outputMint, new PublicKey(f.recipient(SWAP)), 0n, own);
    const recipientOutIx = withdrawSwap(SWAP);
    recipientOutIx.keys[12]!.pubkey = own;
    expectAnchorError(send([recipientOutIx, venue(SWAP), assertOut(SWAP, 1n)]), 0, 2009, "ConstraintAssociated", "recipient_output_token_account");
    const out = new PublicKey(recipientOut(SWAP));
    f.world.svm.setAccount(out, {
      data: encodeTokenAccount({ mint: f.outputMint.toBytes(), owner: Keypair.generate().publicKey.toBytes(), amount: 0n }),
      owner: new PublicKey(TOKEN_PROGRAM_ID),
    });
    try {
      expectPoolError(send([withdrawSwap(SWAP), venue(SWAP), assertOut(SWAP, 1n)]), 0, "WrongTokenAccount");
    } finally {
      clear(recipientOut(SWAP));
    }
    unchanged([SWAP]);
  });

  it("the proof's terms changed: a lower minOut, another output mint, another fee, another change leaf: InvalidProof; a plain withdraw proof is not a swap proof nor the other way round", () => {
    const otherOutput = f.world.svm.createMint(f.relayer.publicKey, 6);
    expectPoolError(send([withdrawSwap(SWAP_UNREACHABLE, { minOut: 1n }), venue(SWAP_UNREACHABLE, 1n), assertOut(SWAP_UNREACHABLE, 1n)]), 0, "InvalidProof");
    expectPoolError(send([withdrawSwap(SWAP, { minOut: 0n }), venue(SWAP, 0n), assertOut(SWAP, 0n)]), 0, "InvalidProof");
    const other = withdrawSwapInstruction({ ...f.params(SWAP), outputMint: otherOutput.toBase58(), minOut: 1n });
    const otherAssert = assertSwapOutInstruction({
      programId: PROGRAM,
      relayer: relayerKey(),
      mint: MINT,
      recipient: f.recipient(SWAP),
      outputMint: otherOutput.toBase58(),
      minOut: 1n,
      nullifierHash: nullifierHashOf(SWAP),
    });
    expectPoolError(send([other, otherAssert]), 0, "InvalidProof");
    expectPoolError(send([withdrawSwap(SWAP, { fee: FEE + 1n }), venue(SWAP), assertOut(SWAP, 1n)]), 0, "InvalidProof");
    const anotherChange = withdrawSwapInstruction({
      ...f.params(SWAP, { changeCommitment: f.cases.get(SWAP_UNREACHABLE)!.signals[6]! }),
      outputMint: OUTPUT_MINT,
      minOut: f.minOut(SWAP),
    });
    expectPoolError(send([anotherChange, venue(SWAP), assertOut(SWAP, 1n)]), 0, "InvalidProof");
    // The plain proof of leaf 0 as a swap (outputMint, minOut 0), and the swap proof as a plain withdrawal.
    const plainAsSwap = withdrawSwapInstruction({ ...f.params(PLAIN), outputMint: OUTPUT_MINT, minOut: 0n });
    const plainAssert = assertSwapOutInstruction({
      programId: PROGRAM,
      relayer: relayerKey(),
      mint: MINT,
      recipient: f.recipient(PLAIN),
      outputMint: OUTPUT_MINT,
      minOut: 0n,
      nullifierHash: f.cases.get(PLAIN)!.signals[1]!,
    });
    expectPoolError(send([plainAsSwap, plainAssert]), 0, "InvalidProof");
    expectPoolError(send([withdrawInstruction(f.params(SWAP))]), 0, "InvalidProof");
    unchanged([SWAP, SWAP_UNREACHABLE, PLAIN]);
  });

  it("an unreachable minOut (2^62): the venue cannot deliver it, assert_swap_out fails SwapOutputTooLow, and nothing moves (the withdrawal, the escrow and the swap roll back)", () => {
    const r = send([withdrawSwap(SWAP_UNREACHABLE), venue(SWAP_UNREACHABLE, 0n), assertOut(SWAP_UNREACHABLE, f.minOut(SWAP_UNREACHABLE))]);
    expectPoolError(r, 2, "SwapOutputTooLow");
    unchanged([SWAP_UNREACHABLE]);
    expect(f.world.exists(recipientOut(SWAP_UNREACHABLE))).toBe(false);
    expect(f.world.balance(cp.vaultA)).toBe(cp.reserveA);
    expect(f.world.balance(cp.vaultB)).toBe(cp.reserveB);
  });

  it("malformed data (v2's 416 and 16 bytes among them) and too few accounts end in named errors", () => {
    const good = withdrawSwap(SWAP);
    const short = new TransactionInstruction({ programId: good.programId, keys: good.keys.slice(0, 14), data: good.data });
    expectAnchorError(send([short, assertOut(SWAP, 1n)]), 0, 3005, "AccountNotEnoughKeys");
    for (const len of [416, 447]) {
      const data = new TransactionInstruction({ programId: good.programId, keys: good.keys, data: good.data.subarray(0, len) });
      expectAnchorError(send([data, assertOut(SWAP, 1n)]), 0, 102, "InstructionDidNotDeserialize");
    }
    const assertIx = assertOut(SWAP, 1n);
    for (const data of [Buffer.concat([assertIx.data, Buffer.from([0])]), assertIx.data.subarray(0, 16)]) {
      const bad = new TransactionInstruction({ programId: assertIx.programId, keys: assertIx.keys, data });
      expectAnchorError(send([bad]), 0, 102, "InstructionDidNotDeserialize");
    }
    const noAccount = new TransactionInstruction({ programId: assertIx.programId, keys: [], data: assertIx.data });
    expectAnchorError(send([noAccount]), 0, 3005, "AccountNotEnoughKeys");
    // Alone, with no withdraw_swap before it: there is no escrow.
    expectAnchorError(send([assertIx]), 0, 3012, "AccountNotInitialized", "swap_escrow");
    unchanged([SWAP]);
  });
});

describe("withdraw_swap: only the swap's output pays the recipient (issue 24's attacks)", () => {
  const recipient = seedKey("attacked recipient");
  const MIN_OUT = 50_000_000n;
  let a: PlacedNote;
  let aProof: WithdrawalProof;
  let outputVaultBefore: bigint;
  const outputVault = () => poolVaultAddress(PROGRAM, OUTPUT_MINT);
  const aEscrow = () => swapEscrowAddress(PROGRAM, MINT, aProof.nullifierHash);
  const aSwap = () => withdrawSwapInstruction({ ...f.withdrawParams(aProof), outputMint: OUTPUT_MINT, minOut: MIN_OUT });
  const aAssert = () =>
    assertSwapOutInstruction({
      programId: PROGRAM,
      relayer: relayerKey(),
      mint: MINT,
      recipient: recipient.publicKey.toBase58(),
      outputMint: OUTPUT_MINT,
      minOut: MIN_OUT,
      nullifierHash: aProof.nullifierHash,
    });
  const nothingMoved = () => {
    expect(f.world.vaultBalance()).toBe(vaultBefore);
    expect(f.world.balance(outputVault())).toBe(outputVaultBefore);
    expect(f.world.balance(relayerIn())).toBe(relayerInBefore);
    expect(f.world.exists(poolNullifierAddress(PROGRAM, MINT, aProof.nullifierHash))).toBe(false);
    expect(f.world.exists(aEscrow())).toBe(false);
    expect(f.world.exists(ata(recipient.publicKey.toBase58(), OUTPUT_MINT))).toBe(false);
  };

  beforeAll(async () => {
    f.initPool(OUTPUT_MINT);
    f.world.svm.createTokenAccount(f.outputMint, f.relayer.publicKey, 0n);
    a = await f.depositNote("attack A", 4n * SOL);
    vaultBefore = f.world.vaultBalance();
    aProof = await f.prove(a, recipient.publicKey.toBase58(), { amount: 3n * SOL, swap: { outputMint: OUTPUT_MINT, minOut: MIN_OUT } });
  }, 120_000);

  it("[withdraw_swap(A), withdraw(B) of the output mint's pool to the same recipient, assert_swap_out], no swap: SwapOutputTooLow, both vaults unchanged", async () => {
    const b = await f.depositNote("attack B", 100_000_000n, OUTPUT_MINT);
    const bProof = await f.prove(b, recipient.publicKey.toBase58(), { fee: 0n });
    outputVaultBefore = f.world.balance(outputVault());
    const r = send([aSwap(), withdrawInstruction(f.withdrawParams(bProof)), aAssert()]);
    expectPoolError(r, 2, "SwapOutputTooLow");
    nothingMoved();
    // B alone is a valid withdrawal: the refusal was the assertion's, not B's.
    const alone = f.world.simulate([withdrawInstruction(f.withdrawParams(bProof))], [f.relayer], []);
    expect(alone.ok, alone.logs.join("\n")).toBe(true);
  });

  it("[withdraw_swap(A), revert of the recipient's own failed deposit of the output mint, assert_swap_out], no swap: SwapOutputTooLow", () => {
    const owner = recipient.publicKey.toBase58();
    f.world.svm.airdrop(recipient.publicKey, SOL);
    f.world.svm.createTokenAccount(f.outputMint, recipient.publicKey, 80_000_000n);
    const nonce = 77n;
    // A zero precommitment makes no leaf: the deposit is failed, and revertable to its depositor.
    const dep = depositInstruction({
      programId: PROGRAM,
      depositor: owner,
      mint: OUTPUT_MINT,
      precommitment: new Uint8Array(32),
      amount: 80_000_000n,
      nonce,
      hasher: f.world.hasher,
    });
    const d = f.world.send([dep], [recipient]);
    expect(d.ok, d.logs.join("\n")).toBe(true);
    const receipt = depositReceiptAddress(PROGRAM, OUTPUT_MINT, owner, nonce);
    const decoded = decodeDepositReceipt(f.world.svm.getAccount(new PublicKey(receipt))!.data);
    expect(decoded.ok && decoded.value.status).toBe("failed");
    outputVaultBefore = f.world.balance(outputVault());
    const revert = revertInstruction({
      programId: PROGRAM,
      authority: relayerKey(),
      mint: OUTPUT_MINT,
      depositor: owner,
      nonce,
      revertNullifier: revertNullifierOfReceipt(f.world.hasher, new PublicKey(receipt).toBytes()),
    });
    // The recipient's output account is the revert's destination here: it exists, holding 0.
    const r = send([aSwap(), revert, aAssert()]);
    expectPoolError(r, 2, "SwapOutputTooLow");
    expect(f.world.vaultBalance()).toBe(vaultBefore);
    expect(f.world.balance(outputVault())).toBe(outputVaultBefore);
    expect(f.world.balance(ata(owner, OUTPUT_MINT))).toBe(0n);
    expect(f.world.exists(aEscrow())).toBe(false);
    clear(ata(owner, OUTPUT_MINT));
  });

  it("the same withdrawal with the venue paying the escrow lands: the recipient receives the whole escrow, the escrow is closed, its rent back with the relayer", () => {
    const amountIn = aProof.amount - FEE;
    const expectedOut = cpAmountOut(amountIn, ...reserves());
    expect(expectedOut).toBeGreaterThanOrEqual(MIN_OUT);
    const swap = cpSwapInstruction({ user: relayerKey(), inputMint: MINT, outputMint: OUTPUT_MINT, amountIn, minAmountOut: MIN_OUT, destination: aEscrow() });
    const lamportsBefore = f.world.svm.balance(f.relayer.publicKey);
    const r = send([aSwap(), swap, aAssert()]);
    expect(r.ok, r.logs.join("\n")).toBe(true);
    const leaf = f.landed(aProof);
    expect(f.world.balance(ata(recipient.publicKey.toBase58(), OUTPUT_MINT))).toBe(expectedOut);
    expect(f.world.exists(aEscrow())).toBe(false);
    expect(vaultBefore - f.world.vaultBalance()).toBe(3n * SOL);
    expect(f.world.balance(relayerIn()) - relayerInBefore).toBe(FEE);
    // The relayer paid the signature, the nullifier's and the recipient account's rent; the escrow's came back.
    const rent = (n: number) => f.world.svm.rentExempt(n);
    expect(lamportsBefore - f.world.svm.balance(f.relayer.publicKey)).toBe(5000n + rent(81) + rent(165));
    expect(leaf.note.amount).toBe(1n * SOL);
    expect(f.world.treeAccount().roots[f.world.treeAccount().currentRootIndex]).toEqual(f.mirrors.get(MINT)!.root());
    vaultBefore = f.world.vaultBalance();
    relayerInBefore = f.world.balance(relayerIn());
  });

  const reserves = (): [bigint, bigint] => {
    const vin = cp.mintA === MINT ? cp.vaultA : cp.vaultB;
    const vout = cp.mintA === MINT ? cp.vaultB : cp.vaultA;
    return [f.world.balance(vin), f.world.balance(vout)];
  };
});

describe("withdraw_swap: what lands", () => {
  it(`creating the recipient's output account itself, the whole transaction (withdraw_swap + venue + assert) would cost at most ${SWAP_BUDGET} CU plus the venue's`, () => {
    const ixs = [withdrawSwap(SWAP), venue(SWAP), assertOut(SWAP, f.minOut(SWAP))];
    const r = f.world.simulate(ixs, [f.relayer], [f.world.lookupTable(lookupKeys(ixs))]);
    expect(r.ok, r.logs.join("\n")).toBe(true);
    const pool = f.world.poolUnits(r);
    const venueUnits = r.units.filter((u) => u.program === CP_SWAP_PROGRAM_ID).map((u) => u.consumed);
    console.log(`withdraw_swap (output account created) ${pool[0]} + assert_swap_out ${pool[1]} CU; venue ${venueUnits.join(", ")}`);
    expect(pool[0]! + pool[1]!).toBeLessThanOrEqual(SWAP_BUDGET);
  });

  it("as the relay sends it (unit limit and price, the recipient's output account created idempotently, withdraw_swap, the venue into the escrow, assert_swap_out; v0 with the route's lookup table, which cannot hold the escrow): the recipient receives the venue's whole output >= minOut, the relayer keeps the fee, the change leaf is inserted", () => {
    const amountIn = f.amount(SWAP) - FEE;
    const [reserveIn, reserveOut] =
      cp.mintA === MINT ? [f.world.balance(cp.vaultA), f.world.balance(cp.vaultB)] : [f.world.balance(cp.vaultB), f.world.balance(cp.vaultA)];
    const expectedOut = cpAmountOut(amountIn, reserveIn, reserveOut);
    expect(expectedOut).toBeGreaterThanOrEqual(f.minOut(SWAP));
    const createOut = new TransactionInstruction({
      programId: new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID),
      keys: [
        { pubkey: f.relayer.publicKey, isSigner: true, isWritable: true },
        { pubkey: new PublicKey(recipientOut(SWAP)), isSigner: false, isWritable: true },
        { pubkey: new PublicKey(f.recipient(SWAP)), isSigner: false, isWritable: false },
        { pubkey: f.outputMint, isSigner: false, isWritable: false },
        { pubkey: new PublicKey(SYSTEM_PROGRAM_ID), isSigner: false, isWritable: false },
        { pubkey: new PublicKey(TOKEN_PROGRAM_ID), isSigner: false, isWritable: false },
      ],
      data: Buffer.from([1]),
    });
    const ixs = [
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000 }),
      createOut,
      withdrawSwap(SWAP),
      venue(SWAP),
      assertOut(SWAP, f.minOut(SWAP)),
    ];
    // The route's table (as createCpPool makes it): the pool, its vaults, the mints, the token, system and ATA programs.
    const table = f.world.lookupTable([cp.pool, cp.vaultA, cp.vaultB, cp.mintA, cp.mintB, TOKEN_PROGRAM_ID, SYSTEM_PROGRAM_ID, ASSOCIATED_TOKEN_PROGRAM_ID]);
    const treeBefore = f.world.treeAccount();
    const r = f.world.send(ixs, [f.relayer], [table]);
    expect(r.ok, r.logs.join("\n")).toBe(true);
    const changeCommitment = f.cases.get(SWAP)!.signals[6]!;
    f.mirrors.get(MINT)!.append(changeCommitment);
    console.log(
      `withdraw_swap transaction as the relay sends it: ${r.size} bytes (v0, one lookup table; the escrow, nullifier and recipient accounts outside it); units per instruction ${JSON.stringify(r.units)}`,
    );
    expect(r.size).toBeLessThanOrEqual(1232);
    const pool = f.world.poolUnits(r);
    console.log(`withdraw_swap (output account existing) ${pool[0]} + assert_swap_out ${pool[1]} CU`);
    expect(pool[0]! + pool[1]!).toBeLessThanOrEqual(SWAP_BUDGET);
    expect(f.world.balance(recipientOut(SWAP))).toBe(expectedOut);
    expect(f.world.exists(escrowOf(SWAP))).toBe(false);
    expect(vaultBefore - f.world.vaultBalance()).toBe(f.amount(SWAP));
    expect(f.world.balance(relayerIn()) - relayerInBefore).toBe(FEE);
    expect(f.world.svm.getAccount(new PublicKey(nullifierOf(SWAP)))!.owner.toBase58()).toBe(PROGRAM);
    expect(r.events).toEqual([
      {
        name: "WithdrawEvent",
        nullifierHash: nullifierHashOf(SWAP),
        recipient: publicKeyBytes(f.recipient(SWAP)),
        amount: f.amount(SWAP),
        fee: FEE,
        relayer: f.relayer.publicKey.toBytes(),
        changeCommitment,
        changeLeafIndex: treeBefore.nextIndex,
      },
    ]);
    const tree = f.world.treeAccount();
    expect(tree.nextIndex).toBe(treeBefore.nextIndex + 1);
    expect(tree.depositCount).toBe(treeBefore.depositCount);
    expect(tree.totalWithdrawn).toBe(treeBefore.totalWithdrawn + f.amount(SWAP));
    expect(tree.roots[tree.currentRootIndex]).toEqual(f.mirrors.get(MINT)!.root());
    // Spent: the same transaction again fails NullifierSpent.
    const again = f.world.send(ixs, [f.relayer], [table]);
    expectPoolError(again, 2, "NullifierSpent");
    vaultBefore = f.world.vaultBalance();
    relayerInBefore = f.world.balance(relayerIn());
  });

  it("lamports sent beforehand to the escrow's address do not block the withdrawal; the relayer gets them back when the escrow closes", async () => {
    const recipient = seedKey("prefunded escrow recipient").publicKey.toBase58();
    const minOut = 10_000_000n;
    const c = await f.depositNote("prefunded escrow", 2n * SOL);
    vaultBefore = f.world.vaultBalance();
    const p = await f.prove(c, recipient, { swap: { outputMint: OUTPUT_MINT, minOut } });
    const escrow = swapEscrowAddress(PROGRAM, MINT, p.nullifierHash);
    const prefund = 1_000_000n;
    f.world.svm.airdrop(new PublicKey(escrow), prefund);
    const amountIn = p.amount - FEE;
    const ixs = [
      withdrawSwapInstruction({ ...f.withdrawParams(p), outputMint: OUTPUT_MINT, minOut }),
      cpSwapInstruction({ user: relayerKey(), inputMint: MINT, outputMint: OUTPUT_MINT, amountIn, minAmountOut: minOut, destination: escrow }),
      assertSwapOutInstruction({
        programId: PROGRAM,
        relayer: relayerKey(),
        mint: MINT,
        recipient,
        outputMint: OUTPUT_MINT,
        minOut,
        nullifierHash: p.nullifierHash,
      }),
    ];
    const lamportsBefore = f.world.svm.balance(f.relayer.publicKey);
    const r = send(ixs);
    expect(r.ok, r.logs.join("\n")).toBe(true);
    f.landed(p);
    expect(vaultBefore - f.world.vaultBalance()).toBe(p.amount);
    expect(f.world.balance(ata(recipient, OUTPUT_MINT))).toBeGreaterThanOrEqual(minOut);
    expect(f.world.exists(escrow)).toBe(false);
    const rent = (n: number) => f.world.svm.rentExempt(n);
    // Paid: the signature, the nullifier's and the recipient account's rent, the escrow's rent less what was there; back: the escrow's rent.
    expect(f.world.svm.balance(f.relayer.publicKey) - lamportsBefore).toBe(prefund - 5000n - rent(81) - rent(165));
    expect(f.world.treeAccount().roots[f.world.treeAccount().currentRootIndex]).toEqual(f.mirrors.get(MINT)!.root());
    vaultBefore = f.world.vaultBalance();
    relayerInBefore = f.world.balance(relayerIn());
  });

  it("wrapped SOL as the output: the escrow's wrapped lamports go to the recipient (transfer before close), only the rent to the relayer", async () => {
    if (!f.world.exists(NATIVE_MINT)) {
      f.world.svm.setAccount(new PublicKey(NATIVE_MINT), {
        data: encodeMint({ mintAuthority: null, supply: 0n, decimals: 9, freezeAuthority: null }),
        owner: new PublicKey(TOKEN_PROGRAM_ID),
      });
    }
    const recipient = seedKey("wrapped SOL recipient").publicKey.toBase58();
    const minOut = 300_000_000n;
    const c = await f.depositNote("wrapped SOL output", 1n * SOL);
    const p = await f.prove(c, recipient, { swap: { outputMint: NATIVE_MINT, minOut } });
    const escrow = new PublicKey(swapEscrowAddress(PROGRAM, MINT, p.nullifierHash));
    // The "venue": the relayer pays lamports into the escrow and syncs it (what a route to SOL ends with).
    const wrapped = 400_000_000n;
    const ixs = [
      withdrawSwapInstruction({ ...f.withdrawParams(p), outputMint: NATIVE_MINT, minOut }),
      SystemProgram.transfer({ fromPubkey: f.relayer.publicKey, toPubkey: escrow, lamports: wrapped }),
      new TransactionInstruction({
        programId: new PublicKey(TOKEN_PROGRAM_ID),
        keys: [{ pubkey: escrow, isSigner: false, isWritable: true }],
        data: Buffer.from([17]),
      }),
      assertSwapOutInstruction({
        programId: PROGRAM,
        relayer: relayerKey(),
        mint: MINT,
        recipient,
        outputMint: NATIVE_MINT,
        minOut,
        nullifierHash: p.nullifierHash,
      }),
    ];
    const lamportsBefore = f.world.svm.balance(f.relayer.publicKey);
    const r = send(ixs);
    expect(r.ok, r.logs.join("\n")).toBe(true);
    f.landed(p);
    const out = ata(recipient, NATIVE_MINT);
    const rent = (n: number) => f.world.svm.rentExempt(n);
    expect(f.world.balance(out)).toBe(wrapped);
    expect(f.world.svm.balance(new PublicKey(out))).toBe(rent(165) + wrapped);
    expect(f.world.exists(escrow)).toBe(false);
    expect(lamportsBefore - f.world.svm.balance(f.relayer.publicKey)).toBe(wrapped + 5000n + rent(81) + rent(165));
    vaultBefore = f.world.vaultBalance();
    relayerInBefore = f.world.balance(relayerIn());
  });
});
