/**
 * Reads a pool's DepositEvents forward from chain history (docs/pool-program.md
 * "Events"): the signatures of the transactions that touched the tree account
 * (`getSignaturesForAddress`, newest first, paged backwards down to the cursor),
 * then those transactions oldest first (`getTransaction`, a few in parallel),
 * decoding the DepositEvents our program logged.
 *
 * The cursor is the signature of the last transaction processed (null: from the
 * beginning). Pages end on a slot boundary, so a transaction's events (and a
 * slot's) are never split across pages and, within a page, events are ordered by
 * (slot, leafIndex) — the program's own insertion order — whatever order the
 * RPC lists a slot's transactions in.
 *
 * The backward signature scan is cached per (rpc, tree) between calls, so a
 * backfill of n deposits costs O(n / 1000) signature calls and O(n / txPerDeposit)
 * transaction calls in total, not a rescan per page.
 */
import { PublicKey, type ConfirmedSignatureInfo, type Finality, type SignaturesForAddressOptions } from "@solana/web3.js";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { decodePoolEventLogs } from "../../../src-shared/pool-program";
import type { DepositEvent, DepositEventPage } from "../../ports/chain";

/** What the history reader needs from an RPC; a web3.js `Connection` satisfies it. */
export interface DepositHistoryRpc {
  getSignaturesForAddress(address: PublicKey, options?: SignaturesForAddressOptions, commitment?: Finality): Promise<ConfirmedSignatureInfo[]>;
  getTransaction(signature: string, config: { maxSupportedTransactionVersion: number; commitment?: Finality }): Promise<HistoryTransaction | null>;
  /**
   * Optional fast path: the same answer without web3.js's response validation
   * (half of a backfill's CPU). Only slot, error and logs are read.
   */
  getTransactionLogs?(signature: string, commitment: Finality): Promise<HistoryTransaction | null>;
}

/** What the history reader reads of a transaction. */
export interface HistoryTransaction {
  slot: number;
  meta: { err: unknown; logMessages?: string[] | null } | null;
}

export interface DepositPoolRef {
  programId: string;
  mint: string;
  /** The pool's tree account (PDA ["merkle_tree", mint]): every deposit writes it. */
  treeAddress: string;
}

export interface DepositHistoryOptions {
  /** Default "confirmed" (the RPC refuses "processed" for history). */
  commitment?: Finality;
  /** getTransaction calls in flight at once; default 16. */
  concurrency?: number;
  /** Where the signature scan is kept between calls; default: one per rpc object (weakly held) and tree. */
  cache?: DepositHistoryCache;
}

/** Signatures per getSignaturesForAddress call (the RPC's maximum). */
export const SIGNATURES_PER_CALL = 1000;
const DEFAULT_CONCURRENCY = 16;

interface Entry {
  signature: string;
  slot: number;
  /** The transaction's deposit events once known ([] for failed or other transactions). */
  events?: DepositEvent[];
}

interface TreeScan {
  /** The signature just before entries[0] (null: the beginning of history). */
  anchor: string | null;
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
    if (!s) this.trees.set(treeAddress, (s = { anchor: null, entries: [], index: new Map(), lock: Promise.resolve() }));
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

/** The cache `fetchDepositEventsPage` uses for this rpc when none is given. */
export function depositHistoryCacheOf(rpc: DepositHistoryRpc): DepositHistoryCache {
  let c = caches.get(rpc);
  if (!c) caches.set(rpc, (c = new DepositHistoryCache()));
  return c;
}

/**
 * The next DepositEvents after `cursor`, oldest first, at most `limit` unless a
 * single slot holds more. `cursor` of the result: the last transaction whose
 * events are all included (trailing non-deposit transactions included); the
 * input cursor when no event is returned. A transaction the RPC does not return
 * yet (null) ends the page before its slot, so it is read on a later call.
 */
export async function fetchDepositEventsPage(
  rpc: DepositHistoryRpc,
  pool: DepositPoolRef,
  cursor: string | null,
  limit: number,
  opts: DepositHistoryOptions = {},
): Promise<DepositEventPage> {
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`limit must be a positive integer, got ${limit}`);
  const scan = (opts.cache ?? depositHistoryCacheOf(rpc)).scan(pool.treeAddress);
  const run = scan.lock.then(() => readPage(rpc, pool, scan, cursor, limit, opts.commitment ?? "confirmed", opts.concurrency ?? DEFAULT_CONCURRENCY));
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
): Promise<DepositEventPage> {
  seek(scan, cursor);
  await extend(rpc, pool, scan, commitment);

  const { entries } = scan;
  const events: DepositEvent[] = [];
  let pageCursor = cursor;
  let slotEvents: DepositEvent[] = [];
  let slotEnd: string | null = null;
  let i = 0;
  let stalled = false;
  for (; i < entries.length; i++) {
    const e = entries[i]!;
    if (slotEnd !== null && e.slot !== entries[i - 1]!.slot) {
      // Slot boundary: the previous slot is complete.
      if (events.length > 0 && events.length + slotEvents.length > limit) break;
      events.push(...slotEvents);
      pageCursor = slotEnd;
      slotEvents = [];
      slotEnd = null;
      if (events.length >= limit) break;
    }
    if (!e.events && !(await load(rpc, pool, entries, i, commitment, concurrency))) {
      stalled = true;
      break;
    }
    slotEvents.push(...e.events!);
    slotEnd = e.signature;
  }
  if (i === entries.length && !stalled && slotEnd !== null && !(events.length > 0 && events.length + slotEvents.length > limit)) {
    events.push(...slotEvents);
    pageCursor = slotEnd;
  }
  if (events.length === 0) return { events, cursor };
  events.sort((a, b) => a.slot - b.slot || a.leafIndex - b.leafIndex);
  return { events, cursor: pageCursor };
}

/** Drops what is before `cursor` from the scan, or restarts the scan at `cursor` when it does not know it. */
function seek(scan: TreeScan, cursor: string | null): void {
  let from: number;
  if (cursor === scan.anchor) from = 0;
  else {
    const at = cursor === null ? undefined : scan.index.get(cursor);
    if (at === undefined) {
      scan.anchor = cursor;
      scan.entries = [];
      scan.index = new Map();
      return;
    }
    from = at + 1;
  }
  if (from === 0) return;
  scan.anchor = cursor;
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
    if (s.err) entry.events = []; // failed: it changed nothing, no need to fetch it
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
  for (let k = i; k < entries.length && batch.length < concurrency; k++) if (!entries[k]!.events) batch.push(entries[k]!);
  await Promise.all(
    batch.map(async (e) => {
      const tx = rpc.getTransactionLogs
        ? await rpc.getTransactionLogs(e.signature, commitment)
        : await rpc.getTransaction(e.signature, { maxSupportedTransactionVersion: 0, commitment });
      if (!tx || !tx.meta) return; // not available yet: read again on a later call
      if (tx.meta.err) {
        e.events = [];
        return;
      }
      if (!Array.isArray(tx.meta.logMessages)) throw new Error(`transaction ${e.signature} has no log messages: the RPC must keep logs to index deposits`);
      e.events = decodePoolEventLogs(tx.meta.logMessages, pool.programId).flatMap((ev) =>
        ev.name === "DepositEvent"
          ? [
              {
                signature: e.signature,
                leafIndex: ev.leafIndex,
                commitment: ev.commitment,
                depositor: encodeBase58(ev.depositor),
                amount: ev.amount,
                slot: tx.slot,
              },
            ]
          : [],
      );
    }),
  );
  return entries[i]!.events !== undefined;
}
