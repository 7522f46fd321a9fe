/**
 * withdraw_swap + assert_swap_out on programs/pool/pool.so with the real cp-swap venue
 * (programs/cp-swap/cp-swap.so) between them, in the real runtime, with the recorded swap
 * proofs (bound to FIXTURE_OUTPUT_MINT and their minOut). The program reads the Instructions
 * sysvar: one withdraw_swap, then exactly one assert_swap_out naming the recipient's output
 * token account with requiredBalance >= its balance now + minOut. Every refusal leaves the
 * vault and the relayer's balances as they were.
 */
import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js";
import { beforeAll, describe, expect, it } from "vitest";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  assertSwapOutInstruction,
  decodePoolEventLogs,
  encodeTokenAccount,
  poolNullifierAddress,
  publicKeyBytes,
  withdrawInstruction,
  withdrawSwapInstruction,
} from "../../src-shared/pool-program";
import { CP_SWAP_PROGRAM_ID, cpSwapInstruction, type CpPoolInfo } from "../../src-localnet/programs/cp-swap-client";
import { cpAmountOut } from "../../src-server/core/swap/constant-product";
import { FEE, MINT, OUTPUT_MINT, PLAIN, PROGRAM, SOL, SWAP, SWAP_UNREACHABLE, ata, fixturePool, type FixturePool, type Landed } from "./test-support";
import { expectPoolError, expectAnchorError } from "./expect-errors";

const SWAP_BUDGET = 200_000;

let f: FixturePool;
let cp: CpPoolInfo;
let vaultBefore: bigint;
let relayerInBefore: bigint;

const relayerIn = () => ata(f.relayer.publicKey.toBase58(), MINT);
const recipientOut = (label: string) => ata(f.recipient(label), OUTPUT_MINT);
const nullifierOf = (label: string) => poolNullifierAddress(PROGRAM, MINT, f.cases.get(label)!.signals[1]!);

function withdrawSwap(label: string, over: { minOut?: bigint; outputMint?: string; fee?: bigint } = {}): TransactionInstruction {
  return withdrawSwapInstruction({
    ...f.params(label, over.fee === undefined ? {} : { fee: over.fee }),
    outputMint: over.outputMint ?? OUTPUT_MINT,
    minOut: over.minOut ?? f.minOut(label),
  });
}

/** The venue: cp-swap of amount − fee from the relayer's input account into the recipient's output account. */
function venue(label: string, minAmountOut: bigint = f.minOut(label)): TransactionInstruction {
  return cpSwapInstruction({
    user: f.relayer.publicKey.toBase58(),
    inputMint: MINT,
    outputMint: OUTPUT_MINT,
    amountIn: f.amount(label) - FEE,
    minAmountOut,
    destination: recipientOut(label),
  });
}

function assertOut(label: string, requiredBalance: bigint, owner = f.recipient(label)): TransactionInstruction {
  return assertSwapOutInstruction({ programId: PROGRAM, recipient: owner, outputMint: OUTPUT_MINT, requiredBalance });
}

/** A swap withdrawal does not fit a legacy transaction: v0, with a lookup table of its accounts (as a route's tables would hold). */
function send(ixs: TransactionInstruction[]): Landed {
  return f.world.send(ixs, [f.relayer], [f.world.lookupTable(lookupKeys(ixs))]);
}

/** Everything but the signer, for a lookup table. */
function lookupKeys(ixs: TransactionInstruction[]): string[] {
  const keys = new Set<string>();
  for (const ix of ixs) for (const k of ix.keys) keys.add(k.pubkey.toBase58());
  keys.delete(f.relayer.publicKey.toBase58());
  return [...keys];
}

function unchanged(labels: string[]): void {
  expect(f.world.vaultBalance()).toBe(vaultBefore);
  expect(f.world.balance(relayerIn())).toBe(relayerInBefore);
  for (const l of labels) expect(f.world.exists(nullifierOf(l))).toBe(false);
}

beforeAll(async () => {
  f = await fixturePool();
  // A pool of (MINT, OUTPUT_MINT): 1 000 SOL against 10^12 output base units.
  cp = f.world.cpPool(f.outputMint, 1_000n * SOL, 1_000_000_000_000n);
  vaultBefore = f.world.vaultBalance();
  relayerInBefore = f.world.balance(relayerIn());
}, 60_000);

describe("withdraw_swap: the Instructions sysvar rules, each refusal with its exact error and nothing moved", () => {
  it("without an assert_swap_out: SwapAssertMissing; also when the only one comes before the withdraw_swap", () => {
    expectPoolError(send([withdrawSwap(SWAP), venue(SWAP)]), 0, "SwapAssertMissing");
    // An assert that passes (the account exists, requiredBalance 0) but runs before the withdrawal proves nothing.
    const out = new PublicKey(recipientOut(SWAP));
    f.world.svm.createTokenAccount(f.outputMint, new PublicKey(f.recipient(SWAP)), 0n);
    try {
      expectPoolError(send([assertOut(SWAP, 0n), withdrawSwap(SWAP), venue(SWAP)]), 1, "SwapAssertMissing");
    } finally {
      f.world.svm.setAccount(out, { lamports: 0n, owner: PublicKey.default });
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

  it("an assert_swap_out naming another account than the recipient's output account (the relayer's own): SwapAssertWrongAccount", () => {
    f.world.svm.createTokenAccount(f.outputMint, f.relayer.publicKey, 0n);
    expectPoolError(send([withdrawSwap(SWAP), venue(SWAP), assertOut(SWAP, 1n, f.relayer.publicKey.toBase58())]), 0, "SwapAssertWrongAccount");
    unchanged([SWAP]);
  });

  it("requiredBalance below the recipient's output balance now + minOut: RequiredBalanceTooLow (a balance the recipient already held never counts as the swap's output)", () => {
    const out = new PublicKey(recipientOut(SWAP));
    f.world.svm.createTokenAccount(f.outputMint, new PublicKey(f.recipient(SWAP)), 50n);
    try {
      expectPoolError(send([withdrawSwap(SWAP), venue(SWAP), assertOut(SWAP, 50n)]), 0, "RequiredBalanceTooLow");
      expectPoolError(send([withdrawSwap(SWAP), venue(SWAP), assertOut(SWAP, 0n)]), 0, "RequiredBalanceTooLow");
      unchanged([SWAP]);
    } finally {
      f.world.svm.setAccount(out, { lamports: 0n, owner: PublicKey.default });
    }
    // minOut 2^62 on top of a balance near u64::MAX: no requiredBalance reaches it.
    f.world.svm.createTokenAccount(f.outputMint, new PublicKey(f.recipient(SWAP_UNREACHABLE)), (1n << 64n) - 2n);
    try {
      expectPoolError(
        send([withdrawSwap(SWAP_UNREACHABLE), venue(SWAP_UNREACHABLE, 0n), assertOut(SWAP_UNREACHABLE, (1n << 64n) - 1n)]),
        0,
        "RequiredBalanceTooLow",
      );
      unchanged([SWAP_UNREACHABLE]);
    } finally {
      f.world.svm.setAccount(new PublicKey(recipientOut(SWAP_UNREACHABLE)), { lamports: 0n, owner: PublicKey.default });
    }
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

  it("output accounts that are not the right ones: another output mint account (ConstraintAddress), output token accounts that are not the associated ones (ConstraintAssociated), a recipient output account owned by someone else (WrongTokenAccount)", () => {
    const mintSwap = withdrawSwap(SWAP);
    mintSwap.keys[13]!.pubkey = f.world.mint;
    expectAnchorError(send([mintSwap, venue(SWAP), assertOut(SWAP, 1n)]), 0, 2012, "ConstraintAddress", "output_mint");
    const relayerOut = withdrawSwap(SWAP);
    relayerOut.keys[11]!.pubkey = new PublicKey(ata(Keypair.generate().publicKey.toBase58(), OUTPUT_MINT));
    expectAnchorError(send([relayerOut, venue(SWAP), assertOut(SWAP, 1n)]), 0, 2009, "ConstraintAssociated", "relayer_output_token_account");
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
      f.world.svm.setAccount(out, { lamports: 0n, owner: PublicKey.default });
    }
    unchanged([SWAP]);
  });

  it("the proof's terms changed: a lower minOut, another output mint, another fee: InvalidProof; a plain withdraw proof is not a swap proof nor the other way round", () => {
    const otherOutput = f.world.svm.createMint(f.relayer.publicKey, 6);
    expectPoolError(send([withdrawSwap(SWAP_UNREACHABLE, { minOut: 1n }), venue(SWAP_UNREACHABLE, 1n), assertOut(SWAP_UNREACHABLE, 1n)]), 0, "InvalidProof");
    expectPoolError(send([withdrawSwap(SWAP, { minOut: 0n }), venue(SWAP, 0n), assertOut(SWAP, 0n)]), 0, "InvalidProof");
    const other = withdrawSwapInstruction({ ...f.params(SWAP), outputMint: otherOutput.toBase58(), minOut: 1n });
    const otherAssert = assertSwapOutInstruction({ programId: PROGRAM, recipient: f.recipient(SWAP), outputMint: otherOutput.toBase58(), requiredBalance: 1n });
    expectPoolError(send([other, otherAssert]), 0, "InvalidProof");
    expectPoolError(send([withdrawSwap(SWAP, { fee: FEE + 1n }), venue(SWAP), assertOut(SWAP, 1n)]), 0, "InvalidProof");
    // The plain proof of leaf 0 as a swap (outputMint, minOut 0), and the swap proof as a plain withdrawal.
    const plainAsSwap = withdrawSwapInstruction({ ...f.params(PLAIN), outputMint: OUTPUT_MINT, minOut: 0n });
    const plainAssert = assertSwapOutInstruction({ programId: PROGRAM, recipient: f.recipient(PLAIN), outputMint: OUTPUT_MINT, requiredBalance: 0n });
    expectPoolError(send([plainAsSwap, plainAssert]), 0, "InvalidProof");
    expectPoolError(send([withdrawInstruction(f.params(SWAP))]), 0, "InvalidProof");
    unchanged([SWAP, SWAP_UNREACHABLE, PLAIN]);
  });

  it("an unreachable minOut (2^62): the venue cannot deliver it, assert_swap_out fails SwapOutputTooLow, and nothing moves (the withdrawal and the swap roll back)", () => {
    const r = send([withdrawSwap(SWAP_UNREACHABLE), venue(SWAP_UNREACHABLE, 0n), assertOut(SWAP_UNREACHABLE, f.minOut(SWAP_UNREACHABLE))]);
    expectPoolError(r, 2, "SwapOutputTooLow");
    unchanged([SWAP_UNREACHABLE]);
    expect(f.world.balance(recipientOut(SWAP_UNREACHABLE))).toBe(0n);
    expect(f.world.exists(recipientOut(SWAP_UNREACHABLE))).toBe(false);
    expect(f.world.balance(cp.vaultA)).toBe(cp.reserveA);
    expect(f.world.balance(cp.vaultB)).toBe(cp.reserveB);
  });

  it("malformed data and too few accounts end in named errors", () => {
    const good = withdrawSwap(SWAP);
    const short = new TransactionInstruction({ programId: good.programId, keys: good.keys.slice(0, 14), data: good.data });
    expectAnchorError(send([short, assertOut(SWAP, 1n)]), 0, 3005, "AccountNotEnoughKeys");
    const data = new TransactionInstruction({ programId: good.programId, keys: good.keys, data: good.data.subarray(0, 376) });
    expectAnchorError(send([data, assertOut(SWAP, 1n)]), 0, 102, "InstructionDidNotDeserialize");
    const assertData = assertOut(SWAP, 1n);
    const badAssert = new TransactionInstruction({
      programId: assertData.programId,
      keys: assertData.keys,
      data: Buffer.concat([assertData.data, Buffer.from([0])]),
    });
    expectAnchorError(send([badAssert]), 0, 102, "InstructionDidNotDeserialize");
    const noAccount = new TransactionInstruction({ programId: assertData.programId, keys: [], data: assertData.data });
    expectAnchorError(send([noAccount]), 0, 3005, "AccountNotEnoughKeys");
    unchanged([SWAP]);
  });
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

  it("as the relay sends it (unit limit and price, the recipient's output account created idempotently, withdraw_swap, the venue, assert_swap_out; v0 with the pool's lookup table): the recipient receives the venue's output >= minOut, the relayer keeps the fee", () => {
    const amountIn = f.amount(SWAP) - FEE;
    const [reserveIn, reserveOut] = cp.mintA === MINT ? [cp.reserveA, cp.reserveB] : [cp.reserveB, cp.reserveA];
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
      assertOut(SWAP, 0n + f.minOut(SWAP)),
    ];
    // The route's table (as createCpPool makes it): the pool, its vaults, the mints, the token, system and ATA programs.
    const table = f.world.lookupTable([cp.pool, cp.vaultA, cp.vaultB, cp.mintA, cp.mintB, TOKEN_PROGRAM_ID, SYSTEM_PROGRAM_ID, ASSOCIATED_TOKEN_PROGRAM_ID]);
    const r = f.world.send(ixs, [f.relayer], [table]);
    expect(r.ok, r.logs.join("\n")).toBe(true);
    console.log(`withdraw_swap transaction as the relay sends it: ${r.size} bytes (v0, one lookup table); units per instruction ${JSON.stringify(r.units)}`);
    expect(r.size).toBeLessThanOrEqual(1232);
    const pool = f.world.poolUnits(r);
    console.log(`withdraw_swap (output account existing) ${pool[0]} + assert_swap_out ${pool[1]} CU`);
    expect(pool[0]! + pool[1]!).toBeLessThanOrEqual(SWAP_BUDGET);
    expect(f.world.balance(recipientOut(SWAP))).toBe(expectedOut);
    expect(vaultBefore - f.world.vaultBalance()).toBe(f.amount(SWAP));
    expect(f.world.balance(relayerIn()) - relayerInBefore).toBe(FEE);
    expect(f.world.svm.getAccount(new PublicKey(nullifierOf(SWAP)))!.owner.toBase58()).toBe(PROGRAM);
    expect(decodePoolEventLogs(r.logs, PROGRAM)).toEqual([
      {
        name: "WithdrawEvent",
        nullifierHash: f.cases.get(SWAP)!.signals[1],
        recipient: publicKeyBytes(f.recipient(SWAP)),
        amount: f.amount(SWAP),
        fee: FEE,
        relayer: f.relayer.publicKey.toBytes(),
      },
    ]);
    // Spent: the same transaction again fails NullifierSpent.
    const again = f.world.send(ixs, [f.relayer], [table]);
    expectPoolError(again, 2, "NullifierSpent");
  });
});
