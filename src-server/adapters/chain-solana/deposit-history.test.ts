import { randomBytes } from "node:crypto";
import bs58 from "bs58";
import { PublicKey, type ConfirmedSignatureInfo, type Connection, type SignaturesForAddressOptions } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { DEFAULT_POOL_PROGRAM_ID, NATIVE_MINT, encodePoolEventLog, encodePoolInstruction, poolTreeAddress } from "../../../src-shared/pool-program";
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
}

const deposit = (): Uint8Array => encodePoolInstruction({ name: "deposit", precommitment: new Uint8Array(32).fill(5), amount: 1_000_000n, nonce: 1n });
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
    for (let d = 0; d < deposits; d++) {
      instructions.push({ programIdIndex: K_PROGRAM, accountKeyIndexes: ACCOUNTS, data: deposit() });
      const leafIndex = o.err ? 999_999 : this.leaf++;
      if (!o.err) leaves.push(leafIndex);
      logs.push(`Program ${PROGRAM} invoke [1]`, `Program log: Instruction: Deposit`, encodePoolEventLog(depositEvent(leafIndex, this.slot)));
      if (o.foreign && d === 0) {
        logs.push(`Program ${OTHER_PROGRAM} invoke [2]`, encodePoolEventLog(depositEvent(888_888, this.slot)), `Program ${OTHER_PROGRAM} success`);
      }
      end(o.err === true && d === deposits - 1);
    }
    if (o.foreign) logs.push(`Program ${OTHER_PROGRAM} invoke [1]`, encodePoolEventLog(depositEvent(777_777, this.slot)), `Program ${OTHER_PROGRAM} success`);
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
      logs.push(`Program ${PROGRAM} invoke [${depth}]`, `Program log: Instruction: Withdraw`);
      if (o.cut) {
        logs.push("Log truncated");
        truncated = true;
      } else {
        logs.push(
          encodePoolEventLog({
            name: "WithdrawEvent",
            nullifierHash: nullifier,
            recipient: new Uint8Array(32).fill(8),
            amount: 5n,
            fee: 1n,
            relayer: new Uint8Array(32).fill(9),
            changeCommitment: o.lyingEvent ? changeOf(leafIndex + 1000) : change,
            changeLeafIndex: leafIndex,
          }),
        );
        end(false);
        if (o.inner) logs.push(`Program ${OTHER_PROGRAM} success`);
      }
    }
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
      transaction: { message: { staticAccountKeys: KEY_OBJECTS, compiledInstructions: t.instructions } },
      meta: { err: t.err, logMessages: t.logs, innerInstructions: t.inner, loadedAddresses: { writable: [], readonly: [] } },
    };
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
        expect(e.depositor).toBe(encodeBase58(new Uint8Array(32).fill(3)));
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

  it("refuses a transaction whose logs the RPC did not keep", async () => {
    const rpc = new FakeRpc();
    rpc.add(1);
    const broken: DepositHistoryRpc = {
      getSignaturesForAddress: (a, o) => rpc.getSignaturesForAddress(a, o),
      getTransaction: async () => ({
        slot: 1,
        transaction: { message: { staticAccountKeys: KEYS.map((k) => new PublicKey(k)), compiledInstructions: [] } },
        meta: { err: null, logMessages: null },
      }),
    };
    await expect(fetchLeafEventsPage(broken, POOL, null, 10)).rejects.toThrow(/no log messages/);
  });
});
