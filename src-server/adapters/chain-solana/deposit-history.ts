/**
 * Reads a pool's leaves forward from chain history (protocol v3,
 * docs/pool-program.md "Events", docs/solana.md "Leaves from chain history"): the signatures of the
 * transactions that touched the tree account (`getSignaturesForAddress`,
 * newest first, paged backwards down to the cursor), then those transactions
 * oldest first (`getTransaction`, a few in parallel). Each successful
 * transaction's leaves come from src-shared/pool-program/leaves.ts: deposit
 * leaves from their DepositEvent (an event CPI of the program, or a
 * `Program data:` log line of an older transaction), change leaves from the
 * withdraw / withdraw_swap instruction data (top-level or CPI), with their
 * WithdrawEvent only giving (and cross-checking) the leaf index.
 *
 * A deposit whose event is missing (an RPC that gives no inner instructions,
 * an old transaction whose logs the runtime cut) is a gap that chain state
 * fills: its receipt account (the instruction's accounts[5]) holds its leaf
 * and leafIndex, or says it inserted none. The page reports each such repair.
 *
 * The cursor is the signature of the last transaction processed (null: from the
 * beginning). Pages end on a slot boundary, so a transaction's leaves (and a
 * slot's) are never split across pages and, within a page, leaves are ordered
 * by (slot, leafIndex) — the program's own insertion order — whatever order the
 * RPC lists a slot's transactions in.
 *
 * A change leaf whose WithdrawEvent was cut from the logs and that no other
 * leaf of its transaction places takes the first index the page's other leaves
 * leave free after the cursor, in listing order; the indexer's index check and
 * root check catch a wrong guess.
 *
 * The backward signature scan is cached per (rpc, tree) between calls, so a
 * backfill of n leaves costs O(n / 1000) signature calls and O(n / leavesPerTx)
 * transaction calls in total, not a rescan per page.
 */
import { PublicKey, type Commitment, type ConfirmedSignatureInfo, type Finality, type SignaturesForAddressOptions } from "@solana/web3.js";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { decodeDepositReceipt, type DepositReceiptData } from "../../../src-shared/pool-program/accounts";
import { insertedLeaves, leafTransactionOfResponse, type LeafTransaction, type TransactionLeaves } from "../../../src-shared/pool-program/leaves";
import type { LeafEvent, LeafEventPage } from "../../ports/chain";

/** What getTransaction answers that the reader reads (a web3.js VersionedTransactionResponse is one). */
export type HistoryTransaction = Parameters<typeof leafTransactionOfResponse>[0] & { slot: number };

/** A transaction as the fast path reads it: `tx` null while the node has no meta for it. */
export interface LandedTransaction {
  slot: number;
  tx: LeafTransaction | null;
}

/** What the history reader needs from an RPC; a web3.js `Connection` satisfies it. */
export interface DepositHistoryRpc {
  getSignaturesForAddress(address: PublicKey, options?: SignaturesForAddressOptions, commitment?: Finality): Promise<ConfirmedSignatureInfo[]>;
  getTransaction(signature: string, config: { maxSupportedTransactionVersion: number; commitment?: Finality }): Promise<HistoryTransaction | null>;
  /**
   * Optional fast path: the same answer without web3.js's response validation
   * (half of a backfill's CPU).
   */
  getLeafTransaction?(signature: string, commitment: Finality): Promise<LandedTransaction | null>;
  /**
   * Reads a deposit's receipt when its event is missing (a gap). Without it
   * such a deposit stops the page with an error, as before receipts were read.
   */
  getAccountInfo?(publicKey: PublicKey, commitment?: Commitment): Promise<{ owner: PublicKey; data: Uint8Array } | null>;
}

export interface DepositPoolRef {
  programId: string;
  mint: string;
  /** The pool's tree account (PDA ["merkle_tree", mint]): every deposit and withdrawal writes it. */
  treeAddress: string;
}

export interface DepositHistoryOptions {
  /** Default "confirmed" (the RPC refuses "processed" for history). */
  commitment?: Finality;
  /** getTransaction calls in flight at once; default 16. */
  concurrency?: number;
  /** Where the signature scan is kept between calls; default: one per rpc object (weakly held) and tree. */
  cache?: DepositHistoryCache;
  /**
   * The tree account's nextIndex now: places a change leaf whose event was cut
   * when nothing else on the page can (a page that reaches the newest
   * transaction ends where the tree does).
   */
  treeNextIndex?: () => Promise<number>;
  /**
   * The tree's next leaf index at `cursor`, when the caller knows it (the
   * indexer does: its own tree at that cursor). Places a change leaf whose
   * event is missing wherever the page stands, also right after a restart.
   */
  nextIndex?: number;
}

/** Signatures per getSignaturesForAddress call (the RPC's maximum). */
export const SIGNATURES_PER_CALL = 1000;
const DEFAULT_CONCURRENCY = 16;

/** A leaf as read from its transaction: a change leaf's index may still be open. */
type ReadLeaf = (Omit<Extract<LeafEvent, { kind: "deposit" }>, "leafIndex"> | Omit<Extract<LeafEvent, { kind: "change" }>, "leafIndex">) & {
  leafIndex: number | null;
};

interface Entry {
  signature: string;
  slot: number;
  /** The transaction's leaves in this tree once known ([] for failed or other transactions). */
  leaves?: ReadLeaf[];
  /** How its missing events were made up for (receipts read, change leaves placed by order), if any were. */
  repair?: string;
}

interface TreeScan {
  /** The signature just before entries[0] (null: the beginning of history). */
  anchor: string | null;
  /** The tree's next leaf index after the anchor, when known (0 at the beginning). */
  anchorNext: number | null;
  /** The last page returned: its cursor and the next leaf index after it. */
  returned: { cursor: string | null; next: number } | null;
  /** Transactions after the anchor, oldest first. */
  entries: Entry[];
  /** signature → index in entries. */
  index: Map<string, number>;
  /** Serializes calls on one tree. */
  lock: Promise<unknown>;
}

/** The per-tree signature scans of one RPC. */
export class DepositHistoryCache {
  private readonly trees = new Map<string, TreeScan>();

  /** @internal */
  scan(treeAddress: string): TreeScan {
    let s = this.trees.get(treeAddress);
    if (!s) this.trees.set(treeAddress, (s = { anchor: null, anchorNext: 0, returned: null, entries: [], index: new Map(), lock: Promise.resolve() }));
    return s;
  }

  /** Signatures held (unprocessed transactions known), for tests and stats. */
  size(treeAddress: string): number {
    return this.trees.get(treeAddress)?.entries.length ?? 0;
  }

  clear(): void {
    this.trees.clear();
  }
}

const caches = new WeakMap<object, DepositHistoryCache>();

/** The cache `fetchLeafEventsPage` uses for this rpc when none is given. */
export function depositHistoryCacheOf(rpc: DepositHistoryRpc): DepositHistoryCache {
  let c = caches.get(rpc);
  if (!c) caches.set(rpc, (c = new DepositHistoryCache()));
  return c;
}

/**
 * The next leaves after `cursor`, in leaf order, at most `limit` unless a
 * single slot holds more. `cursor` of the result: the last transaction whose
 * leaves are all included (trailing transactions without leaves included); the
 * input cursor when no leaf is returned. A transaction the RPC does not return
 * yet (null) ends the page before its slot, so it is read on a later call.
 */
export async function fetchLeafEventsPage(
  rpc: DepositHistoryRpc,
  pool: DepositPoolRef,
  cursor: string | null,
  limit: number,
  opts: DepositHistoryOptions = {},
): Promise<LeafEventPage> {
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`limit must be a positive integer, got ${limit}`);
  const scan = (opts.cache ?? depositHistoryCacheOf(rpc)).scan(pool.treeAddress);
  const run = scan.lock.then(() =>
    readPage(rpc, pool, scan, cursor, limit, opts.commitment ?? "confirmed", opts.concurrency ?? DEFAULT_CONCURRENCY, opts.treeNextIndex, opts.nextIndex),
  );
  scan.lock = run.catch(() => {});
  return run;
}

async function readPage(
  rpc: DepositHistoryRpc,
  pool: DepositPoolRef,
  scan: TreeScan,
  cursor: string | null,
  limit: number,
  commitment: Finality,
  concurrency: number,
  treeNextIndex: (() => Promise<number>) | undefined,
  nextIndex: number | undefined,
): Promise<LeafEventPage> {
  seek(scan, cursor);
  if (scan.anchorNext === null && nextIndex !== undefined) scan.anchorNext = nextIndex;
  await extend(rpc, pool, scan, commitment);

  const { entries } = scan;
  const leaves: ReadLeaf[] = [];
  let pageCursor = cursor;
  let slotLeaves: ReadLeaf[] = [];
  const repairs: string[] = [];
  let slotRepairs: string[] = [];
  let slotEnd: string | null = null;
  let i = 0;
  let stalled = false;
  for (; i < entries.length; i++) {
    const e = entries[i]!;
    if (slotEnd !== null && e.slot !== entries[i - 1]!.slot) {
      // Slot boundary: the previous slot is complete.
      if (leaves.length > 0 && leaves.length + slotLeaves.length > limit) break;
      leaves.push(...slotLeaves);
      repairs.push(...slotRepairs);
      pageCursor = slotEnd;
      slotLeaves = [];
      slotRepairs = [];
      slotEnd = null;
      if (leaves.length >= limit) break;
    }
    if (!e.leaves && !(await load(rpc, pool, entries, i, commitment, concurrency))) {
      stalled = true;
      break;
    }
    slotLeaves.push(...e.leaves!);
    if (e.repair) slotRepairs.push(`${e.signature}: ${e.repair}`);
    slotEnd = e.signature;
  }
  const atHead = i === entries.length && !stalled;
  if (atHead && slotEnd !== null && !(leaves.length > 0 && leaves.length + slotLeaves.length > limit)) {
    leaves.push(...slotLeaves);
    repairs.push(...slotRepairs);
    pageCursor = slotEnd;
  }
  if (leaves.length === 0) return { events: [], cursor };
  const placed = await place(leaves, scan.anchorNext, atHead && pageCursor === slotEnd ? treeNextIndex : undefined);
  placed.sort((a, b) => a.slot - b.slot || a.leafIndex - b.leafIndex);
  scan.returned = { cursor: pageCursor, next: placed[placed.length - 1]!.leafIndex + 1 };
  return repairs.length > 0 ? { events: placed, cursor: pageCursor, repairs } : { events: placed, cursor: pageCursor };
}

/**
 * Gives each leaf whose index is still open (a change leaf without its event)
 * the first index the page's placed leaves leave free, counting from the
 * tree's next index at the cursor: known from the last page, or from the
 * first placed leaf and the leaves listed before it, or from the tree account
 * when the page ends at the newest transaction.
 */
async function place(leaves: ReadLeaf[], anchorNext: number | null, treeNextIndex: (() => Promise<number>) | undefined): Promise<LeafEvent[]> {
  const open = leaves.filter((l) => l.leafIndex === null);
  if (open.length > 0) {
    let next = anchorNext;
    if (next === null) {
      const first = leaves.findIndex((l) => l.leafIndex !== null);
      if (first >= 0) next = leaves[first]!.leafIndex! - first;
      else if (treeNextIndex) next = (await treeNextIndex()) - leaves.length;
    }
    if (next === null || next < 0) {
      const l = open[0]!;
      throw new Error(
        `transaction ${l.signature}: its change leaf has no WithdrawEvent in the logs and nothing else places it; it is read again once later leaves land`,
      );
    }
    const taken = new Set(leaves.flatMap((l) => (l.leafIndex === null ? [] : [l.leafIndex])));
    for (const l of open) {
      while (taken.has(next)) next++;
      l.leafIndex = next++;
    }
  }
  return leaves as LeafEvent[];
}

/** Drops what is before `cursor` from the scan, or restarts the scan at `cursor` when it does not know it. */
function seek(scan: TreeScan, cursor: string | null): void {
  const nextAt = (c: string | null): number | null => (c === null ? 0 : scan.returned && scan.returned.cursor === c ? scan.returned.next : null);
  let from: number;
  if (cursor === scan.anchor) from = 0;
  else {
    const at = cursor === null ? undefined : scan.index.get(cursor);
    if (at === undefined) {
      scan.anchor = cursor;
      scan.anchorNext = nextAt(cursor);
      scan.entries = [];
      scan.index = new Map();
      return;
    }
    from = at + 1;
  }
  if (from === 0) return;
  scan.anchor = cursor;
  scan.anchorNext = nextAt(cursor);
  scan.entries = scan.entries.slice(from);
  scan.index = new Map(scan.entries.map((e, i) => [e.signature, i]));
}

/** Appends the signatures newer than the scan's head, oldest first. */
async function extend(rpc: DepositHistoryRpc, pool: DepositPoolRef, scan: TreeScan, commitment: Finality): Promise<void> {
  const head = scan.entries.length ? scan.entries[scan.entries.length - 1]!.signature : scan.anchor;
  const address = new PublicKey(pool.treeAddress);
  const newestFirst: ConfirmedSignatureInfo[] = [];
  let before: string | undefined;
  for (;;) {
    const options: SignaturesForAddressOptions = { limit: SIGNATURES_PER_CALL };
    if (before !== undefined) options.before = before;
    if (head !== null) options.until = head;
    const batch = await rpc.getSignaturesForAddress(address, options, commitment);
    for (const s of batch) {
      if (s.signature === head) break; // an RPC that includes `until` itself
      newestFirst.push(s);
    }
    if (batch.length < SIGNATURES_PER_CALL) break;
    before = batch[batch.length - 1]!.signature;
  }
  for (let k = newestFirst.length - 1; k >= 0; k--) {
    const s = newestFirst[k]!;
    if (scan.index.has(s.signature)) continue;
    const entry: Entry = { signature: s.signature, slot: s.slot };
    if (s.err) entry.leaves = []; // failed: it changed nothing, no need to fetch it
    scan.index.set(s.signature, scan.entries.length);
    scan.entries.push(entry);
  }
}

/**
 * Fetches entries[i] and the next unknown ones (up to `concurrency` in
 * parallel). False when entries[i] is not available yet.
 */
async function load(rpc: DepositHistoryRpc, pool: DepositPoolRef, entries: Entry[], i: number, commitment: Finality, concurrency: number): Promise<boolean> {
  const batch: Entry[] = [];
  for (let k = i; k < entries.length && batch.length < concurrency; k++) if (!entries[k]!.leaves) batch.push(entries[k]!);
  await Promise.all(
    batch.map(async (e) => {
      let landed: LandedTransaction | null;
      if (rpc.getLeafTransaction) landed = await rpc.getLeafTransaction(e.signature, commitment);
      else {
        const r = await rpc.getTransaction(e.signature, { maxSupportedTransactionVersion: 0, commitment });
        landed = r ? { slot: r.slot, tx: r.meta ? leafTransactionOfResponse(r) : null } : null;
      }
      if (!landed || !landed.tx) return; // not available yet: read again on a later call
      const read = await readLeaves(rpc, pool, e.signature, landed.slot, landed.tx, commitment);
      e.leaves = read.leaves;
      if (read.repair) e.repair = read.repair;
    }),
  );
  return entries[i]!.leaves !== undefined;
}

/**
 * This tree's leaves in one transaction, its gaps filled from chain state: a
 * deposit whose event is missing gets its leaf (or none) from its receipt.
 */
async function readLeaves(
  rpc: DepositHistoryRpc,
  pool: DepositPoolRef,
  signature: string,
  slot: number,
  tx: LeafTransaction,
  commitment: Finality,
): Promise<{ leaves: ReadLeaf[]; repair: string | null }> {
  let found = insertedLeaves(tx, pool.programId);
  const missing = found.unknownDeposits.filter((u) => u.tree === pool.treeAddress && u.receipt !== "");
  let fromReceipts = 0;
  if (missing.length > 0 && found.problems.length === 0 && rpc.getAccountInfo) {
    const receipts = await readReceipts(rpc, pool.programId, [...new Set(missing.map((u) => u.receipt))], commitment);
    if (receipts.size > 0) {
      found = insertedLeaves(tx, pool.programId, receipts);
      fromReceipts = missing.length - found.unknownDeposits.filter((u) => u.tree === pool.treeAddress).length;
    }
  }
  const leaves = leavesOf(pool, signature, slot, tx, found);
  const placed = found.leaves.filter((l) => l.tree === pool.treeAddress && l.kind === "change" && !l.evented).length;
  const parts = [
    ...(fromReceipts > 0
      ? [`${fromReceipts} deposit${fromReceipts === 1 ? "" : "s"} without an event read from ${fromReceipts === 1 ? "its receipt" : "their receipts"}`]
      : []),
    ...(placed > 0 ? [`${placed} change leaf${placed === 1 ? "" : "s"} without an event placed by order`] : []),
  ];
  return { leaves, repair: parts.length > 0 ? parts.join(", ") : null };
}

/** The receipts among `addresses` that exist and are the program's; an unreadable one is left out (its deposit stays unknown). */
async function readReceipts(rpc: DepositHistoryRpc, programId: string, addresses: string[], commitment: Finality): Promise<Map<string, DepositReceiptData>> {
  const program = new PublicKey(programId);
  const out = new Map<string, DepositReceiptData>();
  await Promise.all(
    addresses.map(async (address) => {
      const info = await rpc.getAccountInfo!(new PublicKey(address), commitment);
      // Only the program writes its accounts: a receipt of another owner is no receipt.
      if (!info || !info.owner.equals(program)) return;
      const decoded = decodeDepositReceipt(new Uint8Array(info.data));
      if (decoded.ok) out.set(address, decoded.value);
    }),
  );
  return out;
}

/** This tree's leaves in one transaction (`found`: its leaves as read, receipts included); throws when the transaction cannot be indexed faithfully. */
export function leavesOf(
  pool: DepositPoolRef,
  signature: string,
  slot: number,
  tx: LeafTransaction,
  found: TransactionLeaves = insertedLeaves(tx, pool.programId),
): ReadLeaf[] {
  if (tx.err !== null && tx.err !== undefined) return [];
  if (found.problems.length > 0) throw new Error(`transaction ${signature} cannot be indexed: ${found.problems.join("; ")}`);
  const cut = found.unknownDeposits.find((u) => u.tree === pool.treeAddress);
  if (cut)
    throw new Error(
      `transaction ${signature}: the event of its deposit (instruction ${cut.instruction}) is missing and its receipt ${cut.receipt || "(none named)"} could not be read, so whether it inserted a leaf is unknown; read again on the next sync`,
    );
  return found.leaves
    .filter((l) => l.tree === pool.treeAddress)
    .map((l): ReadLeaf =>
      l.kind === "deposit"
        ? { kind: "deposit", signature, slot, leafIndex: l.leafIndex, commitment: l.commitment, depositor: encodeBase58(l.depositor), amount: l.amount }
        : { kind: "change", signature, slot, leafIndex: l.leafIndex, commitment: l.commitment, nullifierHash: l.nullifierHash },
    );
}
