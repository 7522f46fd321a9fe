import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { AddressLookupTableAccount, Keypair, PublicKey, TransactionInstruction, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { Buffer } from "buffer";
import type { DepositReceiptData } from "./accounts";
import { DEFAULT_POOL_PROGRAM_ID, TOKEN_PROGRAM_ID } from "./constants";
import { eventAuthorityAddress, poolTreeAddress } from "./addresses";
import { encodePoolEventInstruction, encodePoolEventLog, type PoolEvent } from "./events";
import { encodePoolInstruction } from "./instructions";
import {
  executionOrder,
  insertedLeaves,
  leafTransactionOfResponse,
  parseWireMessage,
  poolEvents,
  poolEventsOfResponse,
  type CompiledLeafInstruction,
  type LeafTransaction,
} from "./leaves";

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
const AUTHORITY = eventAuthorityAddress(PROGRAM);
/** Receipt i of the event-CPI tests: key RECEIPT_BASE + i. */
const RECEIPT_BASE = 0xd0;
const KEYS = [
  RELAYER,
  MINT_A,
  TREE_A,
  MINT_B,
  TREE_B,
  PROGRAM,
  OTHER,
  TOKEN_PROGRAM_ID,
  AUTHORITY,
  ...Array.from({ length: 16 }, (_, i) => key(RECEIPT_BASE + i)),
];
const [iRelayer, iMintA, iTreeA, iMintB, iTreeB, iProgram, iOther, iToken, iAuthority] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const iReceipt = (i: number) => 9 + i;

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
  depositor: fill(1),
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
    expect(found.unknownDeposits).toMatchObject([{ tree: TREE_A, instruction: 1, depositor: RELAYER, nonce: 1n, receipt: "" }]);
    expect(found.leaves.map((l) => l.leafIndex)).toEqual([2, null]);
  });

  it("another program's instruction with withdraw's bytes, and a v2-length withdraw, insert nothing", () => {
    const v2 = withdrawData(0x33, 0x44).slice(0, 376);
    const found = insertedLeaves(tx({ instructions: [ix(iOther, withdrawData(0x33, 0x44)), ix(iProgram, v2)], logMessages: [] }), PROGRAM);
    expect(found.leaves).toEqual([]);
  });
});

// ------------------------------------------------------------ event CPIs

/** deposit i: nonce i, its receipt key RECEIPT_BASE + i, every account the program names up to the receipt. */
const depositIx = (i: number): CompiledLeafInstruction => ({
  programIdIndex: iProgram,
  accounts: [iRelayer, iMintA, iTreeA, iToken, iToken, iReceipt(i)],
  data: encodePoolInstruction({ name: "deposit", precommitment: fill(3), amount: 10n, nonce: BigInt(i) }),
});
const depositEventOf = (i: number, leafIndex: number): PoolEvent => ({ ...(depositEvent(leafIndex, 0x10 + i) as object), nonce: BigInt(i) }) as PoolEvent;
/** The program's self-CPI carrying `e`: accounts[0] the event authority (or `as`). */
const eventCpi = (e: PoolEvent, as = iAuthority): CompiledLeafInstruction => ({
  programIdIndex: iProgram,
  accounts: [as],
  data: bs58.encode(encodePoolEventInstruction(e)),
});
/** A zero-amount SPL transfer (the attacker's log filler). */
const transfer: CompiledLeafInstruction = { programIdIndex: iToken, accounts: [iRelayer, iRelayer, iRelayer], data: Uint8Array.of(3, 0, 0, 0, 0, 0, 0, 0, 0) };
/** What the runtime keeps of a transaction's logs after the 10 kB limit: the start, then "Log truncated". */
const truncatedLogs = ["Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA invoke [1]", "Program log: Instruction: Transfer", "Log truncated"];
const receiptOf = (i: number, leafIndex: number | null, status: DepositReceiptData["status"] = "indexed"): DepositReceiptData => ({
  mint: bs58.decode(MINT_A),
  depositor: bs58.decode(RELAYER),
  commitment: fill(0x10 + i),
  amount: 10n,
  nonce: BigInt(i),
  status,
  leafIndex,
  createdAt: 1n,
  bump: 255,
});

describe("events as self-CPIs (no log limit can drop them)", () => {
  it("46 zero-amount transfers fill the logs, then a deposit: its leaf comes from the event CPI", () => {
    const instructions = [...Array.from({ length: 46 }, () => transfer), depositIx(0)];
    const found = insertedLeaves(
      tx({ instructions, innerInstructions: [{ index: 46, instructions: [eventCpi(depositEventOf(0, 12))] }], logMessages: truncatedLogs }),
      PROGRAM,
    );
    expect(found.problems).toEqual([]);
    expect(found.unknownDeposits).toEqual([]);
    expect(found.leaves).toEqual([
      expect.objectContaining({ kind: "deposit", leafIndex: 12, commitment: fill(0x10), instruction: 46, inner: false, evented: true, tree: TREE_A }),
    ]);
  });

  it("14 deposits in one transaction with the logs cut after the first: every leaf from its own CPI, in order", () => {
    const found = insertedLeaves(
      tx({
        instructions: Array.from({ length: 14 }, (_, i) => depositIx(i)),
        innerInstructions: Array.from({ length: 14 }, (_, i) => ({ index: i, instructions: [eventCpi(depositEventOf(i, 30 + i))] })),
        logMessages: [...frame(1, depositEvent(30, 0x10)), "Log truncated"],
      }),
      PROGRAM,
    );
    expect(found.problems).toEqual([]);
    expect(found.leaves.map((l) => [l.leafIndex, l.instruction, l.commitment[0]])).toEqual(Array.from({ length: 14 }, (_, i) => [30 + i, 2 * i, 0x10 + i]));
  });

  it("an event belongs to the nearest preceding pool instruction: a withdrawal through another program, its token CPIs and its event CPI", () => {
    const found = insertedLeaves(
      tx({
        instructions: [depositIx(1), { programIdIndex: iOther, accounts: [], data: fill(0, 4) }],
        innerInstructions: [
          { index: 0, instructions: [transfer, eventCpi(depositEventOf(1, 4))] },
          { index: 1, instructions: [ix(iProgram, withdrawData(0x33, 0x44)), transfer, eventCpi(withdrawEvent(0x33, 0x44, 5))] },
        ],
        logMessages: null,
      }),
      PROGRAM,
    );
    expect(found.problems).toEqual([]);
    expect(found.leaves.map((l) => [l.kind, l.leafIndex, l.instruction, l.inner, l.evented])).toEqual([
      ["deposit", 4, 0, false, true],
      ["change", 5, 4, true, true],
    ]);
  });

  it("an event CPI is only the program's own: another signer's account, another program's look-alike and a top-level one are not events", () => {
    const fake = depositEventOf(0, 99);
    const found = insertedLeaves(
      tx({
        instructions: [depositIx(0), { programIdIndex: iProgram, accounts: [iAuthority], data: encodePoolEventInstruction(fake) }],
        innerInstructions: [
          {
            index: 0,
            instructions: [eventCpi(fake, iRelayer), { programIdIndex: iOther, accounts: [iAuthority], data: bs58.encode(encodePoolEventInstruction(fake)) }],
          },
        ],
        logMessages: [],
      }),
      PROGRAM,
    );
    expect(found.leaves).toEqual([]);
    expect(found.unknownDeposits).toMatchObject([{ instruction: 0, receipt: key(RECEIPT_BASE), nonce: 0n, depositor: RELAYER, mint: MINT_A }]);
  });

  it("with event CPIs the logs are not read: a Program data line in the pool's frame adds nothing", () => {
    const found = insertedLeaves(
      tx({
        instructions: [depositIx(0)],
        innerInstructions: [{ index: 0, instructions: [eventCpi(depositEventOf(0, 3))] }],
        logMessages: frame(1, depositEventOf(0, 77), depositEventOf(0, 78)),
      }),
      PROGRAM,
    );
    expect(found.problems).toEqual([]);
    expect(found.leaves.map((l) => l.leafIndex)).toEqual([3]);
  });

  it("an event that is not its instruction's is a problem: another nonce, another depositor, a WithdrawEvent after a deposit, two events, one before any instruction", () => {
    const problems = (instructions: CompiledLeafInstruction[], inner: CompiledLeafInstruction[][]) =>
      insertedLeaves(tx({ instructions, innerInstructions: inner.map((instructions, index) => ({ index, instructions })) }), PROGRAM).problems;
    expect(problems([depositIx(0)], [[eventCpi(depositEventOf(1, 3))]])).toEqual([expect.stringMatching(/DepositEvent .* is not the instruction's .*nonce 0/)]);
    expect(problems([depositIx(0)], [[eventCpi({ ...(depositEventOf(0, 3) as object), depositor: fill(9) } as PoolEvent)]])).toHaveLength(1);
    expect(problems([depositIx(0)], [[eventCpi(withdrawEvent(1, 2, 3))]])).toEqual([expect.stringMatching(/a deposit that emitted WithdrawEvent/)]);
    expect(problems([depositIx(0)], [[eventCpi(depositEventOf(0, 3)), eventCpi(depositEventOf(0, 4))]])).toHaveLength(1);
    expect(problems([{ programIdIndex: iOther, accounts: [], data: fill(0, 1) }], [[eventCpi(depositEventOf(0, 3))]])).toEqual([
      expect.stringMatching(/before any instruction of the program/),
    ]);
    const revert = { programIdIndex: iProgram, accounts: [iRelayer, iMintA, iTreeA], data: encodePoolInstruction({ name: "revert", nonce: 1n }) };
    expect(problems([revert], [[eventCpi({ name: "RevertEvent", depositor: fill(1), amount: 1n, nonce: 1n, revertNullifier: fill(4) })]])).toEqual([]);
    expect(problems([revert], [[eventCpi(depositEventOf(0, 3))]])).toEqual([expect.stringMatching(/DepositEvent from an instruction that is not a deposit/)]);
  });

  it("a deposit whose event is missing (no inner instructions from the RPC, logs cut) takes its leaf from its receipt; a failed one inserted none", () => {
    const t = tx({
      instructions: [depositIx(0), depositIx(1), depositIx(2), ix(iProgram, withdrawData(0x33, 0x44))],
      innerInstructions: null,
      logMessages: [...frame(1, depositEventOf(0, 20)), "Log truncated"],
    });
    const without = insertedLeaves(t, PROGRAM);
    expect(without.unknownDeposits.map((u) => [u.instruction, u.receipt])).toEqual([
      [1, key(RECEIPT_BASE + 1)],
      [2, key(RECEIPT_BASE + 2)],
    ]);
    // The change leaf is not placed across deposits that may or may not have inserted one.
    expect(without.leaves.map((l) => [l.kind, l.leafIndex])).toEqual([
      ["deposit", 20],
      ["change", null],
    ]);
    const receipts = new Map([
      [key(RECEIPT_BASE + 1), receiptOf(1, null, "failed")],
      [key(RECEIPT_BASE + 2), receiptOf(2, 21)],
    ]);
    const found = insertedLeaves(t, PROGRAM, receipts);
    expect(found.problems).toEqual([]);
    expect(found.unknownDeposits).toEqual([]);
    expect(found.leaves.map((l) => [l.kind, l.leafIndex, l.evented, l.commitment[0]])).toEqual([
      ["deposit", 20, true, 0x10],
      ["deposit", 21, false, 0x12],
      ["change", 22, false, 0x44],
    ]);
  });

  it("a receipt that is not the deposit's (another nonce, depositor or mint) is a problem, not a leaf", () => {
    const t = tx({ instructions: [depositIx(0)], innerInstructions: null, logMessages: null });
    for (const wrong of [{ nonce: 5n }, { depositor: fill(9) }, { mint: fill(9) }]) {
      const found = insertedLeaves(t, PROGRAM, new Map([[key(RECEIPT_BASE), { ...receiptOf(0, 3), ...wrong }]]));
      expect(found.leaves).toEqual([]);
      expect(found.problems).toEqual([expect.stringMatching(/receipt .* is not this deposit's/)]);
    }
  });

  it("poolEvents: every event in execution order with its instruction, from CPIs or (older transactions) from the logs; none for a failed one", () => {
    const withCpi = tx({
      instructions: [depositIx(0), ix(iProgram, withdrawData(0x33, 0x44))],
      innerInstructions: [
        { index: 0, instructions: [eventCpi(depositEventOf(0, 1))] },
        { index: 1, instructions: [eventCpi(withdrawEvent(0x33, 0x44, 2))] },
      ],
      logMessages: [],
    });
    expect(poolEvents(withCpi, PROGRAM).map((e) => [e.event.name, e.instruction, e.source])).toEqual([
      ["DepositEvent", 0, "cpi"],
      ["WithdrawEvent", 2, "cpi"],
    ]);
    const fromLogs = tx({
      instructions: [depositIx(0), ix(iProgram, withdrawData(0x33, 0x44))],
      logMessages: frame(1, depositEventOf(0, 1), withdrawEvent(0x33, 0x44, 2)),
    });
    expect(poolEvents(fromLogs, PROGRAM).map((e) => [e.event.name, e.instruction, e.source])).toEqual([
      ["DepositEvent", 0, "log"],
      ["WithdrawEvent", 1, "log"],
    ]);
    expect(poolEvents({ ...withCpi, err: { InstructionError: [0, { Custom: 1 }] } }, PROGRAM)).toEqual([]);
  });

  it("poolEventsOfResponse reads a web3.js answer's inner instructions (base58 data) past a cut log", () => {
    const events = poolEventsOfResponse(
      {
        transaction: {
          message: {
            staticAccountKeys: KEYS.map((k) => new PublicKey(k)),
            compiledInstructions: [{ programIdIndex: iProgram, accountKeyIndexes: Array.from(depositIx(7).accounts), data: depositIx(7).data as Uint8Array }],
          },
        },
        meta: {
          err: null,
          logMessages: truncatedLogs,
          innerInstructions: [
            { index: 0, instructions: [{ programIdIndex: iProgram, accounts: [iAuthority], data: eventCpi(depositEventOf(7, 9)).data as string }] },
          ],
        },
      },
      PROGRAM,
    );
    expect(events).toEqual([depositEventOf(7, 9)]);
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
