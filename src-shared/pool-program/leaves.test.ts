import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { AddressLookupTableAccount, Keypair, PublicKey, TransactionInstruction, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { Buffer } from "buffer";
import { DEFAULT_POOL_PROGRAM_ID, TOKEN_PROGRAM_ID } from "./constants";
import { poolTreeAddress } from "./addresses";
import { encodePoolEventLog, type PoolEvent } from "./events";
import { encodePoolInstruction } from "./instructions";
import { executionOrder, insertedLeaves, leafTransactionOfResponse, parseWireMessage, type CompiledLeafInstruction, type LeafTransaction } from "./leaves";

const PROGRAM = DEFAULT_POOL_PROGRAM_ID;
const OTHER = "CpSwap11111111111111111111111111111111111111";
const fill = (b: number, n = 32): Uint8Array => new Uint8Array(n).fill(b);
const key = (b: number): string => new PublicKey(fill(b)).toBase58();
const MINT_A = key(0xa1);
const MINT_B = key(0xb1);
const TREE_A = poolTreeAddress(PROGRAM, MINT_A);
const TREE_B = poolTreeAddress(PROGRAM, MINT_B);
const RELAYER = key(0x01);

// Account keys of the test transactions: the indexes the compiled instructions name.
const KEYS = [RELAYER, MINT_A, TREE_A, MINT_B, TREE_B, PROGRAM, OTHER, TOKEN_PROGRAM_ID];
const [iRelayer, iMintA, iTreeA, iMintB, iTreeB, iProgram, iOther] = [0, 1, 2, 3, 4, 5, 6];

const withdrawData = (nullifier: number, change: number, swap = false): Uint8Array =>
  encodePoolInstruction({
    name: swap ? "withdraw_swap" : "withdraw",
    proof: fill(9, 256),
    root: fill(8),
    nullifierHash: fill(nullifier),
    recipient: fill(7),
    amount: 100n,
    fee: 1n,
    changeCommitment: fill(change),
    ...(swap ? { outputMint: fill(6), minOut: 5n } : {}),
  } as Parameters<typeof encodePoolInstruction>[0]);
const depositData = (): Uint8Array => encodePoolInstruction({ name: "deposit", precommitment: fill(3), amount: 10n, nonce: 1n });

const ix = (program: number, data: Uint8Array, mint = iMintA, tree = iTreeA): CompiledLeafInstruction => ({
  programIdIndex: program,
  accounts: [iRelayer, mint, tree],
  data,
});
const withdrawEvent = (nullifier: number, change: number, leafIndex: number): PoolEvent => ({
  name: "WithdrawEvent",
  nullifierHash: fill(nullifier),
  recipient: fill(7),
  amount: 100n,
  fee: 1n,
  relayer: fill(1),
  changeCommitment: fill(change),
  changeLeafIndex: leafIndex,
});
const depositEvent = (leafIndex: number, commitment: number): PoolEvent => ({
  name: "DepositEvent",
  leafIndex,
  commitment: fill(commitment),
  depositor: fill(2),
  amount: 10n,
  slot: 1n,
  nonce: 1n,
});
/** The program's frame around its events, as the runtime logs one invocation. */
const frame = (depth: number, ...events: PoolEvent[]): string[] => [
  `Program ${PROGRAM} invoke [${depth}]`,
  ...events.map(encodePoolEventLog),
  `Program ${PROGRAM} success`,
];

const tx = (parts: Partial<LeafTransaction>): LeafTransaction => ({
  accountKeys: KEYS,
  instructions: [],
  innerInstructions: [],
  logMessages: [],
  err: null,
  ...parts,
});

describe("insertedLeaves", () => {
  it("a withdrawal's change leaf comes from its instruction data, its index from the WithdrawEvent", () => {
    const found = insertedLeaves(tx({ instructions: [ix(iProgram, withdrawData(0x33, 0x44))], logMessages: frame(1, withdrawEvent(0x33, 0x44, 12)) }), PROGRAM);
    expect(found.problems).toEqual([]);
    expect(found.leaves).toEqual([
      {
        kind: "change",
        tree: TREE_A,
        mint: MINT_A,
        instruction: 0,
        inner: false,
        leafIndex: 12,
        commitment: fill(0x44),
        nullifierHash: fill(0x33),
        evented: true,
      },
    ]);
  });

  it("withdraw_swap's change leaf sits at the same offset", () => {
    const found = insertedLeaves(
      tx({ instructions: [ix(iProgram, withdrawData(0x35, 0x45, true))], logMessages: frame(1, withdrawEvent(0x35, 0x45, 3)) }),
      PROGRAM,
    );
    expect(found.leaves.map((l) => [l.kind, l.leafIndex, l.commitment[0]])).toEqual([["change", 3, 0x45]]);
  });

  it("a withdrawal made by another program through CPI is read from the inner instructions, after the deposit before it", () => {
    const found = insertedLeaves(
      tx({
        instructions: [ix(iProgram, depositData()), { programIdIndex: iOther, accounts: [], data: fill(0, 4) }],
        innerInstructions: [{ index: 1, instructions: [ix(iProgram, withdrawData(0x33, 0x44))] }],
        logMessages: [...frame(1, depositEvent(4, 0x10)), `Program ${OTHER} invoke [1]`, ...frame(2, withdrawEvent(0x33, 0x44, 5)), `Program ${OTHER} success`],
      }),
      PROGRAM,
    );
    expect(found.problems).toEqual([]);
    expect(found.leaves.map((l) => [l.kind, l.leafIndex, l.instruction, l.inner])).toEqual([
      ["deposit", 4, 0, false],
      ["change", 5, 2, true],
    ]);
  });

  it("a change leaf whose event was cut from the logs is still read; its index follows the leaf before it", () => {
    const found = insertedLeaves(
      tx({
        instructions: [ix(iProgram, depositData()), ix(iProgram, withdrawData(0x33, 0x44))],
        logMessages: [...frame(1, depositEvent(9, 0x10)), `Program ${PROGRAM} invoke [1]`, "Log truncated"],
      }),
      PROGRAM,
    );
    expect(found.problems).toEqual([]);
    expect(found.leaves.map((l) => [l.kind, l.leafIndex, l.kind === "change" && l.evented])).toEqual([
      ["deposit", 9, false],
      ["change", 10, false],
    ]);
  });

  it("with no log at all a change leaf is still there, its index left open; the one before a placed leaf takes the index before it", () => {
    const alone = insertedLeaves(tx({ instructions: [ix(iProgram, withdrawData(0x33, 0x44))], logMessages: [] }), PROGRAM);
    expect(alone.leaves.map((l) => [l.kind, l.leafIndex])).toEqual([["change", null]]);
    // Logs are cut at the end: one WithdrawEvent for two withdrawals is the first one's.
    const two = insertedLeaves(
      tx({
        instructions: [ix(iProgram, withdrawData(0x31, 0x41)), ix(iProgram, withdrawData(0x32, 0x42))],
        logMessages: frame(1, withdrawEvent(0x31, 0x41, 20)),
      }),
      PROGRAM,
    );
    expect(two.leaves.map((l) => l.leafIndex)).toEqual([20, 21]);
  });

  it("a failed transaction inserted nothing", () => {
    const found = insertedLeaves(tx({ instructions: [ix(iProgram, withdrawData(0x33, 0x44))], err: { InstructionError: [0, { Custom: 6002 }] } }), PROGRAM);
    expect(found).toEqual({ leaves: [], unknownDeposits: [], problems: [] });
  });

  it("a WithdrawEvent that is not its instruction's is a problem, not a leaf index", () => {
    const found = insertedLeaves(tx({ instructions: [ix(iProgram, withdrawData(0x33, 0x44))], logMessages: frame(1, withdrawEvent(0x33, 0x99, 12)) }), PROGRAM);
    expect(found.problems).toHaveLength(1);
    expect(found.problems[0]).toMatch(/WithdrawEvent .* is not the instruction's/);
    expect(found.leaves[0]!.leafIndex).toBeNull();
    const extra = insertedLeaves(tx({ instructions: [], logMessages: frame(1, withdrawEvent(0x33, 0x44, 1)) }), PROGRAM);
    expect(extra.problems).toEqual(["1 WithdrawEvents for 0 withdraw instructions"]);
  });

  it("each leaf names its tree: a transaction touching two pools gives each its own, and indexes are placed per tree", () => {
    const found = insertedLeaves(
      tx({
        instructions: [
          ix(iProgram, depositData(), iMintB, iTreeB),
          ix(iProgram, withdrawData(0x33, 0x44)),
          ix(iProgram, withdrawData(0x34, 0x45, false), iMintB, iTreeB),
        ],
        logMessages: frame(1, depositEvent(7, 0x10)),
      }),
      PROGRAM,
    );
    expect(found.leaves.map((l) => [l.tree, l.kind, l.leafIndex])).toEqual([
      [TREE_B, "deposit", 7],
      [TREE_A, "change", null],
      [TREE_B, "change", 8],
    ]);
  });

  it("a deposit whose event is missing is reported, and no change leaf of its tree is placed across it", () => {
    const found = insertedLeaves(
      tx({
        instructions: [ix(iProgram, withdrawData(0x33, 0x44)), ix(iProgram, depositData()), ix(iProgram, withdrawData(0x34, 0x45))],
        logMessages: frame(1, withdrawEvent(0x33, 0x44, 2)),
      }),
      PROGRAM,
    );
    expect(found.unknownDeposits).toEqual([{ tree: TREE_A, instruction: 1 }]);
    expect(found.leaves.map((l) => l.leafIndex)).toEqual([2, null]);
  });

  it("another program's instruction with withdraw's bytes, and a v2-length withdraw, insert nothing", () => {
    const v2 = withdrawData(0x33, 0x44).slice(0, 376);
    const found = insertedLeaves(tx({ instructions: [ix(iOther, withdrawData(0x33, 0x44)), ix(iProgram, v2)], logMessages: [] }), PROGRAM);
    expect(found.leaves).toEqual([]);
  });
});

describe("leafTransactionOfResponse", () => {
  it("reads web3.js's answer: static keys, then the loaded writable and readonly keys, inner instruction data in base58", () => {
    const loadedW = key(0xc1);
    const loadedR = key(0xc2);
    const t = leafTransactionOfResponse({
      transaction: {
        message: {
          staticAccountKeys: [new PublicKey(RELAYER), new PublicKey(PROGRAM)],
          compiledInstructions: [{ programIdIndex: 1, accountKeyIndexes: [0, 3, 2], data: depositData() }],
        },
      },
      meta: {
        err: null,
        logMessages: [],
        innerInstructions: [{ index: 0, instructions: [{ programIdIndex: 1, accounts: [0, 3, 2], data: bs58.encode(withdrawData(0x33, 0x44)) }] }],
        loadedAddresses: { writable: [new PublicKey(loadedW)], readonly: [new PublicKey(loadedR)] },
      },
    });
    expect(t.accountKeys.map((k) => (typeof k === "string" ? k : bs58.encode(k)))).toEqual([RELAYER, PROGRAM, loadedW, loadedR]);
    const order = executionOrder(t);
    expect(order.map((o) => [o.programId, o.accounts, o.inner])).toEqual([
      [PROGRAM, [RELAYER, loadedR, loadedW], false],
      [PROGRAM, [RELAYER, loadedR, loadedW], true],
    ]);
    expect(order[1]!.data).toEqual(withdrawData(0x33, 0x44));
  });
});

describe("parseWireMessage", () => {
  const payer = Keypair.generate();
  const ixs = [
    new TransactionInstruction({
      programId: new PublicKey(PROGRAM),
      keys: [
        { pubkey: payer.publicKey, isSigner: true, isWritable: true },
        { pubkey: new PublicKey(TREE_A), isSigner: false, isWritable: true },
      ],
      data: Buffer.from(withdrawData(1, 2)),
    }),
    new TransactionInstruction({
      programId: new PublicKey(OTHER),
      keys: [{ pubkey: new PublicKey(MINT_B), isSigner: false, isWritable: false }],
      data: Buffer.alloc(0),
    }),
  ];
  const compiled = (v: VersionedTransaction) => ({
    accountKeys: v.message.staticAccountKeys.map((k) => k.toBase58()),
    instructions: v.message.compiledInstructions.map((i) => ({
      programIdIndex: i.programIdIndex,
      accounts: [...i.accountKeyIndexes],
      data: Uint8Array.from(i.data),
    })),
  });
  const parsed = (wire: Uint8Array) => {
    const m = parseWireMessage(wire);
    return {
      accountKeys: m.accountKeys.map((k) => bs58.encode(k)),
      instructions: m.instructions.map((i) => ({
        programIdIndex: i.programIdIndex,
        accounts: [...Array.from(i.accounts)],
        data: Uint8Array.from(i.data as Uint8Array),
      })),
    };
  };

  it("reads a v0 message (with a lookup table) and a legacy one as web3.js does", () => {
    const table = new AddressLookupTableAccount({
      key: new PublicKey(key(0x55)),
      state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses: [new PublicKey(MINT_B)] },
    });
    const v0 = new VersionedTransaction(
      new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: key(9), instructions: ixs }).compileToV0Message([table]),
    );
    expect(parsed(v0.serialize())).toEqual(compiled(v0));
    const legacy = new VersionedTransaction(
      new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: key(9), instructions: ixs }).compileToLegacyMessage(),
    );
    expect(parsed(legacy.serialize())).toEqual(compiled(legacy));
  });

  it("refuses truncated bytes and a message version it does not know", () => {
    const v0 = new VersionedTransaction(
      new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: key(9), instructions: ixs }).compileToV0Message(),
    ).serialize();
    expect(() => parseWireMessage(v0.subarray(0, v0.length - 10))).toThrow(/truncated/);
    const v1 = Uint8Array.from(v0);
    v1[65] = 0x81;
    expect(() => parseWireMessage(v1)).toThrow(/message version 1/);
  });
});
