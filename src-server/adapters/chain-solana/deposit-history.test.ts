import { randomBytes } from "node:crypto";
import type { ConfirmedSignatureInfo, Connection, PublicKey, SignaturesForAddressOptions } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { DEFAULT_POOL_PROGRAM_ID, NATIVE_MINT, encodePoolEventLog, poolTreeAddress } from "../../../src-shared/pool-program";
import type { DepositEvent } from "../../ports/chain";
import { DepositHistoryCache, fetchDepositEventsPage, type DepositHistoryRpc } from "./deposit-history";

// A web3.js Connection is a DepositHistoryRpc (checked by the compiler).
export const connectionIsRpc = (c: Connection): DepositHistoryRpc => c;

const PROGRAM = DEFAULT_POOL_PROGRAM_ID;
const OTHER_PROGRAM = "Other111111111111111111111111111111111111111";
const MINT = NATIVE_MINT;
const TREE = poolTreeAddress(PROGRAM, MINT);
const POOL = { programId: PROGRAM, mint: MINT, treeAddress: TREE };

interface FakeTx {
  signature: string;
  slot: number;
  err: unknown;
  logs: string[];
  /** Leaf indexes this transaction legitimately inserted. */
  leaves: number[];
}

/**
 * A scripted RPC over one tree's history: getSignaturesForAddress pages
 * backwards (newest first, `before`/`until` exclusive, at most `limit`), and
 * getTransaction answers from the ledger unless the signature is hidden.
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
  private leaf = 0;
  /** Order in which the RPC lists a slot's transactions (its listing, reversed = oldest first). */
  shuffleWithinSlot = false;

  /** A transaction in a new slot (or the current one) with `deposits` DepositEvents. */
  add(deposits: number, o: { err?: boolean; sameSlot?: boolean; foreign?: boolean; withdraw?: boolean } = {}): FakeTx {
    if (!o.sameSlot) this.slot += 1 + (this.txs.length % 3);
    const signature = encodeBase58(randomBytes(64));
    const logs = [`Program ComputeBudget111111111111111111111111111111 invoke [1]`, `Program ComputeBudget111111111111111111111111111111 success`];
    logs.push(`Program ${PROGRAM} invoke [1]`, `Program log: Instruction: Deposit`);
    const leaves: number[] = [];
    for (let d = 0; d < deposits; d++) {
      const leafIndex = o.err ? 999_999 : this.leaf++;
      if (!o.err) leaves.push(leafIndex);
      logs.push(encodePoolEventLog(depositEvent(leafIndex, this.slot)));
    }
    if (o.withdraw) {
      logs.push(
        encodePoolEventLog({
          name: "WithdrawEvent",
          nullifierHash: new Uint8Array(32).fill(7),
          recipient: new Uint8Array(32).fill(8),
          amount: 5n,
          fee: 1n,
          relayer: new Uint8Array(32).fill(9),
        }),
      );
    }
    if (o.foreign) {
      // Another program logs a look-alike DepositEvent inside our instruction's CPI and after it.
      logs.push(`Program ${OTHER_PROGRAM} invoke [2]`, encodePoolEventLog(depositEvent(888_888, this.slot)), `Program ${OTHER_PROGRAM} success`);
    }
    logs.push(
      `Program ${PROGRAM} consumed 5000 of 200000 compute units`,
      o.err ? `Program ${PROGRAM} failed: custom program error: 0x1770` : `Program ${PROGRAM} success`,
    );
    if (o.foreign) logs.push(`Program ${OTHER_PROGRAM} invoke [1]`, encodePoolEventLog(depositEvent(777_777, this.slot)), `Program ${OTHER_PROGRAM} success`);
    const tx: FakeTx = { signature, slot: this.slot, err: o.err ? { InstructionError: [0, { Custom: 6000 }] } : null, logs, leaves };
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

  async getTransaction(signature: string): Promise<{ slot: number; meta: { err: unknown; logMessages: string[] } } | null> {
    this.txCalls++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((r) => setImmediate(r));
    this.inFlight--;
    if (this.hidden.has(signature)) return null;
    const t = this.bySignature.get(signature);
    if (!t) return null;
    return { slot: t.slot, meta: { err: t.err, logMessages: t.logs } };
  }
}

function depositEvent(leafIndex: number, slot: number) {
  const commitment = new Uint8Array(32);
  new DataView(commitment.buffer).setUint32(28, leafIndex + 1);
  return {
    name: "DepositEvent" as const,
    leafIndex,
    commitment,
    depositor: new Uint8Array(32).fill(3),
    amount: 1_000_000n,
    slot: BigInt(slot),
    nonce: BigInt(leafIndex),
  };
}

/** Reads pages until an empty one; returns every event and the pages' sizes. */
async function drain(rpc: DepositHistoryRpc, cursor: string | null, limit: number, cache?: DepositHistoryCache) {
  const events: DepositEvent[] = [];
  const pages: { events: DepositEvent[]; cursor: string | null }[] = [];
  for (;;) {
    const page = await fetchDepositEventsPage(rpc, POOL, cursor, limit, cache ? { cache } : {});
    if (page.events.length === 0) {
      expect(page.cursor).toBe(cursor);
      return { events, pages, cursor };
    }
    pages.push(page);
    events.push(...page.events);
    cursor = page.cursor;
  }
}

const leafIndexes = (events: DepositEvent[]): number[] => events.map((e) => e.leafIndex);
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** A varied history: several deposits per transaction, failed ones, withdrawals, foreign look-alike lines, shared slots. */
function history(rpc: FakeRpc, txCount: number): number {
  for (let k = 0; k < txCount; k++) {
    if (k % 11 === 5) rpc.add(1, { err: true, sameSlot: k % 2 === 0 });
    else if (k % 13 === 7) rpc.add(0, { withdraw: true });
    else rpc.add(1 + (k % 3), { foreign: k % 7 === 0, sameSlot: k % 4 === 1 });
  }
  return rpc.txs.reduce((n, t) => n + t.leaves.length, 0);
}

describe("fetchDepositEventsPage", () => {
  it("reads the whole history forward, oldest first, across pages of 1000 signatures", async () => {
    const rpc = new FakeRpc();
    const n = history(rpc, 2600);
    expect(n).toBeGreaterThan(4000);
    const { events, pages } = await drain(rpc, null, 500);
    expect(leafIndexes(events)).toEqual(range(n));
    // Failed transactions and other programs' lines contribute nothing; commitments and signatures come through.
    const bySig = new Map(rpc.txs.map((t) => [t.signature, t]));
    for (const e of events) {
      expect(bySig.get(e.signature)!.leaves).toContain(e.leafIndex);
      expect(new DataView(e.commitment.buffer, e.commitment.byteOffset).getUint32(28)).toBe(e.leafIndex + 1);
      expect(e.depositor).toBe(encodeBase58(new Uint8Array(32).fill(3)));
      expect(e.amount).toBe(1_000_000n);
      expect(e.slot).toBe(bySig.get(e.signature)!.slot);
    }
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
    rpc.add(0, { withdraw: true });
    rpc.add(1);
    const page = await fetchDepositEventsPage(rpc, POOL, null, 100);
    expect(leafIndexes(page.events)).toEqual([0, 1, 2]);
    expect(page.cursor).toBe(rpc.txs[4]!.signature);
    expect(rpc.txCalls).toBe(4);
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
    expect((await fetchDepositEventsPage(rpc, POOL, first.cursor, 50)).events).toEqual([]);
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
    const page = await fetchDepositEventsPage(rpc, POOL, null, 100);
    expect(leafIndexes(page.events)).toEqual([0]);
    expect(page.cursor).toBe(rpc.txs[0]!.signature);
    rpc.hidden.delete(b.signature);
    const next = await fetchDepositEventsPage(rpc, POOL, page.cursor, 100);
    expect(next.events.map((e) => e.signature)).toEqual([a.signature, b.signature]);
  });

  it("resumes after a restart: a fresh reader given the returned cursor yields exactly the rest", async () => {
    const rpc = new FakeRpc();
    const n = history(rpc, 1500);
    const cache1 = new DepositHistoryCache();
    const p1 = await fetchDepositEventsPage(rpc, POOL, null, 700, { cache: cache1 });
    const p2 = await fetchDepositEventsPage(rpc, POOL, p1.cursor, 700, { cache: cache1 });
    const seen = [...p1.events, ...p2.events];
    // "Restart": a new process, nothing cached, only the persisted cursor.
    const rest = await drain(rpc, p2.cursor, 700, new DepositHistoryCache());
    expect(leafIndexes([...seen, ...rest.events])).toEqual(range(n));
    // And new deposits after the end are picked up from the last cursor.
    rpc.add(2);
    rpc.add(0, { withdraw: true });
    const live = await fetchDepositEventsPage(rpc, POOL, rest.cursor, 700, { cache: new DepositHistoryCache() });
    expect(leafIndexes(live.events)).toEqual([n, n + 1]);
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
    const p1 = await fetchDepositEventsPage(rpc, POOL, null, 2);
    expect(leafIndexes(p1.events)).toEqual(range(7));
    const p2 = await fetchDepositEventsPage(rpc, POOL, p1.cursor, 2);
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
    for (let k = 0; k < 5; k++) expect((await fetchDepositEventsPage(rpc, POOL, cursor, 1000)).events).toEqual([]);
    expect(rpc.sigCalls - before.sig).toBe(5);
    expect(rpc.txCalls).toBe(before.tx);
  });

  it("does not refetch transactions without deposits while the cursor cannot move past them", async () => {
    const rpc = new FakeRpc();
    rpc.add(1);
    const { cursor } = await drain(rpc, null, 1000);
    for (let k = 0; k < 30; k++) rpc.add(0, { withdraw: true });
    const calls = rpc.txCalls;
    for (let k = 0; k < 3; k++) expect(await fetchDepositEventsPage(rpc, POOL, cursor, 1000)).toEqual({ events: [], cursor });
    expect(rpc.txCalls - calls).toBe(30);
    rpc.add(1);
    const page = await fetchDepositEventsPage(rpc, POOL, cursor, 1000);
    expect(leafIndexes(page.events)).toEqual([1]);
    expect(rpc.txCalls - calls).toBe(31);
  });

  it("refuses a transaction whose logs the RPC did not keep", async () => {
    const rpc = new FakeRpc();
    rpc.add(1);
    const broken: DepositHistoryRpc = {
      getSignaturesForAddress: (a, o) => rpc.getSignaturesForAddress(a, o),
      getTransaction: async () => ({ slot: 1, meta: { err: null, logMessages: null } }),
    };
    await expect(fetchDepositEventsPage(broken, POOL, null, 10)).rejects.toThrow(/no log messages/);
  });
});
