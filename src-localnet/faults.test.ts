/**
 * Each fault of the local validator does what it says, seen through an
 * unmodified web3.js Connection (or a raw request where web3.js has no
 * method).
 */
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SendTransactionError,
  SolanaJSONRPCError,
  SystemProgram,
  Transaction,
  TransactionExpiredBlockheightExceededError,
} from "@solana/web3.js";
import bs58 from "bs58";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { memoInstruction, rpc, sleep, until } from "../tests/support/localnet-rpc";
import { startLocalValidator, type LocalValidator } from "./validator";

let v: LocalValidator;
let conn: Connection;
let payer: Keypair;

beforeAll(async () => {
  v = await startLocalValidator({ port: 0, slotMs: 20 });
  conn = new Connection(v.rpcUrl, { commitment: "confirmed", wsEndpoint: v.wsUrl });
  payer = Keypair.generate();
  await v.airdrop(payer.publicKey.toBase58(), 10 * LAMPORTS_PER_SOL);
});

afterEach(() => v.faults.clear());
afterAll(async () => {
  await v?.close();
});

async function signedTransfer(lamports = 1_000_000) {
  const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash();
  const tx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight }).add(
    SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports }),
  );
  tx.sign(payer);
  return { wire: tx.serialize(), signature: bs58.encode(tx.signature!), blockhash, lastValidBlockHeight };
}

const status = async (signature: string) => (await conn.getSignatureStatus(signature, { searchTransactionHistory: true })).value;

describe("transaction faults", () => {
  it("dropTransactions: accepted, never lands; a rebroadcast of the same transaction lands", async () => {
    v.faults.set({ dropTransactions: 1 });
    const s = await signedTransfer();
    const sig = await conn.sendRawTransaction(s.wire);
    expect(sig).toBe(s.signature);
    await v.waitForSlot(v.ledger.slot + 5);
    expect(await status(sig)).toBeNull();
    expect(v.faults.get().dropTransactions).toBeUndefined();
    await conn.sendRawTransaction(s.wire);
    const res = await conn.confirmTransaction({ signature: sig, blockhash: s.blockhash, lastValidBlockHeight: s.lastValidBlockHeight });
    expect(res.value.err).toBeNull();
  });

  it("dropAll drops every transaction until turned off", async () => {
    v.faults.set({ dropAll: true });
    const a = await signedTransfer();
    const b = await signedTransfer(1_000_001);
    await conn.sendRawTransaction(a.wire);
    await conn.sendRawTransaction(b.wire);
    await v.waitForSlot(v.ledger.slot + 3);
    expect(await status(a.signature)).toBeNull();
    expect(await status(b.signature)).toBeNull();
    v.faults.set({ dropAll: false });
    await conn.sendRawTransaction(b.wire);
    await until("landed", () => status(b.signature));
  });

  it("expireNext: the transaction is dropped and its blockhash expires; a fresh blockhash lands", async () => {
    v.faults.set({ expireNext: 1 });
    const s = await signedTransfer();
    const sig = await conn.sendRawTransaction(s.wire);
    expect(await conn.getBlockHeight()).toBeGreaterThan(s.lastValidBlockHeight);
    const e = await conn.confirmTransaction({ signature: sig, blockhash: s.blockhash, lastValidBlockHeight: s.lastValidBlockHeight }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TransactionExpiredBlockheightExceededError);
    expect((await sendError(conn.sendRawTransaction(s.wire))).message).toContain("Blockhash not found");
    const fresh = await signedTransfer();
    const sig2 = await conn.sendRawTransaction(fresh.wire);
    expect(
      (await conn.confirmTransaction({ signature: sig2, blockhash: fresh.blockhash, lastValidBlockHeight: fresh.lastValidBlockHeight })).value.err,
    ).toBeNull();
  });

  it("expireBlockhashes keeps expiring until turned off", async () => {
    v.faults.set({ expireBlockhashes: true });
    for (let i = 0; i < 2; i++) {
      const s = await signedTransfer();
      await conn.sendRawTransaction(s.wire);
      expect(await conn.getBlockHeight()).toBeGreaterThan(s.lastValidBlockHeight);
    }
  });

  it("landDelaySlots: a transaction lands n slots after it was received", async () => {
    v.faults.set({ landDelaySlots: 8 });
    const s = await signedTransfer();
    const sentAt = v.ledger.slot;
    const sig = await conn.sendRawTransaction(s.wire);
    await sleep(60);
    expect(await status(sig)).toBeNull();
    const res = await conn.confirmTransaction({ signature: sig, blockhash: s.blockhash, lastValidBlockHeight: s.lastValidBlockHeight });
    expect(res.value.err).toBeNull();
    expect(res.context.slot).toBeGreaterThanOrEqual(sentAt + 8);
  });

  it("simulationError with simulationFailures: the next n simulations fail with that error", async () => {
    const err = { InstructionError: [0, { Custom: 6001 }] };
    v.faults.set({ simulationError: { err, logs: ["Program log: Error: UnknownRoot"] }, simulationFailures: 2 });
    const sim = await rpc(v.rpcUrl, "simulateTransaction", [(await signedTransfer()).wire.toString("base64"), { encoding: "base64" }]);
    expect(sim.body.result.value).toMatchObject({ err, logs: ["Program log: Error: UnknownRoot"] });
    const e = await sendError(conn.sendRawTransaction((await signedTransfer()).wire));
    expect(e.message).toContain("custom program error: 0x1771");
    expect(e.logs).toEqual(["Program log: Error: UnknownRoot"]);
    expect(v.faults.get()).toEqual({});
    const s = await signedTransfer();
    await conn.sendRawTransaction(s.wire);
    await until("landed", () => status(s.signature));
  });
});

async function sendError(p: Promise<unknown>): Promise<SendTransactionError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(SendTransactionError);
  return e as SendTransactionError;
}

describe("RPC faults", () => {
  it("rpcErrors with a JSON-RPC code fail the next `count` matching requests", async () => {
    v.faults.set({ rpcErrors: { methods: ["getBalance"], count: 2, code: -32005 } });
    for (let i = 0; i < 2; i++) {
      const e = await conn.getBalanceAndContext(payer.publicKey).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(SolanaJSONRPCError);
      expect((e as SolanaJSONRPCError).code).toBe(-32005);
    }
    expect(await conn.getSlot()).toBeGreaterThan(0);
    expect(await conn.getBalance(payer.publicKey)).toBeGreaterThan(0);
  });

  it("rpcErrors with an HTTP status answer that status", async () => {
    v.faults.set({ rpcErrors: { code: 503, count: 1 } });
    const e = await conn.getSlot().catch((x: unknown) => x);
    expect(String(e)).toContain("503");
    expect(await conn.getSlot()).toBeGreaterThan(0);
  });

  it("rpcTimeout holds the answer past the client's timeout, after the request took effect", async () => {
    v.faults.set({ rpcTimeout: { methods: ["sendTransaction"], ms: 800, count: 1 } });
    const s = await signedTransfer();
    const e = await rpc(v.rpcUrl, "sendTransaction", [s.wire.toString("base64"), { encoding: "base64" }], { signal: AbortSignal.timeout(200) }).catch(
      (x: unknown) => x,
    );
    expect((e as Error).name).toBe("TimeoutError");
    // The client does not know, but the transaction landed: an unknown outcome.
    await until("landed", () => status(s.signature));
  });

  it("rpcDelayMs slows every request", async () => {
    v.faults.set({ rpcDelayMs: 150 });
    const t0 = Date.now();
    await conn.getSlot();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it("down: requests fail with 503 (websockets closed) until it is turned off; localnet_* still answers", async () => {
    let slots = 0;
    const sub = conn.onSlotChange(() => (slots += 1));
    await until("slot notifications", () => slots > 2);
    v.faults.set({ down: true });
    expect(String(await conn.getSlot().catch((x: unknown) => x))).toContain("503");
    expect((await rpc(v.rpcUrl, "getHealth")).status).toBe(503);
    expect((await rpc(v.rpcUrl, "localnet_status")).body.result.faults).toEqual({ down: true });
    await sleep(100);
    const during = slots;
    await sleep(200);
    expect(slots).toBe(during);
    expect((await rpc(v.rpcUrl, "localnet_clearFaults")).body.result).toEqual({});
    expect(await conn.getSlot()).toBeGreaterThan(0);
    // web3.js reconnects its websocket (after ~1 s) and resubscribes.
    await until("notifications again", () => slots > during + 2, 5000);
    await conn.removeSlotChangeListener(sub);
  });

  it("downForMs: down, then back by itself", async () => {
    v.faults.set({ downForMs: 300 });
    expect(String(await conn.getSlot().catch((x: unknown) => x))).toContain("503");
    await sleep(350);
    expect(await conn.getSlot()).toBeGreaterThan(0);
    expect(v.faults.get()).toEqual({});
  });

  it("lagSlots: the node reports n slots less, is unhealthy, and refuses preflight", async () => {
    v.faults.set({ lagSlots: 10 });
    const reported = await conn.getSlot();
    expect(v.ledger.slot - reported).toBeGreaterThanOrEqual(10);
    expect(v.ledger.slot - reported).toBeLessThan(13);
    const health = await rpc(v.rpcUrl, "getHealth");
    expect(health.body.error).toEqual({ code: -32005, message: "Node is behind by 10 slots", data: { numSlotsBehind: 10 } });
    const e = await sendError(conn.sendRawTransaction((await signedTransfer()).wire));
    expect(e.message).toContain("Node is behind by 10 slots");
    const min = await rpc(v.rpcUrl, "getBalance", [payer.publicKey.toBase58(), { minContextSlot: v.ledger.slot }]);
    expect(min.body.error).toMatchObject({ code: -32016, message: "Minimum context slot has not been reached" });
    const s = await signedTransfer();
    await conn.sendRawTransaction(s.wire, { skipPreflight: true });
    await until("landed", () => status(s.signature));
    v.faults.set({ lagSlots: 0 });
    expect((await rpc(v.rpcUrl, "getHealth")).body.result).toBe("ok");
  });

  it("is switched at run time through localnet_setFaults", async () => {
    const r = await rpc(v.rpcUrl, "localnet_setFaults", { dropTransactions: 2, landDelaySlots: 3 });
    expect(r.body.result).toEqual({ dropTransactions: 2, landDelaySlots: 3 });
    expect(v.faults.get()).toEqual({ dropTransactions: 2, landDelaySlots: 3 });
    const bad = await rpc(v.rpcUrl, "localnet_setFaults", { dropTransactions: -1 });
    expect(bad.body.error.code).toBe(-32602);
    await rpc(v.rpcUrl, "localnet_clearFaults");
    expect(v.faults.get()).toEqual({});
    // A transaction still lands after all that.
    const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash();
    const tx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight }).add(memoInstruction("still up"));
    tx.sign(payer);
    const sig = await conn.sendRawTransaction(tx.serialize());
    expect((await conn.confirmTransaction({ signature: sig, blockhash, lastValidBlockHeight })).value.err).toBeNull();
  });
});
