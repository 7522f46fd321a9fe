import { randomBytes } from "node:crypto";
import bs58 from "bs58";
import { PublicKey, type ConfirmedSignatureInfo, type Connection, type SignaturesForAddressOptions } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import {
  DEFAULT_POOL_PROGRAM_ID,
  NATIVE_MINT,
  encodeDepositReceipt,
  encodePoolEventInstruction,
  encodePoolEventLog,
  encodePoolInstruction,
  eventAuthorityAddress,
  poolTreeAddress,
  type PoolEvent,
} from "../../../src-shared/pool-program";
import type { LeafEvent } from "../../ports/chain";
import { DepositHistoryCache, fetchLeafEventsPage, type DepositHistoryRpc, type HistoryTransaction } from "./deposit-history";

// A web3.js Connection is a DepositHistoryRpc (checked by the compiler).
export const connectionIsRpc = (c: Connection): DepositHistoryRpc => c;

const PROGRAM = DEFAULT_POOL_PROGRAM_ID;
const OTHER_PROGRAM = "CpSwap11111111111111111111111111111111111111";
const MINT = NATIVE_MINT;
const TREE = poolTreeAddress(PROGRAM, MINT);
const POOL = { programId: PROGRAM, mint: MINT, treeAddress: TREE };
const RELAYER = new PublicKey(new Uint8Array(32).fill(1)).toBase58();
/** Every fake transaction's account keys: the compiled instructions index them. */
const KEYS = [RELAYER, MINT, TREE, PROGRAM, OTHER_PROGRAM];
const KEY_OBJECTS = KEYS.map((k) => new PublicKey(k));
const [K_PROGRAM, K_OTHER] = [3, 4];
const ACCOUNTS = [0, 1, 2];

interface CompiledIx {
  programIdIndex: number;
  accountKeyIndexes: number[];
  data: Uint8Array;
}

interface FakeTx {
  signature: string;
  slot: number;
  err: unknown;
  logs: string[];
  instructions: CompiledIx[];
  inner: { index: number; instructions: { programIdIndex: number; accounts: number[]; data: string }[] }[];
  /** Leaf indexes this transaction legitimately inserted. */
  leaves: number[];
  /** Its change leaves' commitments by leaf index. */
  changes: Map<number, Uint8Array>;
  /** Its account keys (KEYS, then its deposits' receipts and the event authority). */
  keys: string[];
}

interface AddOptions {
  err?: boolean;
  sameSlot?: boolean;
  /** Another program logs look-alike DepositEvents inside and after our instruction. */
  foreign?: boolean;
  /** A withdrawal after the deposits (a change leaf). */
  withdraw?: boolean;
  /** The withdrawal is a CPI of another program. */
  inner?: boolean;
  /** The logs are cut right after the withdrawal's invoke line (its WithdrawEvent lost). */
  cut?: boolean;
  /** The WithdrawEvent names another change commitment than the instruction. */
  lyingEvent?: boolean;
  /**
   * Where the events are: "log" (`Program data:` lines, a transaction from
   * before event CPIs; the default), "cpi" (the program's self-CPIs, after a
   * log cut at the start of the transaction), or "none" (logs cut and no inner
   * instructions from the RPC: only the receipts tell).
   */
  events?: "log" | "cpi" | "none";
}

/** A deposit whose nonce is its leaf index (the fake's DepositEvent says so, and leaves.ts checks the event's nonce against the instruction's). */
const deposit = (nonce: number): Uint8Array =>
  encodePoolInstruction({ name: "deposit", precommitment: new Uint8Array(32).fill(5), amount: 1_000_000n, nonce: BigInt(nonce) });
const changeOf = (leafIndex: number): Uint8Array => {
  const c = new Uint8Array(32);
  c[0] = 0x0c;
  new DataView(c.buffer).setUint32(28, leafIndex + 1);
  return c;
};
const withdraw = (nullifier: Uint8Array, change: Uint8Array): Uint8Array =>
  encodePoolInstruction({
    name: "withdraw",
    proof: new Uint8Array(256),
    root: new Uint8Array(32),
    nullifierHash: nullifier,
    recipient: new Uint8Array(32).fill(8),
    amount: 5n,
    fee: 1n,
    changeCommitment: change,
  });

/**
 * A scripted RPC over one tree's history: getSignaturesForAddress pages
 * backwards (newest first, `before`/`until` exclusive, at most `limit`), and
 * getTransaction answers from the ledger (web3.js's shape) unless the
 * signature is hidden.
 */
class FakeRpc implements DepositHistoryRpc {
  readonly txs: FakeTx[] = [];
  readonly hidden = new Set<string>();
  private readonly bySignature = new Map<string, FakeTx>();
  sigCalls = 0;
  txCalls = 0;
  maxInFlight = 0;
  private inFlight = 0;
  private slot = 1;
  leaf = 0;
  /** Order in which the RPC lists a slot's transactions (its listing, reversed = oldest first). */
  shuffleWithinSlot = false;
  /** Receipt accounts by address (the deposits' of transactions added with events "cpi" or "none"). */
  readonly receipts = new Map<string, Uint8Array>();
  /** Receipt reads answer null while set (an RPC that has not caught up). */
  receiptsUnreadable = false;
  receiptCalls = 0;

  /** A transaction in a new slot (or the current one) with `deposits` deposits, and a withdrawal when asked. */
  add(deposits: number, o: AddOptions = {}): FakeTx {
    if (!o.sameSlot) this.slot += 1 + (this.txs.length % 3);
    const signature = encodeBase58(randomBytes(64));
    const logs = [`Program ComputeBudget111111111111111111111111111111 invoke [1]`, `Program ComputeBudget111111111111111111111111111111 success`];
    const instructions: CompiledIx[] = [];
    const inner: FakeTx["inner"] = [];
    const leaves: number[] = [];
    const changes = new Map<number, Uint8Array>();
    const end = (failed: boolean) =>
      logs.push(
        `Program ${PROGRAM} consumed 5000 of 200000 compute units`,
        failed ? `Program ${PROGRAM} failed: custom program error: 0x1770` : `Program ${PROGRAM} success`,
      );
    const mode = o.events ?? "log";
    const keys = mode === "log" ? KEYS : [...KEYS];
    const keyIndex = (k: string): number => (keys.includes(k) ? keys.indexOf(k) : keys.push(k) - 1);
    /** An event: a log line, or the program's self-CPI after instruction `top`. */
    const emit = (e: PoolEvent, top: number) => {
      if (mode === "log") logs.push(encodePoolEventLog(e));
      if (mode !== "cpi") return;
      const cpi = { programIdIndex: K_PROGRAM, accounts: [keyIndex(AUTHORITY)], data: bs58.encode(encodePoolEventInstruction(e)) };
      const set = inner.find((x) => x.index === top);
      if (set) set.instructions.push(cpi);
      else inner.push({ index: top, instructions: [cpi] });
    };
    if (mode !== "log") logs.splice(0, logs.length, `Program ${OTHER_PROGRAM} invoke [1]`, "Log truncated");
    for (let d = 0; d < deposits; d++) {
      const leafIndex = o.err ? 999_999 : this.leaf++;
      if (mode === "log") instructions.push({ programIdIndex: K_PROGRAM, accountKeyIndexes: ACCOUNTS, data: deposit(leafIndex) });
      else {
        const receipt = encodeBase58(randomBytes(32));
        instructions.push({ programIdIndex: K_PROGRAM, accountKeyIndexes: [0, 1, 2, 0, 0, keyIndex(receipt)], data: deposit(leafIndex) });
        if (!o.err) this.receipts.set(receipt, receiptOf(depositEvent(leafIndex, this.slot)));
      }
      if (!o.err) leaves.push(leafIndex);
      if (mode === "log") logs.push(`Program ${PROGRAM} invoke [1]`, `Program log: Instruction: Deposit`);
      emit(depositEvent(leafIndex, this.slot), instructions.length - 1);
      if (o.foreign && d === 0 && mode === "log") {
        logs.push(`Program ${OTHER_PROGRAM} invoke [2]`, encodePoolEventLog(depositEvent(888_888, this.slot)), `Program ${OTHER_PROGRAM} success`);
      }
      if (mode === "log") end(o.err === true && d === deposits - 1);
    }
    if (o.foreign && mode === "log")
      logs.push(`Program ${OTHER_PROGRAM} invoke [1]`, encodePoolEventLog(depositEvent(777_777, this.slot)), `Program ${OTHER_PROGRAM} success`);
    let truncated = false;
    if (o.withdraw && !o.err) {
      const leafIndex = this.leaf++;
      const change = changeOf(leafIndex);
      const nullifier = randomBytes(32);
      leaves.push(leafIndex);
      changes.set(leafIndex, change);
      const data = withdraw(nullifier, change);
      const depth = o.inner ? 2 : 1;
      if (o.inner) {
        instructions.push({ programIdIndex: K_OTHER, accountKeyIndexes: [], data: new Uint8Array([1, 2, 3]) });
        inner.push({ index: instructions.length - 1, instructions: [{ programIdIndex: K_PROGRAM, accounts: ACCOUNTS, data: bs58.encode(data) }] });
        logs.push(`Program ${OTHER_PROGRAM} invoke [1]`);
      } else instructions.push({ programIdIndex: K_PROGRAM, accountKeyIndexes: ACCOUNTS, data });
      if (mode === "log") logs.push(`Program ${PROGRAM} invoke [${depth}]`, `Program log: Instruction: Withdraw`);
      if (mode === "cpi") {
        emit(withdrawEventOf(nullifier, change, leafIndex), instructions.length - 1);
      } else if (mode === "none") {
        // Nothing: no event anywhere (a CPI withdrawal would be invisible too, so the tests do not combine the two).
      } else if (o.cut) {
        logs.push("Log truncated");
        truncated = true;
      } else {
        logs.push(encodePoolEventLog(withdrawEventOf(nullifier, o.lyingEvent ? changeOf(leafIndex + 1000) : change, leafIndex)));
        end(false);
        if (o.inner) logs.push(`Program ${OTHER_PROGRAM} success`);
      }
    }
    if (mode === "none") inner.length = 0; // the RPC gave no inner instructions
    if (!truncated && deposits === 0 && !o.withdraw) {
      // Touches the tree, inserts nothing (a revert reads it).
      instructions.push({ programIdIndex: K_PROGRAM, accountKeyIndexes: ACCOUNTS, data: encodePoolInstruction({ name: "revert", nonce: 1n }) });
      logs.push(`Program ${PROGRAM} invoke [1]`, `Program log: Instruction: Revert`);
      end(false);
    }
    const tx: FakeTx = {
      signature,
      slot: this.slot,
      err: o.err ? { InstructionError: [0, { Custom: 6000 }] } : null,
      logs,
      instructions,
      inner,
      leaves,
      changes,
      keys,
    };
    this.txs.push(tx);
    this.bySignature.set(signature, tx);
    return tx;
  }

  /** The RPC's listing order, newest first. */
  private listing(): FakeTx[] {
    const out = [...this.txs].reverse();
    if (!this.shuffleWithinSlot) return out;
    // Within a slot, list the transactions in a scrambled (but stable) order.
    const bySlot = new Map<number, FakeTx[]>();
    for (const t of out) bySlot.set(t.slot, [...(bySlot.get(t.slot) ?? []), t]);
    return [...bySlot.values()].flatMap((g) => [...g].sort((a, b) => (a.signature < b.signature ? -1 : 1)));
  }

  async getSignaturesForAddress(address: PublicKey, options?: SignaturesForAddressOptions): Promise<ConfirmedSignatureInfo[]> {
    expect(address.toBase58()).toBe(TREE);
    this.sigCalls++;
    const all = this.listing();
    let start = 0;
    if (options?.before) start = all.findIndex((t) => t.signature === options.before) + 1;
    const out: ConfirmedSignatureInfo[] = [];
    for (let k = start; k < all.length && out.length < (options?.limit ?? 1000); k++) {
      const t = all[k]!;
      if (t.signature === options?.until) break;
      out.push({ signature: t.signature, slot: t.slot, err: t.err as ConfirmedSignatureInfo["err"], memo: null, blockTime: null });
    }
    await Promise.resolve();
    return out;
  }

  async getTransaction(signature: string): Promise<HistoryTransaction | null> {
    this.txCalls++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((r) => setImmediate(r));
    this.inFlight--;
    if (this.hidden.has(signature)) return null;
    const t = this.bySignature.get(signature);
    if (!t) return null;
    return {
      slot: t.slot,
      transaction: {
        message: { staticAccountKeys: t.keys === KEYS ? KEY_OBJECTS : t.keys.map((k) => new PublicKey(k)), compiledInstructions: t.instructions },
      },
      meta: { err: t.err, logMessages: t.logs, innerInstructions: t.inner, loadedAddresses: { writable: [], readonly: [] } },
    };
  }

  async getAccountInfo(address: PublicKey): Promise<{ owner: PublicKey; data: Uint8Array } | null> {
    this.receiptCalls++;
    await Promise.resolve();
    const data = this.receipts.get(address.toBase58());
    return data && !this.receiptsUnreadable ? { owner: new PublicKey(PROGRAM), data } : null;
  }
}

const AUTHORITY = eventAuthorityAddress(PROGRAM);

const withdrawEventOf = (nullifier: Uint8Array, change: Uint8Array, leafIndex: number): PoolEvent => ({
  name: "WithdrawEvent",
  nullifierHash: nullifier,
  recipient: new Uint8Array(32).fill(8),
  amount: 5n,
  fee: 1n,
  relayer: new Uint8Array(32).fill(9),
  changeCommitment: change,
  changeLeafIndex: leafIndex,
});

/** The receipt the program writes for a deposit whose event is `e`. */
const receiptOf = (e: ReturnType<typeof depositEvent>): Uint8Array =>
  encodeDepositReceipt({
    mint: new PublicKey(MINT).toBytes(),
    depositor: e.depositor,
    commitment: e.commitment,
    amount: e.amount,
    nonce: e.nonce,
    status: "indexed",
    leafIndex: e.leafIndex,
    createdAt: 1n,
    bump: 255,
  });

function depositEvent(leafIndex: number, slot: number) {
  const commitment = new Uint8Array(32);
  new DataView(commitment.buffer).setUint32(28, leafIndex + 1);
  return {
    name: "DepositEvent" as const,
    leafIndex,
    commitment,
    depositor: new Uint8Array(32).fill(1), // RELAYER, the instructions' accounts[0]
    amount: 1_000_000n,
    slot: BigInt(slot),
    nonce: BigInt(leafIndex),
  };
}

/** Reads pages until an empty one; returns every event and the pages' sizes. */
async function drain(rpc: DepositHistoryRpc, cursor: string | null, limit: number, cache?: DepositHistoryCache) {
  const events: LeafEvent[] = [];
  const pages: { events: LeafEvent[]; cursor: string | null }[] = [];
  for (;;) {
    const page = await fetchLeafEventsPage(rpc, POOL, cursor, limit, cache ? { cache } : {});
    if (page.events.length === 0) {
      expect(page.cursor).toBe(cursor);
      return { events, pages, cursor };
    }
    pages.push(page);
    events.push(...page.events);
    cursor = page.cursor;
  }
}

const leafIndexes = (events: LeafEvent[]): number[] => events.map((e) => e.leafIndex);
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** A varied history: several deposits per transaction, failed ones, withdrawals (top-level and CPI), foreign look-alike lines, shared slots. */
function history(rpc: FakeRpc, txCount: number): number {
  for (let k = 0; k < txCount; k++) {
    if (k % 11 === 5) rpc.add(1, { err: true, sameSlot: k % 2 === 0 });
    else if (k % 13 === 7) rpc.add(0, { withdraw: true, inner: k % 2 === 0 });
    else if (k % 17 === 3) rpc.add(0);
    else rpc.add(1 + (k % 3), { foreign: k % 7 === 0, sameSlot: k % 4 === 1, withdraw: k % 5 === 0 });
  }
  return rpc.txs.reduce((n, t) => n + t.leaves.length, 0);
}

describe("fetchLeafEventsPage", () => {
  it("reads the whole history forward, oldest first, across pages of 1000 signatures", async () => {
    const rpc = new FakeRpc();
    const n = history(rpc, 2600);
    expect(n).toBeGreaterThan(4000);
    const { events, pages } = await drain(rpc, null, 500);
    expect(leafIndexes(events)).toEqual(range(n));
    // Failed transactions and other programs' lines contribute nothing; commitments and signatures come through.
    const bySig = new Map(rpc.txs.map((t) => [t.signature, t]));
    for (const e of events) {
      const t = bySig.get(e.signature)!;
      expect(t.leaves).toContain(e.leafIndex);
      expect(new DataView(e.commitment.buffer, e.commitment.byteOffset).getUint32(28)).toBe(e.leafIndex + 1);
      if (e.kind === "deposit") {
        expect(e.depositor).toBe(RELAYER);
        expect(e.amount).toBe(1_000_000n);
      } else expect(e.commitment).toEqual(t.changes.get(e.leafIndex));
      expect(e.slot).toBe(t.slot);
    }
    expect(events.filter((e) => e.kind === "change").length).toBeGreaterThan(300);
    // Pages respect the limit and never split a transaction (nor a slot).
    for (const [p, page] of pages.entries()) {
      expect(page.events.length).toBeLessThanOrEqual(500);
      const last = page.events[page.events.length - 1]!;
      expect(bySig.get(last.signature)!.leaves.at(-1)).toBe(last.leafIndex);
      const next = pages[p + 1]?.events[0];
      if (next) expect(next.slot).toBeGreaterThan(last.slot);
    }
    // The final cursor is the newest transaction, even when it has no deposit.
    expect(pages.at(-1)!.cursor).toBe(rpc.txs.at(-1)!.signature);
  });

  it("ignores failed transactions without fetching them, and another program's Program data lines", async () => {
    const rpc = new FakeRpc();
    rpc.add(1);
    rpc.add(2, { err: true });
    rpc.add(1, { foreign: true });
    rpc.add(0);
    rpc.add(1);
    const page = await fetchLeafEventsPage(rpc, POOL, null, 100);
    expect(leafIndexes(page.events)).toEqual([0, 1, 2]);
    expect(page.cursor).toBe(rpc.txs[4]!.signature);
    expect(rpc.txCalls).toBe(4);
  });

  it("reads each withdrawal's change leaf from its instruction, top-level or CPI, in order with the deposits", async () => {
    const rpc = new FakeRpc();
    rpc.add(1);
    const top = rpc.add(2, { withdraw: true });
    const cpi = rpc.add(0, { withdraw: true, inner: true, sameSlot: true });
    rpc.add(1);
    const page = await fetchLeafEventsPage(rpc, POOL, null, 100);
    expect(page.events.map((e) => [e.kind, e.leafIndex, e.signature])).toEqual([
      ["deposit", 0, rpc.txs[0]!.signature],
      ["deposit", 1, top.signature],
      ["deposit", 2, top.signature],
      ["change", 3, top.signature],
      ["change", 4, cpi.signature],
      ["deposit", 5, rpc.txs[3]!.signature],
    ]);
    const change = page.events[4]!;
    expect(change.kind === "change" && change.commitment).toEqual(cpi.changes.get(4));
    expect(change.kind === "change" && change.nullifierHash.length).toBe(32);
  });

  it("a withdrawal whose WithdrawEvent was cut from the logs still yields its change leaf, placed by order", async () => {
    const rpc = new FakeRpc();
    rpc.add(1);
    // Placed by the deposit before it in its own transaction.
    rpc.add(1, { withdraw: true, cut: true });
    // Alone in its transaction: placed after the leaves before it on the page.
    rpc.add(0, { withdraw: true, cut: true, inner: true });
    rpc.add(1);
    const { events, cursor } = await drain(rpc, null, 1000);
    expect(events.map((e) => [e.kind, e.leafIndex])).toEqual([
      ["deposit", 0],
      ["deposit", 1],
      ["change", 2],
      ["change", 3],
      ["deposit", 4],
    ]);
    expect(events[3]!.commitment).toEqual(rpc.txs[2]!.changes.get(3));
    // The next page starts where this one ended (kept with the cursor).
    rpc.add(0, { withdraw: true, cut: true });
    expect(leafIndexes((await fetchLeafEventsPage(rpc, POOL, cursor, 1000)).events)).toEqual([5]);
  });

  it("after a restart a cut withdrawal is placed from the leaves after it, or from the tree account at the head", async () => {
    const rpc = new FakeRpc();
    rpc.add(2);
    const { cursor } = await drain(rpc, null, 1000);
    rpc.add(0, { withdraw: true, cut: true });
    // Nothing else on the page, no cache, no tree account: it waits, naming the transaction.
    await expect(fetchLeafEventsPage(rpc, POOL, cursor, 1000, { cache: new DepositHistoryCache() })).rejects.toThrow(/nothing else places it/);
    // The tree account: 3 leaves now, so this page's one leaf is leaf 2.
    const viaTree = await fetchLeafEventsPage(rpc, POOL, cursor, 1000, { cache: new DepositHistoryCache(), treeNextIndex: async () => rpc.leaf });
    expect(leafIndexes(viaTree.events)).toEqual([2]);
    // A later deposit places it too.
    rpc.add(1);
    const viaNext = await fetchLeafEventsPage(rpc, POOL, cursor, 1000, { cache: new DepositHistoryCache() });
    expect(leafIndexes(viaNext.events)).toEqual([2, 3]);
  });

  it("refuses to index a transaction whose WithdrawEvent disagrees with its instruction", async () => {
    const rpc = new FakeRpc();
    const lying = rpc.add(0, { withdraw: true, lyingEvent: true });
    await expect(fetchLeafEventsPage(rpc, POOL, null, 100)).rejects.toThrow(new RegExp(`transaction ${lying.signature} cannot be indexed: .*WithdrawEvent`));
  });

  it("stops a page at a transaction the RPC does not return yet, and reads it later", async () => {
    const rpc = new FakeRpc();
    history(rpc, 300);
    const stuck = rpc.txs.find((t, k) => k > 100 && t.leaves.length > 0 && t.slot !== rpc.txs[k - 1]!.slot)!;
    rpc.hidden.add(stuck.signature);
    const first = await drain(rpc, null, 50);
    expect(first.events.length).toBe(stuck.leaves[0]);
    expect(leafIndexes(first.events)).toEqual(range(stuck.leaves[0]!));
    // The cursor stops before the missing transaction: it is the one just before it.
    expect(first.cursor).toBe(rpc.txs[rpc.txs.indexOf(stuck) - 1]!.signature);
    // Still missing: still nothing (and the cursor does not move).
    expect((await fetchLeafEventsPage(rpc, POOL, first.cursor, 50)).events).toEqual([]);
    rpc.hidden.delete(stuck.signature);
    const rest = await drain(rpc, first.cursor, 50);
    const total = rpc.txs.reduce((n, t) => n + t.leaves.length, 0);
    expect(leafIndexes(rest.events)).toEqual(range(total).slice(stuck.leaves[0]!));
  });

  it("holds back the whole slot of a missing transaction, so a slot is never split", async () => {
    const rpc = new FakeRpc();
    rpc.add(1);
    const a = rpc.add(1);
    const b = rpc.add(1, { sameSlot: true });
    rpc.hidden.add(b.signature);
    const page = await fetchLeafEventsPage(rpc, POOL, null, 100);
    expect(leafIndexes(page.events)).toEqual([0]);
    expect(page.cursor).toBe(rpc.txs[0]!.signature);
    rpc.hidden.delete(b.signature);
    const next = await fetchLeafEventsPage(rpc, POOL, page.cursor, 100);
    expect(next.events.map((e) => e.signature)).toEqual([a.signature, b.signature]);
  });

  it("resumes after a restart: a fresh reader given the returned cursor yields exactly the rest", async () => {
    const rpc = new FakeRpc();
    const n = history(rpc, 1500);
    const cache1 = new DepositHistoryCache();
    const p1 = await fetchLeafEventsPage(rpc, POOL, null, 700, { cache: cache1 });
    const p2 = await fetchLeafEventsPage(rpc, POOL, p1.cursor, 700, { cache: cache1 });
    const seen = [...p1.events, ...p2.events];
    // "Restart": a new process, nothing cached, only the persisted cursor.
    const rest = await drain(rpc, p2.cursor, 700, new DepositHistoryCache());
    expect(leafIndexes([...seen, ...rest.events])).toEqual(range(n));
    // And new deposits after the end are picked up from the last cursor.
    rpc.add(2);
    rpc.add(0, { withdraw: true });
    rpc.add(0);
    const live = await fetchLeafEventsPage(rpc, POOL, rest.cursor, 700, { cache: new DepositHistoryCache() });
    expect(leafIndexes(live.events)).toEqual([n, n + 1, n + 2]);
    expect(live.cursor).toBe(rpc.txs.at(-1)!.signature);
  });

  it("orders a slot's events by the program's insertion order whatever order the RPC lists the slot in", async () => {
    const rpc = new FakeRpc();
    rpc.shuffleWithinSlot = true;
    for (let s = 0; s < 40; s++) {
      rpc.add(1);
      for (let k = 0; k < 5; k++) rpc.add(1 + (k % 2), { sameSlot: true });
    }
    const n = rpc.txs.reduce((c, t) => c + t.leaves.length, 0);
    const { events, pages } = await drain(rpc, null, 20);
    expect(leafIndexes(events)).toEqual(range(n));
    for (const page of pages) expect(page.events.length).toBeLessThanOrEqual(20);
  });

  it("returns a slot with more events than the limit whole rather than splitting it", async () => {
    const rpc = new FakeRpc();
    rpc.add(3);
    rpc.add(4, { sameSlot: true });
    rpc.add(1);
    const p1 = await fetchLeafEventsPage(rpc, POOL, null, 2);
    expect(leafIndexes(p1.events)).toEqual(range(7));
    const p2 = await fetchLeafEventsPage(rpc, POOL, p1.cursor, 2);
    expect(leafIndexes(p2.events)).toEqual([7]);
  });

  it("costs RPC calls linear in the history for a 10k-deposit backfill, with bounded parallelism", async () => {
    const rpc = new FakeRpc();
    for (let k = 0; k < 10_000; k++) rpc.add(1);
    const { events, pages } = await drain(rpc, null, 1000);
    expect(events.length).toBe(10_000);
    expect(pages.length).toBe(10);
    // One scan of 10 full calls + the final short one, then one "anything new?" call per later page.
    expect(rpc.sigCalls).toBeLessThanOrEqual(11 + pages.length + 1);
    // Each transaction fetched once, plus at most one look-ahead batch per page.
    expect(rpc.txCalls).toBeLessThanOrEqual(10_000 + 16);
    expect(rpc.maxInFlight).toBeLessThanOrEqual(16);
    expect(rpc.maxInFlight).toBeGreaterThan(1);
  });

  it("a caught-up reader costs one signature call per poll", async () => {
    const rpc = new FakeRpc();
    history(rpc, 50);
    const { cursor } = await drain(rpc, null, 1000);
    const before = { sig: rpc.sigCalls, tx: rpc.txCalls };
    for (let k = 0; k < 5; k++) expect((await fetchLeafEventsPage(rpc, POOL, cursor, 1000)).events).toEqual([]);
    expect(rpc.sigCalls - before.sig).toBe(5);
    expect(rpc.txCalls).toBe(before.tx);
  });

  it("does not refetch transactions without leaves while the cursor cannot move past them", async () => {
    const rpc = new FakeRpc();
    rpc.add(1);
    const { cursor } = await drain(rpc, null, 1000);
    for (let k = 0; k < 30; k++) rpc.add(0);
    const calls = rpc.txCalls;
    for (let k = 0; k < 3; k++) expect(await fetchLeafEventsPage(rpc, POOL, cursor, 1000)).toEqual({ events: [], cursor });
    expect(rpc.txCalls - calls).toBe(30);
    rpc.add(1);
    const page = await fetchLeafEventsPage(rpc, POOL, cursor, 1000);
    expect(leafIndexes(page.events)).toEqual([1]);
    expect(rpc.txCalls - calls).toBe(31);
  });

  it("events as the program's self-CPIs: every leaf read although the logs were cut at the start of the transaction", async () => {
    const rpc = new FakeRpc();
    rpc.add(2);
    const cpi = rpc.add(14, { events: "cpi", withdraw: true });
    const inner = rpc.add(1, { events: "cpi", withdraw: true, inner: true });
    const page = await fetchLeafEventsPage(rpc, POOL, null, 100);
    expect(leafIndexes(page.events)).toEqual(range(19));
    expect(page.events.slice(2, 17).every((e) => e.signature === cpi.signature)).toBe(true);
    expect(page.events.slice(17).map((e) => [e.kind, e.signature])).toEqual([
      ["deposit", inner.signature],
      ["change", inner.signature],
    ]);
    expect(page.events[18]!.commitment).toEqual(inner.changes.get(18));
    // Nothing was missing: no receipt read, no repair reported.
    expect(rpc.receiptCalls).toBe(0);
    expect(page.repairs).toBeUndefined();
  });

  it("a gap (no inner instructions from the RPC, logs cut): deposits from their receipts, the change leaf placed after them, and the page says so", async () => {
    const rpc = new FakeRpc();
    rpc.add(2);
    const gap = rpc.add(14, { events: "none", withdraw: true });
    rpc.add(1);
    const page = await fetchLeafEventsPage(rpc, POOL, null, 100);
    expect(leafIndexes(page.events)).toEqual(range(18));
    for (const e of page.events.slice(2, 16)) {
      expect(e).toMatchObject({ kind: "deposit", signature: gap.signature, depositor: RELAYER, amount: 1_000_000n });
      expect(new DataView(e.commitment.buffer, e.commitment.byteOffset).getUint32(28)).toBe(e.leafIndex + 1);
    }
    expect(page.events[16]).toMatchObject({ kind: "change", leafIndex: 16, commitment: gap.changes.get(16) });
    expect(rpc.receiptCalls).toBe(14);
    expect(page.repairs).toEqual([`${gap.signature}: 14 deposits without an event read from their receipts, 1 change leaf without an event placed by order`]);
  });

  it("a receipt that cannot be read yet stops the page before its transaction, naming it; a later call fills the gap", async () => {
    const rpc = new FakeRpc();
    rpc.add(1);
    const gap = rpc.add(1, { events: "none" });
    rpc.receiptsUnreadable = true;
    const cache = new DepositHistoryCache();
    await expect(fetchLeafEventsPage(rpc, POOL, null, 100, { cache })).rejects.toThrow(
      new RegExp(`transaction ${gap.signature}: .*receipt .* could not be read`),
    );
    rpc.receiptsUnreadable = false;
    const page = await fetchLeafEventsPage(rpc, POOL, null, 100, { cache });
    expect(leafIndexes(page.events)).toEqual([0, 1]);
    // Without a way to read accounts, the gap stays an error (as before receipts were read).
    const noAccounts: DepositHistoryRpc = {
      getSignaturesForAddress: (a, o) => rpc.getSignaturesForAddress(a, o),
      getTransaction: (sig) => rpc.getTransaction(sig),
    };
    await expect(fetchLeafEventsPage(noAccounts, POOL, null, 100)).rejects.toThrow(/is missing and its receipt .* could not be read/);
  });

  it("a restarted reader places a change leaf without its event from the caller's own next index, wherever the page ends", async () => {
    const rpc = new FakeRpc();
    rpc.add(3);
    const { cursor } = await drain(rpc, null, 1000);
    rpc.add(0, { withdraw: true, events: "none" });
    rpc.add(0, { withdraw: true, events: "none" });
    // No neighbour, no page before it, no tree account: the caller's next index (3) places both.
    const page = await fetchLeafEventsPage(rpc, POOL, cursor, 1, { cache: new DepositHistoryCache(), nextIndex: 3 });
    expect(leafIndexes(page.events)).toEqual([3]);
    expect(leafIndexes((await fetchLeafEventsPage(rpc, POOL, page.cursor, 1, { cache: new DepositHistoryCache(), nextIndex: 4 })).events)).toEqual([4]);
  });

  it("a transaction whose logs and inner instructions the RPC did not keep: its deposits come from their receipts", async () => {
    const rpc = new FakeRpc();
    const tx = rpc.add(1, { events: "none" });
    tx.logs.length = 0;
    const broken: DepositHistoryRpc = {
      getSignaturesForAddress: (a, o) => rpc.getSignaturesForAddress(a, o),
      getTransaction: async (sig) => {
        const t = (await rpc.getTransaction(sig))!;
        return { ...t, meta: { err: null, logMessages: null, innerInstructions: null } };
      },
      getAccountInfo: (a) => rpc.getAccountInfo(a),
    };
    expect(leafIndexes((await fetchLeafEventsPage(broken, POOL, null, 10)).events)).toEqual([0]);
  });
});
