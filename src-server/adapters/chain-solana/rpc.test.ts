import bs58 from "bs58";
import { Keypair, PublicKey, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { Buffer } from "buffer";
import { describe, expect, it } from "vitest";
import { DEFAULT_POOL_PROGRAM_ID, NATIVE_MINT, encodeBase64, withdrawInstruction } from "../../../src-shared/pool-program";
import { executionOrder, insertedLeaves } from "../../../src-shared/pool-program/leaves";
import { parseLandedTransaction } from "./rpc";

const PROGRAM = DEFAULT_POOL_PROGRAM_ID;
const relayer = Keypair.generate().publicKey.toBase58();
const withdraw = withdrawInstruction({
  programId: PROGRAM,
  relayer,
  mint: NATIVE_MINT,
  proof: new Uint8Array(256),
  root: new Uint8Array(32),
  nullifierHash: new Uint8Array(32).fill(3),
  recipient: Keypair.generate().publicKey.toBase58(),
  amount: 10n,
  fee: 1n,
  changeCommitment: new Uint8Array(32).fill(4),
});
/** The transaction's wire bytes as the RPC's base64 encoding gives them (signatures left zero). */
const wire = encodeBase64(
  new VersionedTransaction(
    new TransactionMessage({ payerKey: new PublicKey(relayer), recentBlockhash: PublicKey.default.toBase58(), instructions: [withdraw] }).compileToV0Message(),
  ).serialize(),
);

describe("parseLandedTransaction (the backfill's raw getTransaction)", () => {
  it("reads slot, error, logs and the message's instructions, and ignores the rest of the answer", () => {
    const logs = ["Program X invoke [1]", "Program data: AAAA", "Program X success"];
    const landed = parseLandedTransaction({
      slot: 42,
      blockTime: 1,
      transaction: [wire, "base64"],
      meta: { err: null, fee: 5000, logMessages: logs, innerInstructions: [], loadedAddresses: { writable: [], readonly: [] } },
    });
    expect(landed!.slot).toBe(42);
    expect(landed!.tx!.logMessages).toEqual(logs);
    const [ix] = executionOrder(landed!.tx!);
    expect(ix!.programId).toBe(PROGRAM);
    expect(ix!.accounts).toEqual(withdraw.keys.map((k) => k.pubkey.toBase58()));
    expect(Buffer.from(ix!.data).equals(withdraw.data)).toBe(true);
    // The change leaf comes out of the parsed instruction even with no event in the logs.
    expect(insertedLeaves(landed!.tx!, PROGRAM).leaves.map((l) => [l.kind, l.commitment[0]])).toEqual([["change", 4]]);
  });

  it("reads inner instructions (base58 data) and keys loaded from lookup tables after the static ones", () => {
    const loaded = Keypair.generate().publicKey.toBase58();
    const landed = parseLandedTransaction({
      slot: 7,
      transaction: [wire, "base64"],
      meta: {
        err: { InstructionError: [0, { Custom: 6002 }] },
        logMessages: [],
        innerInstructions: [{ index: 0, instructions: [{ programIdIndex: 0, accounts: [0], data: bs58.encode(Uint8Array.of(1, 2)), stackHeight: 2 }] }],
        loadedAddresses: { writable: [loaded], readonly: [] },
      },
    });
    expect(landed!.tx!.err).toEqual({ InstructionError: [0, { Custom: 6002 }] });
    expect(landed!.tx!.accountKeys.at(-1)).toBe(loaded);
    expect(landed!.tx!.innerInstructions).toEqual([{ index: 0, instructions: [{ programIdIndex: 0, accounts: [0], data: bs58.encode(Uint8Array.of(1, 2)) }] }]);
    expect(executionOrder(landed!.tx!)[1]!.data).toEqual(Uint8Array.of(1, 2));
  });

  it("answers null for a transaction the node does not have (yet), and a null meta as such", () => {
    expect(parseLandedTransaction(null)).toBeNull();
    expect(parseLandedTransaction({ slot: 3, meta: null })).toEqual({ slot: 3, tx: null });
  });

  it("keeps a node without logs visible as logMessages null (the reader refuses it by name)", () => {
    expect(parseLandedTransaction({ slot: 3, transaction: [wire, "base64"], meta: { err: null } })!.tx!.logMessages).toBeNull();
  });

  it.each([
    ["a string", "tx"],
    ["no slot", { meta: { err: null, logMessages: [] } }],
    ["a fractional slot", { slot: 1.5, meta: null }],
    ["a meta that is a number", { slot: 1, meta: 5 }],
    ["logs that are not strings", { slot: 1, transaction: [wire, "base64"], meta: { err: null, logMessages: [1, 2] } }],
    ["no transaction", { slot: 1, meta: { err: null, logMessages: [] } }],
    ["a transaction that does not parse", { slot: 1, transaction: ["AAAA", "base64"], meta: { err: null, logMessages: [] } }],
    ["malformed inner instructions", { slot: 1, transaction: [wire, "base64"], meta: { err: null, logMessages: [], innerInstructions: [{ index: 0 }] } }],
  ])("refuses %s with an error naming getTransaction", (_n, result) => {
    expect(() => parseLandedTransaction(result)).toThrow(/^getTransaction: /);
  });
});
