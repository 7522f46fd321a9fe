import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { PublicKey, SendTransactionError, Transaction, type Connection } from "@solana/web3.js";
import { beforeAll, describe, expect, it } from "vitest";
import { createNoteOrThrow, tempDirAround } from "./test-support";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import {
  COMPUTE_BUDGET_PROGRAM_ID,
  DEFAULT_POOL_PROGRAM_ID,
  associatedTokenAddress,
  decodePoolInstruction,
  depositReceiptAddress,
  encodePoolEventLog,
  poolTreeAddress,
  TREE_ACCOUNT_OFFSETS,
  TREE_ACCOUNT_SIZE,
  type PoolEvent,
} from "../../src-shared/pool-program";
import { chainDeposit, chainDepositAndSaveNote, movedNothing } from "./chain-deposit";
import { Keypair } from "./keypair";
import { loadNote, type DepositNote } from "./note";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const PID = DEFAULT_POOL_PROGRAM_ID;
const BLOCKHASH = "EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k";

/**
 * The deposit's own logic against a stand-in RPC: what is sent, how the
 * outcome is read, and when the note is kept. The real pool program on the
 * local validator is in src-client/cli/localnet.http.test.ts.
 */
interface Fake {
  tokens?: bigint;
  lamports?: number;
  noPool?: boolean;
  /** The tree account's minimum deposit (a full-size tree of issue 25's layout); absent: an empty stand-in account. */
  minDeposit?: bigint;
  /** Throws from sendRawTransaction. */
  sendError?: Error;
  /** The status getSignatureStatuses answers (null: none). */
  status?: { err: unknown } | null;
  blockHeight?: number;
  /** The event the transaction logs (its nonce and depositor are filled in from what was sent). */
  event?: (sent: { nonce: bigint; depositor: Uint8Array }) => PoolEvent | null;
}

function treeData(minDeposit: bigint | undefined): Buffer {
  if (minDeposit === undefined) return Buffer.alloc(0);
  const data = Buffer.alloc(TREE_ACCOUNT_SIZE);
  data.writeBigUInt64LE(minDeposit, TREE_ACCOUNT_OFFSETS.minDeposit);
  return data;
}

function fakeConnection(f: Fake): { connection: Connection; sent: Transaction[] } {
  const sent: Transaction[] = [];
  const tree = poolTreeAddress(PID, USDC);
  const connection = {
    getAccountInfo: async (pk: PublicKey) => {
      const a = pk.toBase58();
      if (a === tree) return f.noPool ? null : { owner: new PublicKey(PID), lamports: 1, data: treeData(f.minDeposit), executable: false };
      if (a === associatedTokenAddress(wallet.address, USDC)) return { owner: new PublicKey(PID), lamports: 1, data: Buffer.alloc(0), executable: false };
      return null;
    },
    getTokenAccountBalance: async () => ({ value: { amount: (f.tokens ?? 5_000_000n).toString() } }),
    getMinimumBalanceForRentExemption: async (n: number) => 890_880 + n * 6_960,
    getBalance: async () => f.lamports ?? 1_000_000_000,
    getLatestBlockhash: async () => ({ blockhash: BLOCKHASH, lastValidBlockHeight: 100 }),
    sendRawTransaction: async (raw: Uint8Array) => {
      sent.push(Transaction.from(raw));
      if (f.sendError) throw f.sendError;
      return encodeBase58(Transaction.from(raw).signature!);
    },
    getSignatureStatuses: async () => ({
      value: [f.status === null ? null : { slot: 9, confirmations: 1, err: f.status?.err ?? null, confirmationStatus: "confirmed" }],
    }),
    getBlockHeight: async () => f.blockHeight ?? 50,
    getTransaction: async () => {
      const ix = decodePoolInstruction(sent[0]!.instructions[1]!.data);
      if (!ix.ok || ix.value.name !== "deposit") throw new Error("not a deposit");
      const e = f.event?.({ nonce: ix.value.nonce, depositor: wallet.publicKey }) ?? null;
      // A transaction from before event CPIs: its event in the logs (events are read with the transaction's instructions, src-shared/pool-program/leaves.ts).
      return {
        transaction: { message: sent[0]!.compileMessage() },
        meta: { err: null, logMessages: [`Program ${PID} invoke [1]`, ...(e ? [encodePoolEventLog(e)] : []), `Program ${PID} success`] },
      };
    },
  } as unknown as Connection;
  return { connection, sent };
}

let hasher: FieldHasher;
const dir = tempDirAround("sdk-chain-deposit-");
const wallet = Keypair.generate();

beforeAll(async () => {
  hasher = await createPoseidonHasher();
});

const newNote = (): Promise<DepositNote> => createNoteOrThrow({ network: "mainnet", mint: USDC, amount: 1_000_000n, hasher });
const inserted =
  (note: DepositNote, leafIndex = 7) =>
  (s: { nonce: bigint; depositor: Uint8Array }): PoolEvent => ({
    name: "DepositEvent",
    leafIndex,
    commitment: note.commitment,
    depositor: s.depositor,
    amount: note.amount,
    slot: 9n,
    nonce: s.nonce,
  });
const fast = { pollMs: 1 };
let n = 0;
const file = () => path.join(dir(), `note-${n++}.json`);

describe("chainDeposit", () => {
  it("sends a compute-unit limit and the pool program's deposit with the note's precommitment, amount and a fresh nonce, signed by the wallet; records the leaf", async () => {
    const note = await newNote();
    const f = fakeConnection({ event: inserted(note) });
    const r = await chainDeposit(f.connection, wallet, note, { hasher, ...fast });
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    const tx = f.sent[0]!;
    expect(tx.feePayer?.toBase58()).toBe(wallet.address);
    expect(tx.verifySignatures()).toBe(true);
    expect(tx.instructions.map((i) => i.programId.toBase58())).toEqual([COMPUTE_BUDGET_PROGRAM_ID, PID]);
    const ix = decodePoolInstruction(tx.instructions[1]!.data);
    if (!ix.ok || ix.value.name !== "deposit") throw new Error("not a deposit");
    expect(Uint8Array.from(ix.value.precommitment)).toEqual(note.precommitment);
    expect(ix.value.amount).toBe(1_000_000n);
    expect(tx.instructions[1]!.keys[5]!.pubkey.toBase58()).toBe(depositReceiptAddress(PID, USDC, wallet.address, ix.value.nonce));
    expect(r.value.note.deposit).toEqual({ signature: encodeBase58(tx.signature!), status: "indexed", leafIndex: 7, wallet: wallet.address });
    expect(r.value.answer).toMatchObject({ status: "indexed", leafIndex: 7, nonce: ix.value.nonce, amount: 1_000_000n, slot: 9 });
  });

  it("records a DepositFailedEvent as failed: a duplicate names the note's leaf, a precommitment that made none names no leaf", async () => {
    const note = await newNote();
    for (const commitment of [note.commitment, new Uint8Array(32)]) {
      const f = fakeConnection({
        event: (s) => ({
          name: "DepositFailedEvent",
          precommitment: note.precommitment,
          commitment,
          depositor: s.depositor,
          amount: note.amount,
          slot: 9n,
          nonce: s.nonce,
          reason: "duplicate",
        }),
      });
      const r = await chainDeposit(f.connection, wallet, note, { hasher, nonce: 3n, ...fast });
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      expect(r.value.note.deposit).toMatchObject({ status: "failed", leafIndex: null });
      expect(r.value.answer.commitment === null).toBe(commitment.every((b) => b === 0));
    }
  });

  it("answers `leaf` when the program's leaf is not the note's, and `event` when the logs hold no deposit of this wallet and nonce", async () => {
    const note = await newNote();
    const other = await newNote();
    const mismatch = await chainDeposit(fakeConnection({ event: inserted(other) }).connection, wallet, note, { hasher, ...fast });
    expect(mismatch).toMatchObject({ ok: false, error: { kind: "leaf", answer: { status: "indexed", leafIndex: 7 }, expected: note.commitment } });
    const otherNonce = await chainDeposit(
      fakeConnection({ event: (s) => ({ ...inserted(note)(s), nonce: s.nonce + 1n }) as PoolEvent }).connection,
      wallet,
      note,
      { hasher, ...fast },
    );
    expect(otherNonce).toMatchObject({ ok: false, error: { kind: "event" } });
  });

  it("refuses a note already deposited, a pool that does not exist and a wallet without the tokens or SOL, before sending anything", async () => {
    const note = await newNote();
    const cases: [Fake, string][] = [
      [{ noPool: true }, "pool"],
      [{ tokens: 999_999n }, "funds"],
      [{ lamports: 10_000 }, "funds"],
    ];
    for (const [fake, kind] of cases) {
      const f = fakeConnection(fake);
      expect(await chainDeposit(f.connection, wallet, note, { hasher, ...fast })).toMatchObject({ ok: false, error: { kind } });
      expect(f.sent).toHaveLength(0);
    }
    // Below the pool's minimum deposit (issue 25) the program would refuse it: said before anything is sent; at the minimum it goes.
    const below = fakeConnection({ minDeposit: 1_000_001n });
    expect(await chainDeposit(below.connection, wallet, note, { hasher, ...fast })).toMatchObject({
      ok: false,
      error: { kind: "input", message: expect.stringContaining("minimum deposit is 1000001 base units") },
    });
    expect(below.sent).toHaveLength(0);
    const at = fakeConnection({ minDeposit: 1_000_000n, event: inserted(note) });
    expect(await chainDeposit(at.connection, wallet, note, { hasher, ...fast })).toMatchObject({ ok: true });
    const done = { ...note, deposit: { signature: "x", status: "indexed" as const, leafIndex: 0, wallet: wallet.address } };
    expect(await chainDeposit(fakeConnection({}).connection, wallet, done, { hasher })).toMatchObject({ ok: false, error: { kind: "input" } });
  });
});

describe("chainDepositAndSaveNote", () => {
  it("saves the note before sending and rewrites it with the deposit", async () => {
    const note = await newNote();
    const f = file();
    const r = await chainDepositAndSaveNote(fakeConnection({ event: inserted(note, 2) }).connection, wallet, note, f, { hasher, ...fast });
    expect(r.ok).toBe(true);
    const saved = await loadNote(f, hasher);
    expect(saved).toMatchObject({ ok: true, value: { deposit: { status: "indexed", leafIndex: 2 } } });
  });

  it("removes the unused note only when nothing can have moved: refused by preflight, or failed on chain; keeps it when it expired, may still land, or named another leaf", async () => {
    const note = await newNote();
    const refusedError = new SendTransactionError({
      action: "simulate",
      signature: "",
      transactionMessage: "Transaction simulation failed: Error processing Instruction 1: custom program error: 0x1",
      logs: ["Program log: Error: insufficient funds"],
    });
    const outcomes: [Fake, string, boolean][] = [
      [{ sendError: refusedError }, "refused", false],
      [{ status: { err: { InstructionError: [1, { Custom: 1 }] } } }, "failed", false],
      [{ status: null, blockHeight: 101 }, "expired", true],
      [{ status: null, sendError: new Error("fetch failed") }, "unknown", true],
      [{ event: inserted({ ...note, commitment: new Uint8Array(32).fill(1) }) }, "leaf", true],
    ];
    for (const [fake, kind, kept] of outcomes) {
      const f = file();
      const r = await chainDepositAndSaveNote(fakeConnection(fake).connection, wallet, note, f, { hasher, ...fast, timeoutMs: 50 });
      if (r.ok) throw new Error(`${kind}: deposited`);
      const failure = r.error.stage === "deposit" || r.error.stage === "leaf" ? r.error.failure : null;
      expect(failure?.kind, kind).toBe(kind);
      if (failure && failure.kind !== "leaf") expect(movedNothing(failure)).toBe(!kept);
      expect(existsSync(f), kind).toBe(kept);
      if (kept) expect(JSON.parse(readFileSync(f, "utf8"))).toMatchObject({ deposit: null });
    }
  });
});
