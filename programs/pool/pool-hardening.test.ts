/**
 * Issue 25's program findings on programs/pool/pool.so in the real runtime (LiteSVM), each an
 * attack that worked on the program before: events no log limit can drop (self-CPI, Anchor's
 * emit_cpi) and that nobody else can fake, pools only the upgrade authority can create (in
 * pool-deposit.test.ts), a minimum deposit, a root that stays acceptable for 1,000 insertions,
 * and totalDeposited that a revert lowers.
 */
import { Keypair, PublicKey, TransactionInstruction } from "@solana/web3.js";
import { beforeAll, describe, expect, it } from "vitest";
import { computePrecommitment } from "../../src-shared/crypto/protocol";
import { bigIntToBytes32 } from "../../src-shared/encoding/field";
import {
  ROOT_HISTORY_SIZE,
  TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  depositReceiptAddress,
  encodePoolEventInstruction,
  revertInstruction,
  revertNullifierOfReceipt,
  withdrawInstruction,
} from "../../src-shared/pool-program";
import { PLAIN, PLAIN_5, PROGRAM, PoolWorld, SOL, fixturePool, type FixturePool } from "./test-support";
import { expectAnchorError, expectPoolError } from "./expect-errors";

let world: PoolWorld;
const MIN = 1_000n;

beforeAll(async () => {
  world = await PoolWorld.create();
  const r = world.initialize(world.authority, MIN);
  expect(r.ok, r.logs.join("\n")).toBe(true);
});

/** SPL Token Transfer { amount } (instruction 3): source, destination, owner signing. */
function splTransfer(source: PublicKey, destination: PublicKey, owner: PublicKey, amount: bigint): TransactionInstruction {
  const data = Buffer.alloc(9);
  data[0] = 3;
  data.writeBigUInt64LE(amount, 1);
  return new TransactionInstruction({
    programId: new PublicKey(TOKEN_PROGRAM_ID),
    keys: [
      { pubkey: source, isSigner: false, isWritable: true },
      { pubkey: destination, isSigner: false, isWritable: true },
      { pubkey: owner, isSigner: true, isWritable: false },
    ],
    data,
  });
}

const pre = (n: bigint) => computePrecommitment(world.hasher, bigIntToBytes32(n), bigIntToBytes32(9n));

describe("a per-pool minimum deposit", () => {
  it("a deposit below the pool's minimum fails DepositBelowMinimum (6016) and nothing moves; the minimum itself lands", () => {
    const who = world.depositor(10n * SOL);
    const vault = world.vaultBalance();
    const before = world.treeAccount();
    expectPoolError(world.deposit(who, pre(1n), MIN - 1n, 0n), 0, "DepositBelowMinimum");
    expectPoolError(world.deposit(who, pre(1n), 0n, 0n), 0, "DepositBelowMinimum");
    expect(world.vaultBalance()).toBe(vault);
    expect(world.exists(depositReceiptAddress(PROGRAM, world.mintAddress, who.publicKey.toBase58(), 0n))).toBe(false);
    expect(world.treeAccount()).toEqual(before);
    const r = world.deposit(who, pre(1n), MIN, 0n);
    expect(r.ok, r.logs.join("\n")).toBe(true);
    expect(world.vaultBalance()).toBe(vault + MIN);
  });
});

describe("events by self-CPI", () => {
  it("a deposit's DepositEvent is the data of an inner instruction of the pool signed by the event authority, and no `Program data:` line is logged", () => {
    const who = world.depositor(10n * SOL);
    const r = world.deposit(who, pre(2n), MIN, 0n);
    expect(r.ok, r.logs.join("\n")).toBe(true);
    expect(r.logs.some((l) => l.startsWith("Program data: "))).toBe(false);
    const cpis = r.inner.flat().filter((i) => i.program === PROGRAM);
    expect(cpis).toHaveLength(1);
    expect(cpis[0]!.accounts).toEqual([world.eventAuthority]);
    expect(cpis[0]!.stackHeight).toBe(2);
    expect(r.events).toEqual([expect.objectContaining({ name: "DepositEvent", amount: MIN, depositor: who.publicKey.toBytes() })]);
  });

  it("a deposit whose logs earlier instructions filled to the 10,000-byte limit still carries its DepositEvent in the inner instructions", () => {
    const who = world.depositor(10n * SOL);
    const own = new PublicKey(associatedTokenAddress(who.publicKey.toBase58(), world.mintAddress));
    // 46 zero-amount SPL transfers, as the attack of issue 25 sent them.
    const filler: TransactionInstruction[] = Array.from({ length: 46 }, () => splTransfer(own, own, who.publicKey, 0n));
    world.svm.raw.setLogBytesLimit(10_000n);
    try {
      const deposit = world.depositIx(who, pre(3n), MIN, 0n);
      // A v0 transaction with a lookup table of the deposit's other accounts, so that 46 transfers fit in the packet.
      const statics = new Set([who.publicKey.toBase58(), TOKEN_PROGRAM_ID, PROGRAM]);
      const table = world.lookupTable(deposit.keys.map((k) => k.pubkey.toBase58()).filter((k) => !statics.has(k)));
      const r = world.send([...filler, deposit], [who], [table]);
      expect(r.size).toBeLessThanOrEqual(1232);
      expect(r.ok, r.logs.join("\n")).toBe(true);
      expect(r.logs.at(-1)).toBe("Log truncated");
      // The logs end inside the deposit: a `Program data:` line written at its end would have been dropped.
      expect(r.logs.some((l) => l === `Program ${PROGRAM} success`)).toBe(false);
      const leafIndex = world.treeAccount().nextIndex - 1;
      expect(r.events).toEqual([expect.objectContaining({ name: "DepositEvent", leafIndex, amount: MIN })]);
    } finally {
      world.svm.raw.setLogBytesLimit(undefined);
    }
  });

  it("nobody else can fake an event: a direct call of the event instruction without the event authority's signature fails (AccountNotSigner), a signer that is not the event authority fails ConstraintSeeds", () => {
    const fake = encodePoolEventInstruction({
      name: "DepositEvent",
      leafIndex: 0,
      commitment: new Uint8Array(32).fill(7),
      depositor: new Uint8Array(32).fill(8),
      amount: 1n,
      slot: 1n,
      nonce: 1n,
    });
    const attacker = world.depositor(0n);
    const unsigned = new TransactionInstruction({
      programId: new PublicKey(PROGRAM),
      keys: [{ pubkey: new PublicKey(world.eventAuthority), isSigner: false, isWritable: false }],
      data: Buffer.from(fake),
    });
    expectAnchorError(world.send([unsigned], [attacker]), 0, 3010, "AccountNotSigner", "event_authority");
    const own = new TransactionInstruction({
      programId: new PublicKey(PROGRAM),
      keys: [{ pubkey: attacker.publicKey, isSigner: true, isWritable: false }],
      data: Buffer.from(fake),
    });
    expectAnchorError(world.send([own], [attacker]), 0, 2006, "ConstraintSeeds", "event_authority");
    const none = new TransactionInstruction({ programId: new PublicKey(PROGRAM), keys: [], data: Buffer.from(fake) });
    expectAnchorError(world.send([none], [attacker]), 0, 3005, "AccountNotEnoughKeys");
  });

  it("a deposit naming another account as its event authority fails as a whole (the runtime refuses the CPI's signature), nothing moves", () => {
    const who = world.depositor(10n * SOL);
    const vault = world.vaultBalance();
    const ix = world.depositIx(who, pre(4n), MIN, 0n);
    ix.keys[9]!.pubkey = Keypair.generate().publicKey;
    const r = world.send([ix], [who]);
    expect(r.ok).toBe(false);
    expect(world.vaultBalance()).toBe(vault);
    const noProgram = world.depositIx(who, pre(4n), MIN, 0n);
    noProgram.keys[10]!.pubkey = Keypair.generate().publicKey;
    expect(world.send([noProgram], [who]).ok).toBe(false);
    expect(world.vaultBalance()).toBe(vault);
  });
});

describe("revert", () => {
  it("a revert takes the reverted amount out of totalDeposited and emits its RevertEvent by CPI", () => {
    const who = world.depositor(10n * SOL);
    const failed = world.deposit(who, new Uint8Array(32), 5n * MIN, 0n);
    expect(failed.events).toEqual([expect.objectContaining({ name: "DepositFailedEvent", amount: 5n * MIN })]);
    const before = world.treeAccount().totalDeposited;
    const receipt = depositReceiptAddress(PROGRAM, world.mintAddress, who.publicKey.toBase58(), 0n);
    const revertNullifier = revertNullifierOfReceipt(world.hasher, new PublicKey(receipt).toBytes());
    const r = world.send(
      [
        revertInstruction({
          programId: PROGRAM,
          authority: world.authority.publicKey.toBase58(),
          mint: world.mintAddress,
          depositor: who.publicKey.toBase58(),
          nonce: 0n,
          revertNullifier,
        }),
      ],
      [world.authority],
    );
    expect(r.ok, r.logs.join("\n")).toBe(true);
    expect(world.treeAccount().totalDeposited).toBe(before - 5n * MIN);
    expect(r.events).toEqual([{ name: "RevertEvent", depositor: who.publicKey.toBytes(), amount: 5n * MIN, nonce: 0n, revertNullifier }]);
  });
});

describe("the root ring holds 1,000 roots", () => {
  let f: FixturePool;
  let oldestRootWithdrawUnits = 0;
  beforeAll(async () => {
    f = await fixturePool();
  }, 60_000);

  it(`a proof against a root ${ROOT_HISTORY_SIZE - 1} insertions old is accepted; after one more insertion it is UnknownRoot`, () => {
    // The recorded proofs are against the root after the seven fixture deposits; 999 real deposits follow it.
    const who = f.world.depositor(1_000n * SOL);
    for (let i = 0; i < ROOT_HISTORY_SIZE - 1; i++) {
      const r = f.world.deposit(who, computePrecommitment(f.world.hasher, bigIntToBytes32(BigInt(i + 1)), bigIntToBytes32(3n)), 1n, BigInt(i));
      if (!r.ok) throw new Error(r.logs.join("\n"));
    }
    const root = f.cases.get(PLAIN)!.signals[0]!;
    const t = f.world.treeAccount();
    // The oldest root of the ring, the next one an insertion overwrites.
    expect(t.roots[(t.currentRootIndex + 1) % ROOT_HISTORY_SIZE]).toEqual(root);
    const landed = f.world.send([withdrawInstruction(f.params(PLAIN))], [f.relayer]);
    expect(landed.ok, landed.logs.join("\n")).toBe(true);
    oldestRootWithdrawUnits = f.world.poolUnits(landed)[0]!;
    // Its change leaf was the 1,000th insertion after that root.
    expect(f.world.treeAccount().roots.some((r) => Buffer.from(r).equals(Buffer.from(root)))).toBe(false);
    expectPoolError(f.world.send([withdrawInstruction(f.params(PLAIN_5))], [f.relayer]), 0, "UnknownRoot");
  }, 180_000);

  it("withdrawing against the ring's oldest root (the longest scan) stays within the withdraw budget", () => {
    expect(oldestRootWithdrawUnits).toBeGreaterThan(0);
    expect(oldestRootWithdrawUnits).toBeLessThanOrEqual(185_000);
  });
});
